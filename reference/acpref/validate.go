package acpref

import (
	"encoding/json"
	"fmt"
	"maps"
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
	Schema   Schema    `json:"schema"`
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
	t      *Tools
	r      *Report
	folder string
	schema Schema
}

func (v validation) err(f Finding)  { v.r.Errors = append(v.r.Errors, f) }
func (v validation) warn(f Finding) { v.r.Warnings = append(v.r.Warnings, f) }

// Validate checks a collaboration folder as upstream's validator does, in
// its order: the files, protocol.json, every event, the review headings,
// (v2: the deliverable declaration and events,) the replayed phases and
// ownership, the readiness gates and the conclusion; then, unless Compat,
// sifu's strict rules. The schema is Options.Schema, or the folder's. It
// never modifies the folder.
func (t *Tools) Validate(folder string) Report {
	r := &Report{Folder: folder, Schema: SchemaV1}
	v := validation{t: t, r: r, folder: folder}
	for _, name := range ProtocolFiles {
		if !exists(folder, name) && !(name == "conclusion.md" && t.faults[FaultProtocolFileDropped]) {
			v.err(Finding{Message: "missing " + name, File: name})
		}
	}
	if !t.faults[FaultStaleFilesIgnored] {
		for _, name := range ObsoleteFiles {
			if exists(folder, name) && !(name == "opinions.md" && t.faults[FaultObsoleteFileDropped]) {
				v.err(Finding{Message: name + " is not part of the protocol; remove it and use events.jsonl/readiness.md instead", File: name})
			}
		}
	}
	proto, err := ReadProtocol(folder)
	if err != nil {
		r.Errors = append([]Finding{{Message: err.Error(), File: "protocol.json"}}, r.Errors...)
		return *r
	}
	v.schema = t.schemaFor(proto)
	r.Schema = v.schema
	if !t.faults[FaultAcceptsInvalidUTF8] {
		for _, name := range ProtocolFiles[2:] {
			if _, bad := readDoc(folder, name); bad != nil {
				v.err(*bad)
			}
		}
	}
	pf := func(msg string) { v.err(Finding{Message: msg, File: "protocol.json"}) }
	if v.schema == SchemaV2 && !t.faults[FaultSchemaVersionIgnored] {
		if proto["protocol"] != "acp" {
			pf("protocol.json protocol must be 'acp'")
		}
		if !pyEq(proto["schemaVersion"], 2) || isBool(proto["schemaVersion"]) {
			pf("protocol.json schemaVersion must be 2")
		}
	}
	if phase, ok := proto["currentPhase"].(string); !ok || !slices.Contains(Phases, phase) {
		pf("currentPhase must be one of " + PyRepr(Phases))
	}
	if !truthy(proto["objective"]) {
		pf("protocol.json objective must not be blank")
	}
	if len(proto.Participants()) == 0 {
		pf("protocol.json participants must not be empty")
	}
	if v.schema == SchemaV2 {
		gates, ok := proto["completionGates"].([]any)
		if !ok || len(gates) == 0 {
			pf("protocol.json completionGates must not be empty")
		}
		for i, g := range gates {
			m, _ := g.(map[string]any)
			text, isStr := m["text"].(string)
			if m == nil || (m["source"] != "objective" && m["source"] != "generated") || !isStr || strings.TrimFunc(text, pySpace) == "" {
				pf(fmt.Sprintf("completionGates[%d] must include source and text", i+1))
				continue
			}
			v.obsoleteGate(text)
		}
	} else {
		if !truthy(proto["completionGates"]) {
			pf("protocol.json completionGates must not be empty")
		}
		if _, ok := proto["version"]; ok {
			pf("protocol.json must not include a protocol version field")
		}
		for _, g := range pyIter(proto["completionGates"]) {
			if s, ok := g.(string); ok {
				v.obsoleteGate(s)
			}
		}
	}
	if _, ok := proto["waitingFor"]; !ok {
		pf("protocol.json waitingFor must be present")
	}
	if _, ok := proto["proposalOwner"]; !ok {
		pf("protocol.json proposalOwner must be present")
	}
	var schemaErrs []string
	if v.schema == SchemaV2 {
		schemaErrs = t.schemaErrors(proto, folder)
		for _, msg := range schemaErrs {
			v.err(Finding{Message: msg, File: "protocol.json"})
		}
	}
	read, err := ReadEvents(folder, t.Compat)
	if err != nil {
		v.err(Finding{Message: err.Error(), File: "events.jsonl"})
	}
	if read.Missing {
		v.err(Finding{Message: "missing events.jsonl", File: "events.jsonl"})
	}
	for _, p := range read.Problems {
		if p.Rule != "" && t.Compat {
			continue
		}
		if t.faults[FaultAcceptsInvalidUTF8] && strings.Contains(p.Message, "not valid UTF-8") {
			continue
		}
		v.err(p)
	}
	events := read.Events
	if t.faults[FaultStopsAtBadLine] {
		for _, p := range read.Problems {
			if p.Rule == "" {
				events = slices.DeleteFunc(slices.Clone(events), func(e Event) bool { return e.Line > p.Line })
				break
			}
		}
	}
	v.events(proto, events, schemaErrs)
	return *r
}

// schemaFor is the schema to validate a folder with: the one asked for, or
// the folder's own.
func (t *Tools) schemaFor(p Protocol) Schema {
	if t.Schema != "" {
		return t.Schema
	}
	return p.SchemaOf()
}

func isBool(v any) bool { _, ok := v.(bool); return ok }

// pyIter is `for x in value` over a decoded JSON value: a list's items, a
// string's characters, an object's keys.
func pyIter(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case string:
		var out []any
		for _, r := range x {
			out = append(out, string(r))
		}
		return out
	case map[string]any:
		var out []any
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = append(out, k)
		}
		return out
	}
	return nil
}

func (v validation) obsoleteGate(g string) {
	for _, name := range ObsoleteFiles {
		if strings.Contains(g, name) && !v.t.faults[FaultStaleFilesIgnored] {
			v.err(Finding{Message: "completion gate must not reference obsolete file " + name, File: "protocol.json"})
		}
	}
}

func (v validation) events(proto Protocol, events []Event, schemaErrs []string) {
	t := v.t
	participants := proto.Participants()
	ef := func(e Event, msg string) {
		v.err(Finding{Message: msg, File: "events.jsonl", Line: e.Line, Seq: e.SeqLabel()})
	}
	strict := func(e Event, msg, rule string) {
		v.err(Finding{Message: msg, File: "events.jsonl", Line: e.Line, Seq: e.SeqLabel(), Rule: rule})
	}
	known := EventsOf(v.schema)
	seen := map[int]bool{}
	var prev *Timestamp
	var strictWarnings []Finding
	for i, e := range events {
		want := i + 1
		seq := e.SeqLabel()
		seqNum, seqIsInt := e.PySeq()
		if !pyEq(e.Fields["seq"], want) {
			if !t.faults[FaultSeqGapMissed] {
				ef(e, fmt.Sprintf("events.jsonl: expected seq %d, found %s", want, seq))
			}
		} else if _, literal := e.Seq(); !literal && !t.Compat {
			strict(e, fmt.Sprintf("seq %s: seq must be a JSON integer", seq), "ACP-STRICT-SEQ-INT")
		}
		ownSeenBefore := seqIsInt && seen[seqNum]
		if seqIsInt && v.schema == SchemaV1 {
			seen[seqNum] = true // v1 counts the event itself as seen (quirk Q1)
		}
		for _, f := range []string{"seq", "from", "event", "at", "summary"} {
			if _, ok := e.Fields[f]; !ok {
				ef(e, fmt.Sprintf("seq %s: missing required field %s", seq, f))
			}
		}
		ev := e.Fields["event"]
		name, isStr := ev.(string)
		if !isStr || !slices.Contains(known, name) {
			ef(e, fmt.Sprintf("seq %s: unknown event %s", seq, PyRepr(ev)))
		}
		if v.schema == SchemaV2 && isStr && strings.HasPrefix(name, "deliverable_") {
			if role := e.Fields["role"]; role != "primary" && role != "supporting" {
				ef(e, fmt.Sprintf("seq %s: deliverable events require role", seq))
			}
			if _, ok := e.Fields["doc"].(string); !ok {
				ef(e, fmt.Sprintf("seq %s: deliverable events require doc", seq))
			}
			if name == "deliverable_frozen" && !isSHA256(e.Fields["sha256"]) {
				ef(e, fmt.Sprintf("seq %s: deliverable_frozen requires sha256", seq))
			}
		}
		rt := e.Fields["reply_to"]
		if ev != "initialized" && rt == nil {
			ef(e, fmt.Sprintf("seq %s: reply_to is required after initialized", seq))
		}
		if rt != nil {
			if rn, ok := pyInt(rt); !ok || !seen[rn] {
				ef(e, fmt.Sprintf("seq %s: reply_to must point to an earlier event", seq))
			} else if seqIsInt && rn == seqNum && !ownSeenBefore && !t.Compat {
				strict(e, fmt.Sprintf("seq %s: reply_to must point to an earlier event, not to itself", seq), "ACP-STRICT-REPLY-SELF")
			}
		}
		at, _ := e.Fields["at"].(string)
		ts, ok := ParseTimestamp(at)
		if _, isStr := e.Fields["at"].(string); !isStr || !ok || !ts.Aware {
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
		if seqIsInt {
			seen[seqNum] = true
		} else if r, ok := pyNumber(e.Fields["seq"]); ok && r.IsInt() && t.faults[FaultLenientSeqSeen] {
			seen[int(r.Num().Int64())] = true
		}
		if name == "blocked" && !t.Compat && !slices.Contains(participants, e.Str("from")) {
			strict(e, fmt.Sprintf("seq %s: participant %s is not listed in protocol.json", seq, PyRepr(PyStr(e.Fields["from"]))), "ACP-STRICT-BLOCKED-FROM")
		}
	}
	reviewText := readText(v.folder, "review.md")
	if !t.faults[FaultReviewHeadingUnchecked] {
		v.reviews(proto, events, reviewText)
	}
	var frozen map[string]bool
	if v.schema == SchemaV2 {
		var errs []string
		errs, frozen = t.deliverableEventErrors(v.folder, proto, events)
		for _, msg := range errs {
			v.err(v.locate(Finding{Message: msg, File: "events.jsonl"}, events))
		}
	}
	rd := ScanReadiness(readText(v.folder, "readiness.md"))
	state, errs := t.derive(v.schema, participants, events, rd)
	for _, msg := range errs {
		f := v.locate(Finding{Message: msg, File: "events.jsonl"}, events)
		if strings.Contains(msg, "blocked is not allowed from phase completed") {
			f.Rule = "ACP-STRICT-BLOCKED-AFTER-COMPLETED"
		}
		v.err(f)
	}
	if !t.faults[FaultProtocolDriftIgnored] {
		if state.Phase != "" && !pyEq(proto["currentPhase"], state.Phase) {
			v.err(Finding{Message: fmt.Sprintf("protocol.json currentPhase is %s, expected %s", PyStr(proto["currentPhase"]), state.Phase), File: "protocol.json"})
		}
		drift := t.faults[FaultAbsentFieldDrift]
		if got, has := proto["proposalOwner"]; (has || drift) && state.OwnerSet && !pyEq(got, state.Owner) {
			v.err(Finding{Message: fmt.Sprintf("protocol.json proposalOwner is %s, expected %s", PyRepr(got), PyRepr(state.Owner)), File: "protocol.json"})
		}
		if got, has := proto["waitingFor"]; (has || drift) && !pyEq(state.Waiting, got) {
			v.err(Finding{Message: fmt.Sprintf("protocol.json waitingFor is %s, expected %s", PyRepr(got), PyRepr(state.Waiting)), File: "protocol.json"})
		}
	}
	has := map[string]bool{}
	hasPrimaryFreeze := false
	for _, e := range events {
		name, _ := e.Fields["event"].(string)
		has[name] = true
		if name == "deliverable_frozen" && e.Fields["role"] == "primary" {
			hasPrimaryFreeze = true
		}
	}
	if v.schema == SchemaV2 && len(schemaErrs) == 0 {
		requireFrozen := hasPrimaryFreeze || has["readiness_passed"] || has["completed"]
		for _, msg := range primaryContentErrors(proto, v.folder, requireFrozen) {
			v.err(Finding{Message: msg, File: proto.PrimaryRef()})
		}
		for _, msg := range supportingContentErrors(proto, v.folder, frozen) {
			v.err(Finding{Message: msg})
		}
		for _, msg := range decisionsErrors(v.folder, proto) {
			v.err(Finding{Message: msg, File: "decisions.md"})
		}
		for _, msg := range attachmentErrors(proto, v.folder) {
			v.err(Finding{Message: msg})
		}
	}
	rf := func(msg string) { v.err(Finding{Message: msg, File: "readiness.md"}) }
	if !t.faults[FaultSkipReadinessGate] {
		if has["decision_accepted"] {
			for _, msg := range rd.DecisionErrors() {
				rf(msg)
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
	if has["readiness_passed"] || has["completed"] {
		if !rd.ReadyChecked && !t.faults[FaultNoReadyToImplement] {
			rf("readiness.md must check 'Ready to implement' before readiness_passed or completed")
		}
		if v.schema == SchemaV2 && !hasPrimaryFreeze && !t.faults[FaultReadinessWithoutFreeze] {
			v.err(Finding{Message: "readiness_passed requires primary deliverable_frozen", File: "events.jsonl"})
		}
	}
	if has["completed"] {
		if open := rd.UncheckedGates(proto.Gates()); len(open) > 0 && !t.faults[FaultUncheckedGates] {
			rf("completion gates must be checked before completed: " + strings.Join(open, ", "))
		}
		if !t.faults[FaultIncompleteConclusion] {
			ref := ""
			if v.schema == SchemaV2 {
				ref = proto.PrimaryRef()
			}
			for _, msg := range t.conclusionErrors(v.schema, readText(v.folder, "conclusion.md"), ref) {
				v.err(Finding{Message: msg, File: "conclusion.md"})
			}
		}
	} else if rd.MissingReason && !t.faults[FaultNoWarnings] {
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

// locate adds the line and seq of the event a "seq N: …" message names.
func (v validation) locate(f Finding, events []Event) Finding {
	for _, e := range events {
		if strings.HasPrefix(f.Message, "seq "+e.SeqLabel()+":") {
			f.Line, f.Seq = e.Line, e.SeqLabel()
			break
		}
	}
	return f
}

// pyKey is a key equal for values Python's dict and set take for equal
// (1, 1.0 and true are one key).
func pyKey(v any) string {
	if r, ok := pyNumber(v); ok {
		return "n:" + r.RatString()
	}
	switch x := v.(type) {
	case nil:
		return "none"
	case string:
		return "s:" + x
	}
	return "x:" + PyRepr(v)
}

// reviews is upstream's validate_review_links: review_submitted events and
// review.md headings name each other; in v2 review.md also declares what
// was reviewed.
func (v validation) reviews(proto Protocol, events []Event, text string) {
	type heading struct {
		participant string
		line        int
	}
	headings := map[int]heading{}
	var order []int
	for _, h := range ReviewHeadings(text) {
		if _, dup := headings[h.Seq]; !dup {
			order = append(order, h.Seq)
		}
		headings[h.Seq] = heading{h.Participant, h.Line} // a later duplicate wins, as upstream
	}
	bySeq := map[string]Event{}
	for _, e := range events {
		bySeq[pyKey(e.Fields["seq"])] = e
	}
	type reviewSeq struct {
		label string
		num   int
		isNum bool
		e     Event
	}
	var reviewSeqs []reviewSeq
	keys := map[string]bool{}
	for _, e := range events {
		if e.Fields["event"] != "review_submitted" {
			continue
		}
		k := pyKey(e.Fields["seq"])
		if keys[k] {
			continue
		}
		keys[k] = true
		n, ok := pyInt(e.Fields["seq"])
		if r, isNum := pyNumber(e.Fields["seq"]); isNum && r.IsInt() {
			n, ok = int(r.Num().Int64()), true
		}
		reviewSeqs = append(reviewSeqs, reviewSeq{e.SeqLabel(), n, ok, e})
	}
	// A set of small ints iterates in ascending order.
	slices.SortStableFunc(reviewSeqs, func(a, b reviewSeq) int {
		switch {
		case a.isNum && b.isNum:
			return a.num - b.num
		case a.isNum:
			return -1
		case b.isNum:
			return 1
		}
		return 0
	})
	for _, rs := range reviewSeqs {
		if _, ok := headings[rs.num]; !rs.isNum || !ok {
			v.err(Finding{Message: fmt.Sprintf("seq %s: review_submitted requires matching review.md heading", rs.label), File: "review.md", Line: rs.e.Line, Seq: rs.label})
		}
	}
	for _, seq := range order {
		h := headings[seq]
		at := Finding{File: "review.md", Line: h.line, Seq: itoa(seq)}
		e, ok := bySeq[pyKey(json.Number(itoa(seq)))]
		switch {
		case !ok:
			at.Message = fmt.Sprintf("review.md heading seq %d: no matching event", seq)
		case e.Fields["event"] != "review_submitted":
			at.Message = fmt.Sprintf("review.md heading seq %d: matching event is %s, not review_submitted", seq, PyStr(e.Fields["event"]))
		case !pyEq(h.participant, e.Fields["from"]):
			at.Message = fmt.Sprintf("review.md heading seq %d: participant %s does not match event from %s", seq, PyRepr(h.participant), PyRepr(e.Fields["from"]))
		default:
			continue
		}
		v.err(at)
	}
	if v.schema == SchemaV2 && len(reviewSeqs) > 0 {
		rf := func(msg string) { v.err(Finding{Message: msg, File: "review.md"}) }
		if !strings.Contains(text, "Reviewed primary deliverable:") {
			rf("review.md must declare Reviewed primary deliverable")
		}
		if !strings.Contains(text, "Review Scope:") {
			rf("review.md must declare Review Scope")
		}
		if !strings.Contains(text, "Primary deliverable completeness") {
			rf("review.md Review Scope must include Primary deliverable completeness")
		}
		if ref := proto.PrimaryRef(); ref != "" && !strings.Contains(text, ref) {
			rf("review.md must reference the primary deliverable")
		}
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
	for _, o := range Outcomes(readText(v.folder, "conclusion.md")) {
		if o.Section != "Decision Outcome" {
			v.warn(Finding{Message: fmt.Sprintf("conclusion.md line %d: the outcome [%s] is outside the Decision Outcome section", o.Line, o.Tag), File: "conclusion.md", Line: o.Line, Rule: "ACP-STRICT-OUTCOME-SECTION"})
		}
	}
}
