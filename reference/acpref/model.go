package acpref

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
)

// Schema is an ACP schema version: v1 (the seed, upstream c12ba73) or v2
// (upstream's "ACP schema v2": a declared, frozen deliverable).
type Schema string

// The schemas the tools speak.
const (
	SchemaV1 Schema = "v1"
	SchemaV2 Schema = "v2"
)

// Schemas lists them.
var Schemas = []Schema{SchemaV1, SchemaV2}

// ParseSchema reads "v1"/"1" or "v2"/"2".
func ParseSchema(s string) (Schema, bool) {
	switch s {
	case "v1", "1":
		return SchemaV1, true
	case "v2", "2":
		return SchemaV2, true
	}
	return "", false
}

// The seven protocol files, in the order the validator reports them.
var ProtocolFiles = []string{"protocol.json", "events.jsonl", "proposal.md", "review.md", "decisions.md", "readiness.md", "conclusion.md"}

// ObsoleteFiles must not exist in a collaboration folder.
var ObsoleteFiles = []string{"state.log", "discussion.md", "opinions.md"}

// Phases of a collaboration.
const (
	PhaseDrafting       = "drafting"
	PhaseReviewing      = "reviewing"
	PhaseRevising       = "revising"
	PhaseDecisionReview = "decision_review"
	PhaseReadinessCheck = "readiness_check"
	PhaseCompleted      = "completed"
	PhaseBlocked        = "blocked"
)

// Phases lists every phase, sorted.
var Phases = []string{PhaseBlocked, PhaseCompleted, PhaseDecisionReview, PhaseDrafting, PhaseReadinessCheck, PhaseReviewing, PhaseRevising}

// Events v1 allows, in the seed's order.
var Events = []string{"initialized", "proposal_submitted", "review_submitted", "proposal_revised",
	"question_classified", "decision_proposed", "decision_accepted", "readiness_passed", "completed", "blocked"}

// DeliverableEvents are the events v2 adds: they record the primary (or a
// supporting) deliverable's lifecycle and need doc and role.
var DeliverableEvents = []string{"deliverable_drafted", "deliverable_revised", "deliverable_frozen"}

// EventsOf lists the events a schema allows.
func EventsOf(s Schema) []string {
	if s == SchemaV2 {
		return append([]string{"initialized"}, append(slices.Clone(DeliverableEvents), Events[1:]...)...)
	}
	return Events
}

// Protocol is protocol.json as read: every field is kept so a rewrite
// preserves what it does not own.
type Protocol map[string]any

// Participants returns the participant IDs, accepting {"id": …} objects and
// plain strings.
func (p Protocol) Participants() []string {
	list, _ := p["participants"].([]any)
	var out []string
	for _, item := range list {
		switch v := item.(type) {
		case string:
			out = append(out, v)
		case map[string]any:
			if id, ok := v["id"].(string); ok {
				out = append(out, id)
			}
		}
	}
	return out
}

// Gates returns the completion gates' texts: strings in v1, the text of
// {source, text} objects (or strings) in v2.
func (p Protocol) Gates() []string {
	list, _ := p["completionGates"].([]any)
	var out []string
	for _, item := range list {
		switch g := item.(type) {
		case string:
			out = append(out, g)
		case map[string]any:
			if s, ok := g["text"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// Str returns a string field, or "" when absent or not a string.
func (p Protocol) Str(key string) string {
	s, _ := p[key].(string)
	return s
}

// Waiting returns waitingFor as strings.
func (p Protocol) Waiting() []string {
	list, _ := p["waitingFor"].([]any)
	out := []string{}
	for _, item := range list {
		out = append(out, PyStr(item))
	}
	return out
}

// SchemaOf is the schema a protocol.json speaks: v2 when it carries a
// schemaVersion other than 1, v1 otherwise (v1 has no such field).
func (p Protocol) SchemaOf() Schema {
	v, ok := p["schemaVersion"]
	if !ok || pyEq(v, 1) {
		return SchemaV1
	}
	return SchemaV2
}

// Encode renders protocol.json as the upstream tools write it: sorted keys,
// two-space indent, non-ASCII kept, trailing newline; U+0085, U+2028 and
// U+2029 are escaped so no line-splitting reader is confused.
func (p Protocol) Encode() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(map[string]any(p))
	return escapeSeparators(buf.Bytes())
}

// Event is one line of events.jsonl.
type Event struct {
	Line   int            // 1-based line number in the file
	Fields map[string]any // as decoded, numbers as json.Number
}

// Str returns a string field.
func (e Event) Str(key string) string {
	s, _ := e.Fields[key].(string)
	return s
}

// Seq returns the seq when it is a JSON integer literal.
func (e Event) Seq() (int, bool) { return jsonInt(e.Fields["seq"]) }

// PySeq returns the seq when Python takes it for an int (a boolean too).
func (e Event) PySeq() (int, bool) { return pyInt(e.Fields["seq"]) }

// SeqLabel is the seq as the upstream tools print it.
func (e Event) SeqLabel() string { return PyStr(e.Fields["seq"]) }

// jsonInt reads a JSON integer literal (not a boolean, not 1.0).
func jsonInt(v any) (int, bool) {
	if _, ok := v.(bool); ok {
		return 0, false
	}
	return pyInt(v)
}

// NewEvent is an event about to be appended.
type NewEvent struct {
	Seq                           int
	From, Event, At, Summary, Doc string
	ReplyTo                       *int
	Role, SHA256                  string // v2 deliverable events
}

// encode writes an event line as the upstream tools do: compact, keys in
// the order seq, from, event, at, summary, doc, reply_to (then v2's role
// and sha256), empty doc, role and sha256 left out; line separators inside
// strings are escaped.
func (n NewEvent) encode() []byte {
	var b bytes.Buffer
	b.WriteString(`{"seq":` + strconv.Itoa(n.Seq))
	field := func(k, v string) {
		b.WriteString(`,"` + k + `":`)
		b.Write(jsonString(v))
	}
	field("from", n.From)
	field("event", n.Event)
	field("at", n.At)
	field("summary", n.Summary)
	if n.Doc != "" {
		field("doc", n.Doc)
	}
	if n.ReplyTo != nil {
		b.WriteString(`,"reply_to":` + strconv.Itoa(*n.ReplyTo))
	}
	if n.Role != "" {
		field("role", n.Role)
	}
	if n.SHA256 != "" {
		field("sha256", n.SHA256)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return escapeSeparators(bytes.TrimRight(buf.Bytes(), "\n"))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
