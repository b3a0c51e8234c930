// Package acp holds the Gherkin step definitions of the ACP suite and the
// step builders its vector format shares: tool calls, document edits and the
// presets that bring a fresh folder to a phase the way the recorded
// two-participant run does. Like all step definitions they only compile
// steps into sifu's step model. The vocabulary is in docs/acp.md.
package acpsteps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
)

// Defaults of a collaboration when a check does not say otherwise: the
// recorded run's participants and gates.
var (
	DefaultParticipants = []string{"server", "reader"}
	DefaultGates        = []string{"Accepted decisions are explicit", "Readiness passes"}
	DefaultObjective    = "Decide how the reader consumes the server's feed"
)

// Init is an init call.
func Init(participants []string, objective string, gates []string, resume bool) engine.Step {
	return engine.Step{Op: engine.OpAct, Name: "init", Params: map[string]any{
		"participants": anyList(participants), "objective": objective, "completion": anyList(gates), "resume": resume}}
}

// Append is an append call; replyTo 0 omits reply_to.
func Append(from, event string, replyTo int, doc string) engine.Step {
	p := map[string]any{"participant": from, "event": event}
	if replyTo != 0 {
		p["reply_to"] = float64(replyTo)
	}
	if doc != "" {
		p["doc"] = doc
	}
	return engine.Step{Op: engine.OpAct, Name: "append", Params: p}
}

// Next is a next-action call.
func Next(participant string) engine.Step {
	return engine.Step{Op: engine.OpRead, Name: "next", Params: map[string]any{"participant": participant}}
}

// Wait is a wait call with a timeout in seconds.
func Wait(participant string, seconds float64) engine.Step {
	return engine.Step{Op: engine.OpAct, Name: "wait", Params: map[string]any{"participant": participant, "timeout": seconds}}
}

// Validate is a validator call.
func Validate() engine.Step {
	return engine.Step{Op: engine.OpRead, Name: "validate", Params: map[string]any{}}
}

// Compat marks a tool call as asking for the upstream verdicts.
func Compat(s engine.Step) engine.Step {
	p := map[string]any{"compat": true}
	for k, v := range s.Params {
		p[k] = v
	}
	s.Params = p
	return s
}

// Write edits a document: how is "append", "replace" or "remove".
func Write(file, how, text string) engine.Step {
	p := map[string]any{"file": file}
	switch how {
	case "remove":
		p["remove"] = true
	default:
		p[how] = text
	}
	return engine.Step{Op: engine.OpControl, Name: "write", Params: p}
}

// Review is a structured review.md section for a review_submitted seq.
func Review(participant string, seq int) string {
	return fmt.Sprintf("\n## 2026-03-02T10:%02d:00Z - %s - seq %d\n\nContext:\n- Read `proposal.md` after event seq %d.\n\nPosition:\n- Workable.\n\nConcerns:\n- None blocking.\n\nRequired Changes:\n- Name the retry budget.\n\nQuestions:\n- None.\n",
		seq, participant, seq, seq-1)
}

// ReadinessResolved is a readiness.md with every question classified and
// nothing checked yet.
func ReadinessResolved(gates []string) string {
	return readiness(gates, false, "- [resolved] The feed format is JSON lines.\n- [deferred_nonblocking] Compression. Reason: not needed at this volume.\n")
}

// ReadinessReady is a readiness.md with every question classified, every
// gate and the whole checklist checked.
func ReadinessReady(gates []string) string {
	return readiness(gates, true, "- [resolved] The feed format is JSON lines.\n- [deferred_nonblocking] Compression. Reason: not needed at this volume.\n")
}

func readiness(gates []string, checked bool, questions string) string {
	box := "[ ]"
	if checked {
		box = "[x]"
	}
	var b strings.Builder
	b.WriteString("# Readiness\n\n## Open Question Classification\n\n" + questions + "\n## Completion Gates\n\n")
	for _, g := range gates {
		b.WriteString("- " + box + " " + g + "\n")
	}
	b.WriteString("\n## Final Design Document Checklist\n\n")
	for _, item := range []string{"Accepted Decisions", "Assumptions", "Deferred Follow-ups", "Implementation Blockers", "Ready to implement"} {
		b.WriteString("- " + box + " " + item + "\n")
	}
	return b.String()
}

// Conclusion is a complete conclusion.md with the given outcome tag.
func Conclusion(outcome string) string {
	return "# Conclusion\n\n## Decision Outcome\n\n- [" + outcome + "] Build the reader against the feed.\n\n" +
		"## Rationale\n\nThe feed is stable and small.\n\n## Accepted Decisions\n\nJSON lines over HTTP.\n\n" +
		"## Implementation Approach\n\nA polling reader with a retry budget.\n\n## Assumptions\n\nOne producer.\n\n" +
		"## Deferred Follow-ups\n\nCompression.\n\n## Implementation Blockers\n\nNone.\n\n## Next Action\n\nThe reader team starts the client.\n"
}

// Presets are the phases a check can start from, in order.
var Presets = []string{"none", "drafting", "reviewing", "revising", "decision_review", "classified", "readiness_check", "readiness_passed", "completed"}

// Preset returns the calls that bring a fresh folder to a phase, each
// expected to succeed, the way the recorded run does: the first participant
// owns the proposal, every other one reviews, everyone accepts.
func Preset(name string, participants, gates []string) ([]engine.Step, error) {
	b, err := newPreset(Presets, "start", name, participants, gates)
	if err != nil {
		return nil, err
	}
	participants, gates, ok, stage := b.participants, b.gates, b.ok, b.stage
	owner, others, everyone := b.owner, b.others, b.everyone
	seq := 1
	if stage("drafting") {
		ok(Init(participants, DefaultObjective, gates, false))
	}
	if stage("reviewing") {
		ok(Append(owner, "proposal_submitted", seq, "proposal.md"))
		seq++
	}
	if stage("revising") {
		replyTo := seq
		for _, r := range others {
			seq++
			ok(Write("review.md", "append", Review(r, seq)))
			ok(Append(r, "review_submitted", replyTo, "review.md"))
		}
	}
	if stage("decision_review") {
		ok(Append(owner, "proposal_revised", seq, "proposal.md"))
		seq++
	}
	if stage("classified") {
		ok(Write("readiness.md", "replace", ReadinessResolved(gates)))
		ok(Append(owner, "question_classified", seq, "readiness.md"))
		seq++
	}
	if stage("readiness_check") {
		for _, p := range everyone {
			ok(Append(p, "decision_accepted", seq, "decisions.md"))
			seq++
		}
	}
	if stage("readiness_passed") {
		ok(Write("readiness.md", "replace", ReadinessReady(gates)))
		ok(Append(owner, "readiness_passed", seq, "readiness.md"))
		seq++
	}
	if stage("completed") {
		ok(Write("conclusion.md", "replace", Conclusion("proceed")))
		ok(Append(owner, "completed", seq, "conclusion.md"))
	}
	return b.out, nil
}

// preset is what both schemas' starts share: the participants in their
// roles and the steps so far, each expected to succeed.
type preset struct {
	phases              []string
	idx                 int
	participants, gates []string
	owner               string
	others, everyone    []string
	out                 []engine.Step
}

func newPreset(phases []string, what, name string, participants, gates []string) (*preset, error) {
	idx := slices.Index(phases, name)
	if idx < 0 {
		return nil, fmt.Errorf("unknown %s %q; use one of %s", what, name, strings.Join(phases, ", "))
	}
	if len(participants) == 0 {
		participants = DefaultParticipants
	}
	if len(gates) == 0 {
		gates = DefaultGates
	}
	others := slices.Clone(participants[1:])
	slices.Sort(others)
	return &preset{phases: phases, idx: idx, participants: participants, gates: gates, owner: participants[0],
		others: others, everyone: slices.Sorted(slices.Values(participants))}, nil
}

// ok adds a step that must succeed.
func (b *preset) ok(s engine.Step) {
	s.Expect = &engine.Expect{Outcome: "ok"}
	s.Text = "start: " + describe(s)
	b.out = append(b.out, s)
}

// stage is whether the start reaches phase n.
func (b *preset) stage(n string) bool { return b.idx >= slices.Index(b.phases, n) }

func describe(s engine.Step) string {
	switch s.Op {
	case engine.OpControl:
		if f, ok := s.Params["file"].(string); ok {
			return "edit " + f
		}
		return s.Name
	case engine.OpAct, engine.OpRead:
		if who, ok := s.Params["participant"].(string); ok {
			if ev, ok := s.Params["event"].(string); ok {
				return who + " " + s.Name + " " + ev
			}
			return who + " " + s.Name
		}
	}
	return s.Name
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// AtOnce marks the steps of a parallel step as made at the same moment.
func AtOnce(ss []engine.Step) []engine.Step {
	out := make([]engine.Step, len(ss))
	for i, s := range ss {
		p := map[string]any{"simultaneous": true}
		for k, v := range s.Params {
			p[k] = v
		}
		s.Params = p
		out[i] = s
	}
	return out
}

// Schema v2 (upstream HEAD): the primary deliverable is declared at init,
// drafted before the proposal and frozen, with its SHA-256, before
// readiness passes. The presets below follow the recorded run with those
// three deliverable events added; the deliverable is the default
// design-spec, at its default place.

// V2 is the schema marker of v2 checks: their tag and every call's schema.
const V2 = "v2"

// DefaultPrimaryType and PrimaryRef are the v2 presets' deliverable.
const (
	DefaultPrimaryType = "design-spec"
	PrimaryRef         = "deliverables/design-spec.md"
)

// DesignSpecSections are the design-spec type's required sections.
var DesignSpecSections = []string{"Problem", "Goals", "Non-goals", "Proposed Design", "Interfaces / Contracts", "Failure Modes", "Validation Plan", "Open Questions"}

// InitV2 is a v2 init call with a primary deliverable of the given type.
func InitV2(participants []string, objective string, gates []string, primaryType string) engine.Step {
	s := Init(participants, objective, gates, false)
	s.Params["primary_type"] = primaryType
	return s
}

// Deliverable is a complete design-spec with the given status.
func Deliverable(status string) string {
	var b strings.Builder
	b.WriteString("# Design Spec\n\nDeliverable type: `design-spec`\nStatus: " + status + "\n\n")
	for _, s := range DesignSpecSections {
		b.WriteString("## " + s + "\n\nThe reader polls the feed; " + strings.ToLower(s) + " as agreed in review.\n\n")
	}
	return b.String()
}

// ReviewV2 is a structured review that also names the deliverable it read
// and the review scope, as v2's validator requires.
func ReviewV2(participant string, seq int) string {
	return Review(participant, seq) + "\nReviewed primary deliverable: `" + PrimaryRef + "`\n\nReview Scope:\n- Proposal coherence\n- Primary deliverable completeness\n"
}

// DecisionsV2 is a decisions.md with one accepted decision reflected in
// the deliverable.
const DecisionsV2 = "# Decisions\n\n### D1. The reader polls the feed\n\n- Decision: the reader polls every minute.\n- Rationale: the feed is small.\n- Reflected in: `" + PrimaryRef + "#proposed-design`\n"

// GatesChecked stands, in a document a check writes, for a checked line
// per completion gate of the folder's protocol.json (GatesOpen: unchecked).
const (
	GatesChecked = "{{gates:checked}}"
	GatesOpen    = "{{gates:open}}"
)

// ReadinessV2 is a readiness.md with every question classified and, when
// ready, every gate of protocol.json and Ready to implement checked.
func ReadinessV2(ready bool) string {
	box, gates := "[ ]", GatesOpen
	if ready {
		box, gates = "[x]", GatesChecked
	}
	return "# Readiness\n\n## Open Question Classification\n\n- [resolved] The feed format is JSON lines.\n" +
		"- [deferred_nonblocking] Compression. Reason: not needed at this volume.\n\n## Gates\n\n" + gates +
		"\n## Deliverable Snapshot\n\n- Primary: `" + PrimaryRef + "`\n\n## Ready to Implement\n\n- " + box + " Ready to implement\n"
}

// ConclusionV2 is a complete v2 conclusion: the nine sections, one
// outcome, and the deliverable's receipt.
func ConclusionV2(outcome string) string {
	return "# Conclusion\n\n## Decision Outcome\n\n- [" + outcome + "] Build the reader against the feed.\n\n" +
		"## Rationale\n\nThe feed is stable and small.\n\n## Deliverable Receipt\n\n- Primary: `" + PrimaryRef + "`\n- Type: `design-spec`\n\n" +
		"## Accepted Decisions Summary\n\n- D1: the reader polls every minute.\n\n## Readiness Result\n\nEvery gate is checked.\n\n" +
		"## Assumptions\n\nOne producer.\n\n## Deferred Follow-ups\n\nCompression.\n\n## Implementation Blockers\n\nNone.\n\n" +
		"## Next Action\n\nThe reader team starts the client.\n"
}

// PresetsV2 are the phases a v2 check can start from, in order.
var PresetsV2 = []string{"none", "drafting", "drafted", "reviewing", "revising", "decision_review", "classified", "readiness_check", "frozen", "readiness_passed", "completed"}

// Deliver is a v2 deliverable event on the primary deliverable; a freeze
// records the file's hash as it is when the call is made.
func Deliver(from, event string, replyTo int) engine.Step {
	s := Append(from, event, replyTo, PrimaryRef)
	s.Params["role"] = "primary"
	if event == "deliverable_frozen" {
		s.Params["sha256"] = "$sha256:" + PrimaryRef
	}
	return s
}

// PresetV2 brings a fresh folder to a v2 phase the recorded way: the owner
// drafts the deliverable and proposes, every other participant reviews,
// the owner revises and classifies, everyone accepts, the owner freezes
// the deliverable, passes readiness and completes.
func PresetV2(name string, participants, gates []string) ([]engine.Step, error) {
	b, err := newPreset(PresetsV2, "v2 start", name, participants, gates)
	if err != nil {
		return nil, err
	}
	participants, gates, ok, stage := b.participants, b.gates, b.ok, b.stage
	owner, others, everyone := b.owner, b.others, b.everyone
	seq := 1
	if stage("drafting") {
		ok(InitV2(participants, DefaultObjective, gates, DefaultPrimaryType))
	}
	if stage("drafted") {
		ok(Write(PrimaryRef, "replace", Deliverable("In Review")))
		ok(Deliver(owner, "deliverable_drafted", seq))
		seq++
	}
	if stage("reviewing") {
		ok(Append(owner, "proposal_submitted", seq, "proposal.md"))
		seq++
	}
	if stage("revising") {
		replyTo := seq
		for _, r := range others {
			seq++
			ok(Write("review.md", "append", ReviewV2(r, seq)))
			ok(Append(r, "review_submitted", replyTo, "review.md"))
		}
	}
	if stage("decision_review") {
		ok(Append(owner, "proposal_revised", seq, "proposal.md"))
		seq++
	}
	if stage("classified") {
		ok(Write("readiness.md", "replace", ReadinessV2(false)))
		ok(Write("decisions.md", "replace", DecisionsV2))
		ok(Append(owner, "question_classified", seq, "readiness.md"))
		seq++
	}
	if stage("readiness_check") {
		for _, p := range everyone {
			ok(Append(p, "decision_accepted", seq, "decisions.md"))
			seq++
		}
	}
	if stage("frozen") {
		ok(Write(PrimaryRef, "replace", Deliverable("Frozen")))
		ok(Deliver(owner, "deliverable_frozen", seq))
		seq++
	}
	if stage("readiness_passed") {
		ok(Write("readiness.md", "replace", ReadinessV2(true)))
		ok(Append(owner, "readiness_passed", seq, "readiness.md"))
		seq++
	}
	if stage("completed") {
		ok(Write("conclusion.md", "replace", ConclusionV2("proceed")))
		ok(Append(owner, "completed", seq, "conclusion.md"))
	}
	return b.out, nil
}

// WithSchema marks every tool call of a step (and of its parallel
// sub-steps) as speaking a schema.
func WithSchema(s engine.Step, schema string) engine.Step {
	if s.Op == engine.OpAct || s.Op == engine.OpRead {
		p := map[string]any{"schema": schema}
		for k, v := range s.Params {
			p[k] = v
		}
		s.Params = p
	}
	for i := range s.Steps {
		s.Steps[i] = WithSchema(s.Steps[i], schema)
	}
	return s
}
