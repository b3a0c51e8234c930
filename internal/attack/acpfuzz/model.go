package acpfuzz

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/steps/acpsteps"
	"github.com/sifu-dev/sifu/suite/acp"
)

// outsider is a name protocol.json never lists.
const outsider = "mallory"

// events are the ten v1 event names, and one that is not.
var events = []string{"proposal_submitted", "review_submitted", "proposal_revised", "decision_proposed",
	"question_classified", "decision_accepted", "readiness_passed", "completed", "blocked", "initialized", "comment_added"}

var docs = []string{"proposal.md", "review.md", "decisions.md", "readiness.md", "conclusion.md", "protocol.json"}

// model follows the collaboration through the oracle's answers and draws
// the next calls. Draws favour what moves the collaboration on: the
// expected event from the participant whose turn it is, with the document
// it needs; about one draw in six departs from that.
type model struct {
	t            *rapid.T
	run          func(engine.Step) engine.Outcome
	participants []string
	gates        []string
	index        int // steps run so far: the executor's clock is Epoch + index minutes

	phase           string
	owner           string
	waiting         []string
	lastSeq         int
	classified      bool
	readinessPassed bool
	protocol        map[string]any
}

func newModel(t *rapid.T) *model {
	return &model{t: t, gates: acpsteps.DefaultGates}
}

// rare is fuzz.Rare.
var rare = fuzz.Rare

func (m *model) do(s engine.Step) engine.Outcome {
	m.index++
	out := m.run(s)
	r, _ := out.Result.(map[string]any)
	if ph, ok := r["phase"].(string); ok {
		m.phase = ph
	}
	if o, ok := r["owner"].(string); ok {
		m.owner = o
	}
	if w, ok := r["waitingFor"].([]any); ok {
		m.waiting = m.waiting[:0]
		for _, x := range w {
			if s, ok := x.(string); ok {
				m.waiting = append(m.waiting, s)
			}
		}
	}
	if n, ok := r["last_seq"].(float64); ok {
		m.lastSeq = int(n)
	}
	if p, ok := r["protocol"].(map[string]any); ok {
		m.protocol = p
	}
	if s.Name == "append" && out.OK {
		switch s.Params["event"] {
		case "question_classified":
			m.classified = true
		case "proposal_revised", "decision_proposed":
			m.classified = false
		case "readiness_passed":
			m.readinessPassed = true
		}
	}
	return out
}

func (m *model) start() {
	m.participants = []string{"server", "reader"}
	if rapid.IntRange(0, 2).Draw(m.t, "three-participants") > 0 {
		m.participants = append(m.participants, "critic")
	}
	m.do(acpsteps.Init(m.participants, acpsteps.DefaultObjective, m.gates, false))
}

func (m *model) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"progress":  func(t *rapid.T) { m.progress(t) },
		"progress2": func(t *rapid.T) { m.progress(t) },
		// a flow makes several expected moves at once, to reach the late
		// phases in short cases
		"flow": func(t *rapid.T) {
			for range rapid.IntRange(1, 8).Draw(t, "moves") {
				m.progress(t)
			}
		},
		"append": func(t *rapid.T) { m.anyAppend(t) },
		"ask":    func(t *rapid.T) { m.ask(t) },
		"edit":   func(t *rapid.T) { m.edit(t) },
		"reinit": func(t *rapid.T) { m.reinit(t) },
	}
}

func (m *model) someone(t *rapid.T, label string) string {
	if rare(t, label+"-outsider", 8) {
		return outsider
	}
	return rapid.SampledFrom(m.participants).Draw(t, label)
}

func (m *model) turn(t *rapid.T, label string) string {
	if len(m.waiting) > 0 && !rare(t, label+"-other", 5) {
		return rapid.SampledFrom(m.waiting).Draw(t, label)
	}
	return m.someone(t, label)
}

func (m *model) appendStep(from, event string, replyTo int, doc string) engine.Step {
	return acpsteps.Append(from, event, replyTo, doc)
}

// replyTo draws the seq an event replies to: usually the latest; at times
// none, one that does not exist, or the event's own.
func (m *model) replyTo(t *rapid.T) int {
	switch rapid.IntRange(0, 9).Draw(t, "reply-to") {
	case 7:
		return 0
	case 8:
		return m.lastSeq + 1 + rapid.IntRange(0, 40).Draw(t, "dangling")
	case 9:
		if m.lastSeq > 1 {
			return rapid.IntRange(1, m.lastSeq).Draw(t, "earlier")
		}
	}
	return m.lastSeq
}

// progress makes the move the protocol expects next, documents first.
func (m *model) progress(t *rapid.T) {
	owner := m.owner
	if owner == "" {
		owner = m.participants[0]
	}
	switch m.phase {
	case "drafting":
		m.emit(t, m.turn(t, "proposer"), "proposal_submitted", "proposal.md")
	case "reviewing":
		who := m.turn(t, "reviewer")
		if !rare(t, "skip-review-heading", 6) {
			seq := m.lastSeq + 1
			if rare(t, "wrong-heading-seq", 6) {
				seq++
			}
			m.do(acpsteps.Write("review.md", "append", acpsteps.Review(who, seq)))
		}
		m.emit(t, who, "review_submitted", "review.md")
	case "revising":
		ev := rapid.SampledFrom([]string{"proposal_revised", "decision_proposed", "proposal_submitted"}).Draw(t, "revision")
		doc := map[string]string{"proposal_revised": "proposal.md", "decision_proposed": "decisions.md", "proposal_submitted": "proposal.md"}[ev]
		m.emit(t, m.turn(t, "reviser"), ev, doc)
	case "decision_review":
		if !m.classified {
			m.writeReadiness(t, false)
			m.emit(t, m.turn(t, "classifier"), "question_classified", "readiness.md")
			return
		}
		if rare(t, "decide-again", 8) {
			m.emit(t, m.turn(t, "decider"), "decision_proposed", "decisions.md")
			return
		}
		m.emit(t, m.turn(t, "acceptor"), "decision_accepted", "decisions.md")
	case "readiness_check":
		if !m.readinessPassed || rare(t, "pass-again", 8) {
			m.writeReadiness(t, true)
			m.emit(t, m.turn(t, "passer"), "readiness_passed", "readiness.md")
			return
		}
		if !rare(t, "skip-conclusion", 5) {
			outcome := rapid.SampledFrom([]string{"proceed", "do_not_proceed", "defer"}).Draw(t, "outcome")
			text := acpsteps.Conclusion(outcome)
			if rare(t, "conclusion-gap", 4) {
				text = strings.Replace(text, "## Rationale", "## Reasons", 1)
			}
			m.do(acpsteps.Write("conclusion.md", "replace", text))
		}
		doc := "conclusion.md"
		if rare(t, "completion-doc", 6) {
			doc = rapid.SampledFrom(docs).Draw(t, "other-doc")
		}
		m.emit(t, m.turn(t, "completer"), "completed", doc)
	default: // completed, blocked, or no folder
		if rare(t, "block", 2) {
			m.emit(t, m.someone(t, "blocker"), "blocked", "")
			return
		}
		m.do(m.maybeCompat(t, acpsteps.Validate()))
	}
}

// emit appends an event by hand-writing its line (rarely: a participant
// editing the log), or with the tool.
func (m *model) emit(t *rapid.T, from, event, doc string) {
	if rare(t, "by-hand", 12) {
		m.handLine(t, from, event, doc)
		return
	}
	m.do(m.appendStep(from, event, m.replyTo(t), doc))
}

// handLine writes an event line the way a person might: spaced JSON, with
// the seq and time drawn to be right or subtly wrong.
func (m *model) handLine(t *rapid.T, from, event, doc string) {
	seq := m.lastSeq + 1
	at := acp.Epoch.Add(time.Duration(m.index+1) * time.Minute)
	switch rapid.IntRange(0, 3).Draw(t, "hand-flaw") {
	case 1:
		seq += 1 + rapid.IntRange(0, 3).Draw(t, "gap")
	case 2:
		at = acp.Epoch.Add(-time.Hour)
	case 3:
		seq = m.lastSeq // a repeated seq
	}
	line := fmt.Sprintf(`{"seq": %d, "from": %q, "event": %q, "at": %q, "summary": "by hand"`, seq, from, event, at.UTC().Format("2006-01-02T15:04:05Z"))
	if doc != "" {
		line += fmt.Sprintf(`, "doc": %q`, doc)
	}
	line += fmt.Sprintf(`, "reply_to": %d}`+"\n", m.lastSeq)
	m.do(acpsteps.Write("events.jsonl", "append", line))
}

// writeReadiness edits readiness.md: classified, ready, or one of the
// flaws the gates look for.
func (m *model) writeReadiness(t *rapid.T, ready bool) {
	if rare(t, "skip-readiness", 6) {
		return
	}
	text := acpsteps.ReadinessResolved(m.gates)
	if ready {
		text = acpsteps.ReadinessReady(m.gates)
	}
	switch rapid.IntRange(0, 12).Draw(t, "readiness-flaw") {
	case 8:
		text = strings.Replace(text, "- [resolved]", "- [blocking]", 1)
	case 9:
		text = strings.Replace(text, "- [resolved]", "- [unresolved]", 1)
	case 10:
		text = strings.Replace(text, " Reason: not needed at this volume.", "", 1)
	case 11:
		text = acpsteps.ReadinessResolved(m.gates) // nothing ticked
	case 12:
		text = strings.Replace(text, "- [x] "+m.gates[rapid.IntRange(0, len(m.gates)-1).Draw(t, "open-gate")], "- [ ] gate", 1)
	}
	m.do(acpsteps.Write("readiness.md", "replace", text))
}

// anyAppend appends any event, from anyone, replying to anything.
func (m *model) anyAppend(t *rapid.T) {
	ev := rapid.SampledFrom(events).Draw(t, "event")
	doc := ""
	if !rare(t, "no-doc", 3) {
		doc = rapid.SampledFrom(docs).Draw(t, "doc")
	}
	m.do(m.appendStep(m.someone(t, "from"), ev, m.replyTo(t), doc))
}

func (m *model) maybeCompat(t *rapid.T, s engine.Step) engine.Step {
	if rare(t, "compat", 5) {
		return acpsteps.Compat(s)
	}
	return s
}

// ask runs next, wait or validate.
func (m *model) ask(t *rapid.T) {
	switch rapid.IntRange(0, 2).Draw(t, "ask") {
	case 0:
		m.do(m.maybeCompat(t, acpsteps.Next(m.someone(t, "asker"))))
	case 1:
		m.do(acpsteps.Wait(m.someone(t, "waiter"), 0.05))
	case 2:
		m.do(m.maybeCompat(t, acpsteps.Validate()))
	}
}

// edit changes the folder behind the tools' back: stale files, a drifted
// protocol.json, a torn line, a deferred item without a reason.
func (m *model) edit(t *rapid.T) {
	switch rapid.IntRange(0, 4).Draw(t, "edit") {
	case 0:
		m.do(acpsteps.Write("readiness.md", "replace", strings.Replace(acpsteps.ReadinessResolved(m.gates), " Reason: not needed at this volume.", "", 1)))
	case 1:
		m.do(acpsteps.Write(rapid.SampledFrom([]string{"state.log", "discussion.md", "opinions.md"}).Draw(t, "stale"), "append", "notes\n"))
	case 2:
		if m.protocol == nil {
			return
		}
		p := map[string]any{}
		for k, v := range m.protocol {
			p[k] = v
		}
		switch rapid.IntRange(0, 2).Draw(t, "drift") {
		case 0:
			p["currentPhase"] = rapid.SampledFrom([]string{"drafting", "reviewing", "completed", "revising"}).Draw(t, "drift-phase")
		case 1:
			p["proposalOwner"] = rapid.SampledFrom(m.participants).Draw(t, "drift-owner")
		case 2:
			p["waitingFor"] = []any{rapid.SampledFrom(m.participants).Draw(t, "drift-waiting")}
		}
		raw, _ := json.MarshalIndent(p, "", "  ")
		m.do(acpsteps.Write("protocol.json", "replace", string(raw)+"\n"))
	case 3:
		m.do(acpsteps.Write("events.jsonl", "append", `{"seq": `))
	case 4:
		m.do(acpsteps.Write("review.md", "append", acpsteps.Review(m.someone(t, "reviewer"), m.lastSeq)))
	}
}

// reinit initialises the folder again, with or without --resume.
func (m *model) reinit(t *rapid.T) {
	m.do(acpsteps.Init(m.participants, acpsteps.DefaultObjective, m.gates, rapid.Bool().Draw(t, "resume")))
}
