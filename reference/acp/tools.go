package acp

import (
	"errors"
	"io/fs"
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
}

// InitResult says what init did.
type InitResult struct {
	Folder  string // absolute
	Resumed bool
}

// Init creates a collaboration folder: protocol.json, the documents and
// events.jsonl with the seq-1 initialized event. An existing protocol.json
// is an error unless Resume is set, and then nothing is touched.
func (t *Tools) Init(folder string, req InitRequest) (InitResult, error) {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return InitResult{}, &Error{Code: 2, Usage: true, Msg: err.Error()}
	}
	objective := strings.TrimSpace(req.Objective)
	var participants, gates []string
	for _, p := range req.Participants {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(participants, p) {
			participants = append(participants, p)
		}
	}
	for _, g := range req.Completion {
		if g = strings.TrimSpace(g); g != "" {
			gates = append(gates, g)
		}
	}
	if _, err := os.Stat(filepath.Join(abs, "protocol.json")); err == nil {
		if req.Resume {
			return InitResult{Folder: abs, Resumed: true}, nil
		}
		if !t.faults[FaultReinitOverwrites] {
			return InitResult{}, &Error{Code: 2, Usage: true, Msg: "collaboration folder already contains protocol.json; use --resume to acknowledge it"}
		}
	}
	switch {
	case objective == "":
		return InitResult{}, &Error{Code: 2, Usage: true, Msg: "--objective must not be blank"}
	case len(participants) == 0:
		return InitResult{}, &Error{Code: 2, Usage: true, Msg: "at least one non-blank --participant is required"}
	case len(gates) == 0:
		return InitResult{}, &Error{Code: 2, Usage: true, Msg: "at least one non-blank --completion is required"}
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
	glist := make([]any, len(gates))
	for i, g := range gates {
		glist[i] = g
	}
	proto := Protocol{
		"objective": objective, "participants": plist, "completionGates": glist,
		"currentPhase": PhaseDrafting, "proposalOwner": participants[0], "waitingFor": []any{participants[0]},
		"createdAt": now, "updatedAt": now,
	}
	docs := []struct{ name, text string }{
		{"README.md", readmeTemplate(objective, participants)},
		{"proposal.md", proposalTemplate(objective)},
		{"review.md", reviewTemplate},
		{"decisions.md", decisionsTemplate},
		{"readiness.md", readinessTemplate(gates)},
		{"conclusion.md", conclusionTemplate()},
	}
	for _, d := range docs {
		if err := t.replaceFile(abs, d.name, []byte(d.text)); err != nil {
			return InitResult{}, err
		}
	}
	first := encodeEvent(1, participants[0], "initialized", now, "Collaboration workspace initialized", "protocol.json", nil)
	if err := t.replaceFile(abs, "events.jsonl", first); err != nil {
		return InitResult{}, err
	}
	// protocol.json last: its presence marks a finished init.
	if err := t.replaceFile(abs, "protocol.json", proto.Encode()); err != nil {
		return InitResult{}, err
	}
	return InitResult{Folder: abs}, nil
}

// AppendRequest is one event to append.
type AppendRequest struct {
	Participant string
	Event       string
	Summary     string
	Doc         string
	ReplyTo     *int
}

// Append checks a candidate event against the protocol and, when every
// check passes, appends it and rewrites protocol.json with the derived
// phase, owner and waitingFor. It returns the new seq. Earlier event lines
// are never rewritten.
func (t *Tools) Append(folder string, req AppendRequest) (int, error) {
	proto, err := ReadProtocol(folder)
	if err != nil {
		return 0, err
	}
	if !slices.Contains(Events, req.Event) {
		return 0, &Error{Code: 2, Usage: true, Msg: "argument --event: invalid choice: " + PyRepr(req.Event) + " (choose from " + choices() + ")"}
	}
	participants := proto.Participants()
	if !slices.Contains(participants, req.Participant) && !t.faults[FaultNonParticipantAppends] {
		return 0, refuse("participant %s is not listed in protocol.json", PyRepr(req.Participant))
	}
	unlock, err := lockFolder(folder)
	if err != nil {
		return 0, err
	}
	defer unlock()
	events, raw, err := ReadEvents(folder)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, refuse("missing events.jsonl in %s", folder)
	}
	if err != nil {
		return 0, err
	}
	if req.ReplyTo != nil && !t.faults[FaultDanglingReplyTo] {
		found := false
		for _, e := range events {
			if n, ok := e.Seq(); ok && n == *req.ReplyTo {
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
	seq := maxSeq(events) + 1
	at := FormatTime(t.Now())
	line := encodeEvent(seq, req.Participant, req.Event, at, req.Summary, req.Doc, req.ReplyTo)
	cand, _ := ParseEvents(line)
	cand[0].Line = len(events) + 1
	rd := ScanReadiness(readText(folder, "readiness.md"))
	state, errs := t.derive(participants, append(slices.Clip(events), cand[0]), rd)
	if len(errs) > 0 {
		return 0, refuse("%s", strings.Join(errs, "; "))
	}
	if err := t.gates(folder, proto, req, rd); err != nil {
		return 0, err
	}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		raw = append(raw, '\n') // a last line without its newline stays intact
	}
	if t.faults[FaultRewritesHistory] {
		raw = reencode(events)
	}
	if err := t.replaceFile(folder, "events.jsonl", append(raw, line...)); err != nil {
		return 0, err
	}
	proto["currentPhase"] = nullable(state.Phase)
	proto["proposalOwner"] = nullable(state.Owner)
	waiting := make([]any, len(state.Waiting))
	for i, w := range state.Waiting {
		waiting[i] = w
	}
	proto["waitingFor"] = waiting
	proto["updatedAt"] = at
	if err := t.replaceFile(folder, "protocol.json", proto.Encode()); err != nil {
		return 0, err
	}
	return seq, nil
}

// gates are append's document checks after the replay: readiness for
// acceptance, readiness pass and completion, then completion's own.
func (t *Tools) gates(folder string, proto Protocol, req AppendRequest, rd Readiness) error {
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
	if errs := ConclusionErrors(readText(folder, "conclusion.md")); len(errs) > 0 && !t.faults[FaultIncompleteConclusion] {
		return refuse("%s", strings.Join(errs, "; "))
	}
	return nil
}

func reencode(events []Event) []byte {
	var out []byte
	for _, e := range events {
		seq, _ := e.Seq()
		var rt *int
		if n, ok := e.ReplyTo(); ok {
			rt = &n
		}
		out = append(out, encodeEvent(seq, e.Str("from"), e.Str("event"), e.Str("at"), e.Str("summary"), e.Str("doc"), rt)...)
	}
	return out
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func choices() string {
	q := make([]string, len(Events))
	for i, e := range Events {
		q[i] = PyRepr(e)
	}
	return strings.Join(q, ", ")
}
