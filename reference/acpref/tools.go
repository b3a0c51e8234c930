package acpref

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options configure the tools.
type Options struct {
	// Now stamps events and protocol.json; nil means the system clock.
	Now func() time.Time
	// Compat reproduces the upstream verdicts on every quirk instead of
	// sifu's stricter reading (docs/acp.md).
	Compat bool
	// Schema, when set, is the schema the tools speak whatever the folder
	// says; empty means the folder's own (protocol.json's schemaVersion),
	// and v1 for init unless it is given a primary deliverable.
	Schema Schema
	// After returns a channel that fires once d has passed; it times wait
	// out. Nil means time.After. Tests inject virtual time here.
	After func(d time.Duration) <-chan time.Time
	// Faults plants deliberate bugs (negative controls).
	Faults []Fault
	// NoSync skips fsync after writes: replacement by rename still keeps
	// every file whole, but a power loss may lose the latest append. For
	// throwaway folders (tests, in-process conformance runs).
	NoSync bool
}

// Tools are the five ACP tools over collaboration folders.
type Tools struct {
	Options
	faults map[Fault]bool
}

// New returns the tools with the given options.
func New(o Options) *Tools {
	t := &Tools{Options: o, faults: map[Fault]bool{}}
	for _, f := range o.Faults {
		t.faults[f] = true
	}
	if t.Now == nil {
		t.Now = time.Now
	}
	if t.After == nil {
		t.After = time.After
	}
	return t
}

// InitRequest is what init needs.
type InitRequest struct {
	Participants []string
	Objective    string
	Completion   []string
	Resume       bool

	// Schema v2: the primary deliverable's type (which makes init speak v2
	// when Schema is not set), its file, the sections of a custom one, and
	// where deliverables live.
	Schema           Schema
	PrimaryType      string
	PrimaryFile      string
	PrimaryChecks    []string
	DeliverablesMode string // internal (default) or external
	DeliverablesDir  string // default "deliverables"
	RepoRoot         string // external mode: relative to the folder
}

// InitResult says what init did.
type InitResult struct {
	Folder  string // absolute
	Resumed bool
	Schema  Schema
}

func trimmed(list []string, dedupe bool) []string {
	var out []string
	for _, s := range list {
		if s = strings.TrimFunc(s, pySpace); s != "" && (!dedupe || !slices.Contains(out, s)) {
			out = append(out, s)
		}
	}
	return out
}

// Init creates a collaboration folder: protocol.json, the documents (in v2
// also the primary deliverable) and events.jsonl with the seq-1
// initialized event. The arguments are checked first, in upstream's order;
// then an existing protocol.json is an error unless Resume is set, and
// then nothing is touched.
func (t *Tools) Init(folder string, req InitRequest) (InitResult, error) {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return InitResult{}, usageError("%v", err)
	}
	schema := req.Schema
	if schema == "" {
		schema = t.Schema
	}
	if schema == "" {
		schema = SchemaV1
		if req.PrimaryType != "" {
			schema = SchemaV2
		}
	}
	objective := strings.TrimFunc(req.Objective, pySpace)
	participants := trimmed(req.Participants, true)
	gates := trimmed(req.Completion, false)
	switch {
	case objective == "":
		return InitResult{}, usageError("--objective must not be blank")
	case schema == SchemaV1 && len(participants) == 0:
		return InitResult{}, usageError("at least one non-blank --participant is required")
	case schema == SchemaV2 && len(participants) < 2:
		return InitResult{}, usageError("at least two non-blank --participant values are required")
	case len(gates) == 0:
		return InitResult{}, usageError("at least one non-blank --completion is required")
	}
	var d *v2Init
	if schema == SchemaV2 {
		if d, err = checkV2Init(req); err != nil {
			return InitResult{}, err
		}
	}
	res := InitResult{Folder: abs, Schema: schema}
	if _, err := os.Stat(filepath.Join(abs, "protocol.json")); err == nil {
		if req.Resume {
			res.Resumed = true
			return res, nil
		}
		if !t.faults[FaultReinitOverwrites] {
			return InitResult{}, usageError("collaboration folder already contains protocol.json; use --resume to acknowledge it")
		}
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return InitResult{}, refuse("cannot create %s: %v", abs, err)
	}
	unlock, err := lockFolder(abs)
	if err != nil {
		return InitResult{}, err
	}
	defer unlock()
	now := FormatTime(t.Now())
	plist := make([]any, len(participants))
	for i, p := range participants {
		plist[i] = map[string]any{"id": p}
	}
	proto := Protocol{
		"objective": objective, "participants": plist,
		"currentPhase": PhaseDrafting, "proposalOwner": participants[0], "waitingFor": []any{participants[0]},
		"createdAt": now, "updatedAt": now,
	}
	type doc struct{ name, text string }
	var docs []doc
	summary := "Collaboration workspace initialized"
	if schema == SchemaV1 {
		glist := make([]any, len(gates))
		for i, g := range gates {
			glist[i] = g
		}
		proto["completionGates"] = glist
		docs = []doc{
			{"README.md", readmeTemplate(objective, participants)},
			{"proposal.md", proposalTemplate(objective)},
			{"review.md", reviewTemplate},
			{"decisions.md", decisionsTemplate},
			{"readiness.md", readinessTemplate(gates)},
			{"conclusion.md", conclusionTemplate()},
		}
	} else {
		summary = "ACP schema v2 collaboration workspace initialized"
		d.declare(proto, gates, participants[0])
		ref := proto.PrimaryRef()
		docs = []doc{
			{"README.md", readmeTemplate(objective, participants)},
			{"proposal.md", proposalTemplateV2(objective, ref)},
			{"review.md", reviewTemplateV2(ref)},
			{"decisions.md", decisionsTemplate},
			{"readiness.md", readinessTemplateV2(gates, proto.Gates()[len(gates):], ref)},
			{"conclusion.md", conclusionTemplateV2(ref, d.typ)},
		}
		base, _ := deliverableBase(abs, proto)
		path := filepath.Join(base, d.file)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return InitResult{}, refuse("cannot create %s: %v", filepath.Dir(path), err)
		}
		if err := t.replaceFile(filepath.Dir(path), filepath.Base(path), []byte(deliverableTemplate(proto.PrimaryDeliverable()))); err != nil {
			return InitResult{}, err
		}
	}
	for _, d := range docs {
		if err := t.replaceFile(abs, d.name, []byte(d.text)); err != nil {
			return InitResult{}, err
		}
	}
	first := t.encode(NewEvent{Seq: 1, From: participants[0], Event: "initialized", At: now, Summary: summary, Doc: "protocol.json"})
	if err := t.replaceFile(abs, "events.jsonl", first); err != nil {
		return InitResult{}, err
	}
	// protocol.json last: its presence marks a finished init.
	if err := t.replaceFile(abs, "protocol.json", proto.Encode()); err != nil {
		return InitResult{}, err
	}
	return res, nil
}

// v2Init is a checked v2 deliverable declaration.
type v2Init struct {
	typ, file, mode, dir, repoRoot string
	checks                         []string
}

// checkV2Init checks init's v2 arguments in upstream's order.
func checkV2Init(req InitRequest) (*v2Init, error) {
	d := &v2Init{typ: req.PrimaryType, mode: req.DeliverablesMode, dir: req.DeliverablesDir, repoRoot: req.RepoRoot}
	if d.mode == "" {
		d.mode = "internal"
	}
	if d.dir == "" {
		d.dir = "deliverables"
	}
	names := DeliverableTypeNames()
	switch {
	case d.typ == "":
		return nil, usageError("the following arguments are required: --primary-deliverable-type")
	case !slices.Contains(names, d.typ):
		return nil, usageError("argument --primary-deliverable-type: invalid choice: %s (choose from %s)", PyRepr(d.typ), reprs(names))
	case d.mode != "internal" && d.mode != "external":
		return nil, usageError("argument --deliverables-mode: invalid choice: %s (choose from 'internal', 'external')", PyRepr(d.mode))
	}
	d.file = req.PrimaryFile
	if d.file == "" {
		if d.typ == "custom" {
			return nil, usageError("custom deliverables require --primary-deliverable-file")
		}
		d.file = DeliverableTypes[d.typ].DefaultFile
	}
	d.checks = trimmed(req.PrimaryChecks, false)
	switch {
	case d.typ == "custom" && len(d.checks) == 0:
		return nil, usageError("custom deliverables require at least one --primary-deliverable-check")
	case !strings.HasSuffix(d.file, ".md"):
		return nil, usageError("primary deliverable file must end with .md")
	case pathHasEscape(d.file):
		return nil, usageError("primary deliverable file must be relative and must not contain ..")
	case pathHasEscape(d.dir):
		return nil, usageError("--deliverables-dir must be relative and must not contain ..")
	case d.mode == "external" && d.repoRoot == "":
		return nil, usageError("--repo-root is required when --deliverables-mode external")
	case d.mode == "external" && strings.HasPrefix(d.repoRoot, "/"):
		return nil, usageError("--repo-root must be relative to the collaboration folder")
	case d.mode == "internal" && d.repoRoot != "":
		return nil, usageError("--repo-root is only allowed when --deliverables-mode external")
	}
	return d, nil
}

// declare writes the v2 fields of protocol.json: protocol and schema, the
// objective's gates and the generated deliverable gates, and the
// deliverable declaration.
func (d *v2Init) declare(p Protocol, gates []string, owner string) {
	checks := make([]any, len(d.checks))
	for i, c := range d.checks {
		checks[i] = c
	}
	p["protocol"] = "acp"
	p["schemaVersion"] = 2
	p["deliverables"] = map[string]any{
		"mode": d.mode, "dir": d.dir, "owner": owner, "coAuthors": []any{},
		"primary":    map[string]any{"type": d.typ, "file": d.file, "checklist": checks},
		"supporting": []any{}, "attachments": []any{},
	}
	if d.mode == "external" {
		p["repoRoot"] = d.repoRoot
	}
	ref := p.PrimaryRef()
	objective := make([]any, len(gates))
	var all []any
	for i, g := range gates {
		objective[i] = g
		all = append(all, map[string]any{"source": "objective", "text": g})
	}
	for _, g := range generatedGates(ref, d.typ) {
		all = append(all, map[string]any{"source": "generated", "text": g})
	}
	p["objectiveGates"] = objective
	p["completionGates"] = all
}

// generatedGates are the gates v2 adds to the objective's own: the
// deliverable exists, is complete, carries the accepted decisions, and is
// frozen with its hash recorded.
func generatedGates(ref, typ string) []string {
	return []string{
		"The primary deliverable `" + ref + "` exists",
		"The primary deliverable has every `" + typ + "` section",
		"Each accepted decision says where it is reflected",
		"Each accepted decision is reflected in the primary deliverable",
		"The primary deliverable's status is `Frozen`",
		"The primary deliverable's SHA-256 is recorded",
	}
}

func reprs(list []string) string {
	q := make([]string, len(list))
	for i, e := range list {
		q[i] = PyRepr(e)
	}
	return strings.Join(q, ", ")
}

// AppendRequest is one event to append.
type AppendRequest struct {
	Participant string
	Event       string
	Summary     string
	Doc         string
	ReplyTo     *int
	Role        string // v2 deliverable events: primary or supporting
	SHA256      string // v2 deliverable_frozen: the file's hash
}

// Append checks a candidate event against the protocol, in upstream's
// order, and, when every check passes, appends it and rewrites
// protocol.json with the derived phase, owner and waitingFor. It returns
// the new seq. Earlier event lines are never rewritten.
func (t *Tools) Append(folder string, req AppendRequest) (int, error) {
	proto, err := ReadProtocol(folder)
	if err != nil {
		return 0, err
	}
	schema := t.schemaFor(proto)
	if events := EventsOf(schema); !slices.Contains(events, req.Event) {
		return 0, usageError("argument --event: invalid choice: %s (choose from %s)", PyRepr(req.Event), reprs(slices.Sorted(slices.Values(events))))
	}
	participants := proto.Participants()
	if !slices.Contains(participants, req.Participant) && !t.faults[FaultNonParticipantAppends] {
		return 0, refuse("participant %s is not listed in protocol.json", PyRepr(req.Participant))
	}
	if !t.faults[FaultUnlockedAppend] {
		unlock, err := lockFolder(folder)
		if err != nil {
			return 0, err
		}
		defer unlock()
	}
	read, err := ReadEvents(folder, t.Compat)
	if err != nil {
		return 0, err
	}
	if read.Missing {
		return 0, refuse("missing events.jsonl")
	}
	if msgs := t.readProblems(read); len(msgs) > 0 {
		return 0, refuse("%s", strings.Join(msgs, "; "))
	}
	events := read.Events
	if req.ReplyTo != nil && !t.faults[FaultDanglingReplyTo] {
		found := false
		for _, e := range events {
			if n, ok := e.PySeq(); ok && n == *req.ReplyTo {
				found = true
			}
		}
		if !found {
			return 0, refuse("reply_to must point to an existing event")
		}
	}
	if len(events) > 0 && req.ReplyTo == nil && !t.faults[FaultNoReplyTo] {
		return 0, refuse("reply_to is required after initialized")
	}
	if schema == SchemaV2 && strings.HasPrefix(req.Event, "deliverable_") {
		if err := t.checkDeliverableEvent(folder, proto, req); err != nil {
			return 0, err
		}
	}
	seq := 1
	if len(events) > 0 {
		seq = maxSeq(events) + 1
	}
	at := FormatTime(t.Now())
	line := t.encode(NewEvent{Seq: seq, From: req.Participant, Event: req.Event, At: at, Summary: req.Summary, Doc: req.Doc,
		ReplyTo: req.ReplyTo, Role: req.Role, SHA256: req.SHA256})
	cand := ParseEvents(line, false)
	if len(cand.Events) != 1 {
		return 0, refuse("cannot encode the event: %s", strings.Join(cand.Messages(), "; "))
	}
	cand.Events[0].Line = len(events) + 1
	rd := ScanReadiness(readText(folder, "readiness.md"))
	state, errs := t.derive(schema, participants, append(slices.Clip(events), cand.Events[0]), rd)
	if len(errs) > 0 {
		return 0, refuse("%s", strings.Join(errs, "; "))
	}
	if err := t.gates(folder, schema, proto, req, rd); err != nil {
		return 0, err
	}
	raw := read.Raw
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		raw = append(raw, '\n') // a last line without its newline stays intact
	}
	if t.faults[FaultRewritesHistory] {
		raw = t.reencode(events)
	}
	if t.faults[FaultUnlockedAppend] {
		err = appendInPlace(filepath.Join(folder, "events.jsonl"), line)
	} else {
		err = t.replaceFile(folder, "events.jsonl", append(raw, line...))
	}
	if err != nil {
		return 0, err
	}
	if state.Phase == "" {
		return seq, nil // no phase derived: upstream leaves protocol.json alone
	}
	proto["currentPhase"] = state.Phase
	proto["proposalOwner"] = nullable(state.Owner, state.OwnerSet)
	waiting := make([]any, len(state.Waiting))
	for i, w := range state.Waiting {
		waiting[i] = w
	}
	proto["waitingFor"] = waiting
	proto["updatedAt"] = at
	if t.faults[FaultUnlockedAppend] {
		err = writeInPlace(filepath.Join(folder, "protocol.json"), proto.Encode())
	} else {
		err = t.replaceFile(folder, "protocol.json", proto.Encode())
	}
	if err != nil {
		return 0, err
	}
	return seq, nil
}

// readProblems are the event-log problems a tool refuses to work on.
func (t *Tools) readProblems(r EventsRead) []string {
	var out []string
	for _, p := range r.Problems {
		if t.faults[FaultAcceptsInvalidUTF8] && strings.Contains(p.Message, "not valid UTF-8") {
			continue
		}
		out = append(out, p.Message)
	}
	return out
}

// checkDeliverableEvent is v2 append's check of a deliverable event: a
// role, a doc naming a declared deliverable, and for a freeze the file's
// current SHA-256.
func (t *Tools) checkDeliverableEvent(folder string, p Protocol, req AppendRequest) error {
	if req.Role != "primary" && req.Role != "supporting" {
		return refuse("deliverable events require role")
	}
	if req.Doc == "" {
		return refuse("deliverable events require doc")
	}
	file, err := deliverableFile(p, req.Doc, req.Role)
	if err != nil {
		return err
	}
	path, err := deliverablePath(folder, p, file)
	if err != nil {
		return err
	}
	if req.Event != "deliverable_frozen" {
		return nil
	}
	if !isSHA256(req.SHA256) {
		return refuse("deliverable_frozen requires sha256")
	}
	if _, err := os.Stat(path); err != nil {
		return refuse("deliverable_frozen doc does not exist")
	}
	if sum, _ := FileSHA256(path); sum != req.SHA256 && !t.faults[FaultFreezeHashUnchecked] {
		return refuse("deliverable_frozen sha256 does not match current file")
	}
	return nil
}

// gates are append's document checks after the replay: readiness for
// acceptance, readiness pass and completion, then completion's own.
func (t *Tools) gates(folder string, schema Schema, proto Protocol, req AppendRequest, rd Readiness) error {
	switch req.Event {
	case "decision_accepted", "readiness_passed", "completed":
		if !t.faults[FaultSkipReadinessGate] {
			switch {
			case rd.Blocking:
				return refuse("blocking readiness items must be cleared first")
			case rd.Unresolved:
				return refuse("unresolved readiness questions must be classified first")
			case rd.MissingReason:
				return refuse("deferred_nonblocking readiness items require a reason")
			}
		}
	}
	if (req.Event == "readiness_passed" || req.Event == "completed") && !rd.ReadyChecked && !t.faults[FaultNoReadyToImplement] {
		return refuse("readiness.md must check 'Ready to implement' first")
	}
	if req.Event != "completed" {
		return nil
	}
	if req.Doc != "conclusion.md" && !t.faults[FaultCompleteAnyDoc] {
		return refuse("completed must reference conclusion.md")
	}
	if open := rd.UncheckedGates(proto.Gates()); len(open) > 0 && !t.faults[FaultUncheckedGates] {
		return refuse("completion gates must be checked first: %s", strings.Join(open, ", "))
	}
	ref := ""
	if schema == SchemaV2 {
		ref = proto.PrimaryRef()
	}
	if errs := t.conclusionErrors(schema, readText(folder, "conclusion.md"), ref); len(errs) > 0 && !t.faults[FaultIncompleteConclusion] {
		return refuse("%s", strings.Join(errs, "; "))
	}
	return nil
}

// conclusionErrors is ConclusionErrors with the planted fault that drops
// a section.
func (t *Tools) conclusionErrors(schema Schema, text, ref string) []string {
	if !t.faults[FaultConclusionSectionDropped] {
		return ConclusionErrors(schema, text, ref)
	}
	if !hasHeading2(text, "Next Action") {
		text += "\n## Next Action\n"
	}
	return ConclusionErrors(schema, text, ref)
}

// encode is an event line with the planted encoding faults.
func (t *Tools) encode(n NewEvent) []byte {
	line := n.encode()
	if t.faults[FaultRawSeparators] {
		line = []byte(strings.NewReplacer(`\u0085`, "\u0085", `\u2028`, "\u2028", `\u2029`, "\u2029").Replace(string(line)))
	}
	if t.faults[FaultEventKeyOrder] {
		line = swapSeqAndFrom(line)
	}
	return line
}

func (t *Tools) reencode(events []Event) []byte {
	var out []byte
	for _, e := range events {
		seq, _ := e.Seq()
		var rt *int
		if n, ok := pyInt(e.Fields["reply_to"]); ok {
			rt = &n
		}
		out = append(out, t.encode(NewEvent{Seq: seq, From: e.Str("from"), Event: e.Str("event"), At: e.Str("at"),
			Summary: e.Str("summary"), Doc: e.Str("doc"), ReplyTo: rt, Role: e.Str("role"), SHA256: e.Str("sha256")})...)
	}
	return out
}

func nullable(s string, set bool) any {
	if !set {
		return nil
	}
	return s
}

// swapSeqAndFrom is the planted key-order fault: "from" before "seq".
func swapSeqAndFrom(line []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return line
	}
	var b bytes.Buffer
	b.WriteString(`{"from":` + string(m["from"]) + `,"seq":` + string(m["seq"]))
	for _, k := range []string{"event", "at", "summary", "doc", "reply_to", "role", "sha256"} {
		if v, ok := m[k]; ok {
			b.WriteString(`,"` + k + `":` + string(v))
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}
