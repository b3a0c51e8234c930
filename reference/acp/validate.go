package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Finding is one validator message, located where it can be.
type Finding struct {
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Seq     string `json:"seq,omitempty"`
	// Rule names the sifu rule a strict-mode finding touches; empty for the
	// upstream checks.
	Rule string `json:"rule,omitempty"`
}

// Report is the validator's verdict.
type Report struct {
	Folder   string    `json:"folder"`
	Errors   []Finding `json:"errors"`
	Warnings []Finding `json:"warnings"`
}

// Exit is the validator's exit code: 0 valid, 1 warnings, 2 invalid.
func (r Report) Exit() int {
	switch {
	case len(r.Errors) > 0:
		return 2
	case len(r.Warnings) > 0:
		return 1
	}
	return 0
}

// Text renders the report as the upstream validator prints it.
func (r Report) Text() string {
	var b strings.Builder
	switch r.Exit() {
	case 0:
		b.WriteString("ACP validation passed\n")
	case 1:
		b.WriteString("ACP validation passed with warnings\n")
	default:
		b.WriteString("ACP validation failed\n")
	}
	for _, f := range r.Errors {
		b.WriteString("ERROR: " + f.text() + "\n")
	}
	for _, f := range r.Warnings {
		b.WriteString("WARNING: " + f.text() + "\n")
	}
	return b.String()
}

func (f Finding) text() string {
	if f.Rule != "" {
		return f.Message + " [" + f.Rule + "]"
	}
	return f.Message
}

// JSON renders the report with locations, for tools.
func (r Report) JSON() []byte {
	out := struct {
		Report
		Exit   int    `json:"exit"`
		Status string `json:"status"`
	}{Report: r, Exit: r.Exit(), Status: []string{"valid", "warnings", "invalid"}[r.Exit()]}
	if out.Errors == nil {
		out.Errors = []Finding{}
	}
	if out.Warnings == nil {
		out.Warnings = []Finding{}
	}
	raw, _ := json.MarshalIndent(out, "", "  ")
	return append(raw, '\n')
}

type validation struct {
	t *Tools
	r *Report
}

func (v validation) err(f Finding)  { v.r.Errors = append(v.r.Errors, f) }
func (v validation) warn(f Finding) { v.r.Warnings = append(v.r.Warnings, f) }

// Validate checks a collaboration folder: the files, protocol.json, every
// event, the review headings, the replayed phases and ownership, the
// readiness gates and the conclusion, in the upstream order. It never
// modifies the folder.
func (t *Tools) Validate(folder string) Report {
	r := &Report{Folder: folder}
	v := validation{t: t, r: r}
	for _, name := range ProtocolFiles {
		if _, err := os.Stat(filepath.Join(folder, name)); err != nil {
			v.err(Finding{Message: "missing " + name, File: name})
		}
	}
	if !t.faults[FaultStaleFilesIgnored] {
		for _, name := range ObsoleteFiles {
			if _, err := os.Stat(filepath.Join(folder, name)); err == nil {
				v.err(Finding{Message: name + " is not part of the protocol; remove it and use events.jsonl/readiness.md instead", File: name})
			}
		}
	}
	proto, err := ReadProtocol(folder)
	if err != nil {
		r.Errors = append([]Finding{{Message: err.Error(), File: "protocol.json"}}, r.Errors...)
		return *r
	}
	pf := func(msg string) { v.err(Finding{Message: msg, File: "protocol.json"}) }
	if phase, ok := proto["currentPhase"].(string); !ok || !slices.Contains(Phases, phase) {
		pf("currentPhase must be one of " + PyRepr(Phases))
	}
	if !truthy(proto["objective"]) {
		pf("protocol.json objective must not be blank")
	}
	if len(proto.Participants()) == 0 {
		pf("protocol.json participants must not be empty")
	}
	if !truthy(proto["completionGates"]) {
		pf("protocol.json completionGates must not be empty")
	}
	if _, ok := proto["version"]; ok {
		pf("protocol.json must not include a protocol version field")
	}
	for _, g := range proto.Gates() {
		for _, name := range ObsoleteFiles {
			if strings.Contains(g, name) {
				pf("completion gate must not reference obsolete file " + name)
			}
		}
	}
	if _, ok := proto["waitingFor"]; !ok {
		pf("protocol.json waitingFor must be present")
	}
	if _, ok := proto["proposalOwner"]; !ok {
		pf("protocol.json proposalOwner must be present")
	}
	events, _, err := ReadEvents(folder)
	if errors.Is(err, fs.ErrNotExist) {
		return *r // reported as a missing file
	}
	if err != nil {
		var line int
		fmt.Sscanf(err.Error(), "events.jsonl line %d:", &line)
		v.err(Finding{Message: err.Error(), File: "events.jsonl", Line: line})
		return *r
	}
	v.events(proto, events)
	return *r
}

// truthy is Python's truth value of a decoded JSON value.
func truthy(x any) bool {
	switch y := x.(type) {
	case nil:
		return false
	case bool:
		return y
	case string:
		return y != ""
	case []any:
		return len(y) > 0
	case map[string]any:
		return len(y) > 0
	case json.Number:
		f, _ := y.Float64()
		return f != 0
	case float64:
		return y != 0
	}
	return true
}

func (v validation) events(proto Protocol, events []Event) {
	t := v.t
	participants := proto.Participants()
	ef := func(e Event, msg string) {
		v.err(Finding{Message: msg, File: "events.jsonl", Line: e.Line, Seq: e.SeqLabel()})
	}
	seen := map[int]bool{}
	var prev *Timestamp
	var strictWarnings []Finding
	for i, e := range events {
		want := i + 1
		seq := e.SeqLabel()
		n, isInt := asInt(e.Fields["seq"], true)
		if (!isInt || n != want) && !t.faults[FaultSeqGapMissed] {
			ef(e, fmt.Sprintf("events.jsonl: expected seq %d, found %s", want, seq))
		} else if _, strictInt := e.Seq(); !strictInt && !t.Compat {
			v.err(Finding{Message: fmt.Sprintf("seq %s: seq must be a JSON integer", seq), File: "events.jsonl", Line: e.Line, Seq: seq, Rule: "ACP-STRICT-SEQ-INT"})
		}
		for _, f := range []string{"seq", "from", "event", "at", "summary"} {
			if _, ok := e.Fields[f]; !ok {
				ef(e, fmt.Sprintf("seq %s: missing required field %s", seq, f))
			}
		}
		ev, hasEvent := e.Fields["event"]
		if s, ok := ev.(string); hasEvent && (!ok || !slices.Contains(Events, s)) {
			ef(e, fmt.Sprintf("seq %s: unknown event %s", seq, PyRepr(ev)))
		}
		if isInt {
			seen[n] = true
		}
		if ev != "initialized" {
			rt, has := e.Fields["reply_to"]
			if !has {
				ef(e, fmt.Sprintf("seq %s: reply_to is required after initialized", seq))
			} else if rn, ok := replyInt(rt); !ok || !seen[rn] {
				ef(e, fmt.Sprintf("seq %s: reply_to must point to an earlier event", seq))
			} else if isInt && rn >= n && !t.Compat {
				v.err(Finding{Message: fmt.Sprintf("seq %s: reply_to must point to an earlier event, not to itself", seq), File: "events.jsonl", Line: e.Line, Seq: seq, Rule: "ACP-STRICT-REPLY-SELF"})
			}
		}
		at, _ := e.Fields["at"].(string)
		ts, ok := ParseTimestamp(at)
		if _, has := e.Fields["at"]; has {
			if !ok || !ts.Aware {
				ef(e, fmt.Sprintf("seq %s: at must be an ISO-8601 timestamp", seq))
			} else {
				if prev != nil && ts.Time.Before(prev.Time) && !t.faults[FaultTimeRegressionMissed] {
					ef(e, fmt.Sprintf("seq %s: at must not be earlier than the previous event", seq))
				}
				if !ts.UTC() && !t.Compat {
					strictWarnings = append(strictWarnings, Finding{Message: fmt.Sprintf("seq %s: at %s is not UTC; write timestamps with Z", seq, at), File: "events.jsonl", Line: e.Line, Seq: seq, Rule: "ACP-STRICT-UTC"})
				}
				p := ts
				prev = &p
			}
		}
		if e.Str("event") == "blocked" && !t.Compat && !slices.Contains(participants, e.Str("from")) {
			v.err(Finding{Message: fmt.Sprintf("seq %s: participant %s is not listed in protocol.json", seq, PyRepr(PyStr(e.Fields["from"]))), File: "events.jsonl", Line: e.Line, Seq: seq, Rule: "ACP-STRICT-BLOCKED-FROM"})
		}
	}
	reviewText := readText(v.r.Folder, "review.md")
	if !t.faults[FaultReviewHeadingUnchecked] {
		v.reviews(events, reviewText)
	}
	rd := ScanReadiness(readText(v.r.Folder, "readiness.md"))
	state, errs := t.derive(participants, events, rd)
	for _, msg := range errs {
		f := Finding{Message: msg, File: "events.jsonl"}
		for _, e := range events {
			if strings.HasPrefix(msg, "seq "+e.SeqLabel()+":") {
				f.Line, f.Seq = e.Line, e.SeqLabel()
				break
			}
		}
		if strings.Contains(msg, "blocked is not allowed from phase completed") {
			f.Rule = "ACP-STRICT-BLOCKED-AFTER-COMPLETED"
		}
		v.err(f)
	}
	if state.Phase != "" && !t.faults[FaultProtocolDriftIgnored] {
		if got := PyStr(proto["currentPhase"]); got != state.Phase {
			v.err(Finding{Message: fmt.Sprintf("protocol.json currentPhase is %s, expected %s", got, state.Phase), File: "protocol.json"})
		}
	}
	if !t.faults[FaultProtocolDriftIgnored] {
		if state.Owner != "" && proto["proposalOwner"] != state.Owner {
			v.err(Finding{Message: fmt.Sprintf("protocol.json proposalOwner is %s, expected %s", PyRepr(proto["proposalOwner"]), PyRepr(state.Owner)), File: "protocol.json"})
		}
		got, _ := proto["waitingFor"].([]any)
		gotS := make([]string, 0, len(got))
		exact := proto["waitingFor"] != nil
		for _, g := range got {
			s, ok := g.(string)
			exact = exact && ok
			gotS = append(gotS, s)
		}
		if !exact || !slices.Equal(gotS, state.Waiting) {
			v.err(Finding{Message: fmt.Sprintf("protocol.json waitingFor is %s, expected %s", PyRepr(proto["waitingFor"]), PyRepr(state.Waiting)), File: "protocol.json"})
		}
	}
	has := map[string]bool{}
	for _, e := range events {
		has[e.Str("event")] = true
	}
	rf := func(msg string) { v.err(Finding{Message: msg, File: "readiness.md"}) }
	if !t.faults[FaultSkipReadinessGate] {
		if has["decision_accepted"] {
			if rd.Blocking {
				rf("blocking readiness items must be cleared before decision_accepted")
			}
			if rd.Unresolved {
				rf("unresolved readiness questions must be classified before decision_accepted")
			}
			if rd.MissingReason {
				rf("deferred_nonblocking readiness items require a reason before decision_accepted")
			}
		}
		if has["readiness_passed"] || has["completed"] {
			if rd.Blocking {
				rf("blocking readiness items must be cleared before readiness_passed or completed")
			}
			if rd.Unresolved {
				rf("unresolved readiness questions must be classified before readiness_passed or completed")
			}
			if rd.MissingReason {
				rf("deferred_nonblocking readiness items require a reason")
			}
		}
	}
	if (has["readiness_passed"] || has["completed"]) && !rd.ReadyChecked && !t.faults[FaultNoReadyToImplement] {
		rf("readiness.md must check 'Ready to implement' before readiness_passed or completed")
	}
	if has["completed"] {
		if open := rd.UncheckedGates(proto.Gates()); len(open) > 0 && !t.faults[FaultUncheckedGates] {
			rf("completion gates must be checked before completed: " + strings.Join(open, ", "))
		}
		if !t.faults[FaultIncompleteConclusion] {
			for _, msg := range ConclusionErrors(readText(v.r.Folder, "conclusion.md")) {
				v.err(Finding{Message: msg, File: "conclusion.md"})
			}
		}
	}
	if !has["completed"] && rd.MissingReason && !t.faults[FaultNoWarnings] {
		v.warn(Finding{Message: "deferred_nonblocking readiness items should include a reason", File: "readiness.md"})
	}
	if t.Compat || t.faults[FaultNoWarnings] {
		return
	}
	for _, f := range strictWarnings {
		v.warn(f)
	}
	v.strictDocuments(reviewText, rd)
}

// reviews links review_submitted events and review.md headings.
func (v validation) reviews(events []Event, text string) {
	headings := map[int]ReviewHeading{}
	var order []int
	for _, h := range ReviewHeadings(text) {
		if _, dup := headings[h.Seq]; !dup {
			order = append(order, h.Seq)
		}
		headings[h.Seq] = h // a later duplicate wins, as upstream
	}
	bySeq := map[int]Event{}
	for _, e := range events {
		if n, ok := asInt(e.Fields["seq"], true); ok {
			bySeq[n] = e
		}
	}
	for _, e := range events {
		n, ok := asInt(e.Fields["seq"], true)
		if e.Str("event") == "review_submitted" && (!ok || headings[n].Line == 0) {
			v.err(Finding{Message: fmt.Sprintf("seq %s: review_submitted requires matching review.md heading", e.SeqLabel()), File: "review.md", Line: e.Line, Seq: e.SeqLabel()})
		}
	}
	for _, seq := range order {
		h := headings[seq]
		at := Finding{File: "review.md", Line: h.Line, Seq: itoa(seq)}
		e, ok := bySeq[seq]
		switch {
		case !ok:
			at.Message = fmt.Sprintf("review.md heading seq %d: no matching event", seq)
		case e.Str("event") != "review_submitted":
			at.Message = fmt.Sprintf("review.md heading seq %d: matching event is %s, not review_submitted", seq, PyStr(e.Fields["event"]))
		case PyStr(e.Fields["from"]) != h.Participant:
			at.Message = fmt.Sprintf("review.md heading seq %d: participant %s does not match event from %s", seq, PyRepr(h.Participant), PyRepr(PyStr(e.Fields["from"])))
		default:
			continue
		}
		v.err(at)
	}
}

// strictDocuments warns about document cases upstream accepts but the seed
// does not: review bodies without the structured parts (A3), readiness tags
// outside the vocabulary (A4) and an outcome outside its section (A5).
func (v validation) strictDocuments(reviewText string, rd Readiness) {
	for _, h := range ReviewHeadings(reviewText) {
		if missing := MissingReviewSections(h.Body); len(missing) > 0 {
			v.warn(Finding{Message: fmt.Sprintf("review.md heading seq %d: the review lacks %s", h.Seq, strings.Join(missing, ", ")), File: "review.md", Line: h.Line, Seq: itoa(h.Seq), Rule: "ACP-STRICT-REVIEW-BODY"})
		}
	}
	for _, u := range rd.UnknownTags {
		v.warn(Finding{Message: fmt.Sprintf("readiness.md line %d: [%s] is not a classification; use [resolved], [deferred_nonblocking] or [blocking]", u.Line, u.Tag), File: "readiness.md", Line: u.Line, Rule: "ACP-STRICT-READINESS-TAGS"})
	}
	for _, o := range Outcomes(readText(v.r.Folder, "conclusion.md")) {
		if o.Section != "Decision Outcome" {
			v.warn(Finding{Message: fmt.Sprintf("conclusion.md line %d: the outcome [%s] is outside the Decision Outcome section", o.Line, o.Tag), File: "conclusion.md", Line: o.Line, Rule: "ACP-STRICT-OUTCOME-SECTION"})
		}
	}
}

// replyInt reads reply_to as Python's isinstance(x, int) does: an integer
// or a boolean.
func replyInt(v any) (int, bool) {
	if b, ok := v.(bool); ok {
		if b {
			return 1, true
		}
		return 0, true
	}
	return asInt(v, false)
}
