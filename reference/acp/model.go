package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

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

// Gates returns the completion gates that are strings.
func (p Protocol) Gates() []string {
	list, _ := p["completionGates"].([]any)
	var out []string
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
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
		out = append(out, fmt.Sprint(item))
	}
	return out
}

// Encode renders protocol.json as the upstream tools write it: sorted keys,
// two-space indent, non-ASCII kept, trailing newline.
func (p Protocol) Encode() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(map[string]any(p))
	return buf.Bytes()
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

// Seq returns the seq as an int when it is a JSON integer.
func (e Event) Seq() (int, bool) { return asInt(e.Fields["seq"], false) }

// ReplyTo returns reply_to as an int when it is a JSON integer.
func (e Event) ReplyTo() (int, bool) { return asInt(e.Fields["reply_to"], false) }

// SeqLabel is the seq as the upstream tools print it.
func (e Event) SeqLabel() string { return PyStr(e.Fields["seq"]) }

// asInt reads a JSON integer; lenient also takes what Python compares equal
// to an int (true, 1.0).
func asInt(v any, lenient bool) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		if i, err := strconv.Atoi(string(n)); err == nil {
			return i, true
		}
		if lenient {
			if f, err := n.Float64(); err == nil && f == float64(int(f)) {
				return int(f), true
			}
		}
	case bool:
		if lenient {
			if n {
				return 1, true
			}
			return 0, true
		}
	}
	return 0, false
}

// encodeEvent writes an event line as the upstream tools do: compact, keys
// in the order seq, from, event, at, summary, doc, reply_to.
func encodeEvent(seq int, from, event, at, summary, doc string, replyTo *int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"seq":` + strconv.Itoa(seq))
	for _, kv := range [][2]string{{"from", from}, {"event", event}, {"at", at}, {"summary", summary}, {"doc", doc}} {
		if kv[0] == "doc" && doc == "" {
			continue
		}
		b.WriteString(`,"` + kv[0] + `":`)
		b.Write(jsonString(kv[1]))
	}
	if replyTo != nil {
		b.WriteString(`,"reply_to":` + strconv.Itoa(*replyTo))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// PyStr renders a decoded JSON value the way Python's str() prints it.
func PyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case json.Number:
		return string(x)
	}
	return PyRepr(v)
}

// PyRepr renders a value the way Python's repr() prints it.
func PyRepr(v any) string {
	switch x := v.(type) {
	case string:
		return pyQuote(x)
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = pyQuote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []any:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = PyRepr(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, pyQuote(k)+": "+PyRepr(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return PyStr(v)
}

func pyQuote(s string) string {
	q := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = `"`
	}
	var b strings.Builder
	b.WriteString(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case string(r) == q:
			b.WriteString(`\` + q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(q)
	return b.String()
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
