// Package acp is the ACP suite of sifu: the seam any implementation of the
// Agent Collaboration Protocol tools is driven through (in-process, or
// command lines from a target config), the suite's vector format compiled
// into sifu checks, and the executor that runs them in a fresh collaboration
// folder per check.
package acp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
)

// Target is one implementation of the five ACP tools as sifu sees it. Every
// call names the folder; the folder is on the local disk, where the executor
// also reads and edits documents the way a participant would.
type Target interface {
	Hello(ctx context.Context) (Hello, error)
	Init(ctx context.Context, req InitRequest) (Answer, error)
	Append(ctx context.Context, req AppendRequest) (Answer, error)
	Next(ctx context.Context, req NextRequest) (Answer, error)
	Wait(ctx context.Context, req WaitRequest) (Answer, error)
	Validate(ctx context.Context, req ValidateRequest) (Answer, error)
}

// Hello describes an implementation.
type Hello struct {
	Implementation string `json:"implementation"`
	Version        string `json:"version"`
}

// Call is what every tool call carries.
type Call struct {
	Folder string
	// Now is the time the tool should stamp, when the target can be told.
	Now time.Time
	// Compat asks for the upstream verdicts on every quirk.
	Compat bool
	// Schema is the schema the check speaks ("v2"), when it says so; a
	// target that speaks one schema only may ignore it.
	Schema string
}

// InitRequest is one init call.
type InitRequest struct {
	Call
	Participants []string
	Objective    string
	Completion   []string
	Resume       bool

	// Schema v2: the primary deliverable and where deliverables live.
	PrimaryType      string
	PrimaryFile      string
	PrimaryChecks    []string
	DeliverablesMode string
	DeliverablesDir  string
	RepoRoot         string
}

// AppendRequest is one append call.
type AppendRequest struct {
	Call
	Participant string
	Event       string
	Summary     string
	Doc         string
	ReplyTo     *int
	Role        string // v2 deliverable events
	SHA256      string // v2 deliverable_frozen
}

// NextRequest is one next-action call.
type NextRequest struct {
	Call
	Participant string
}

// WaitRequest is one wait call.
type WaitRequest struct {
	Call
	Participant string
	Timeout     time.Duration
}

// ValidateRequest is one validator call.
type ValidateRequest struct{ Call }

// Answer is what a tool did: its exit code and output.
type Answer struct {
	Exit   int
	Stdout string
	Stderr string
}

// Epoch is where every check's clock starts; each tool call moves it one
// minute on, so event times are reproducible and never go backwards.
var Epoch = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// Executor runs compiled ACP steps against a Target in one folder.
type Executor struct {
	target Target
	root   string // temporary directory holding the folder
	folder string
	mu     sync.Mutex
	clock  time.Time
}

// NewExecutor returns an executor for one check, with its own folder (not
// yet created: init creates it). release removes it.
func NewExecutor(t Target) (*Executor, func(), error) {
	root, err := os.MkdirTemp("", "sifu-acp-")
	if err != nil {
		return nil, nil, err
	}
	e := &Executor{target: t, root: root, folder: filepath.Join(root, "collab"), clock: Epoch}
	return e, func() { os.RemoveAll(root) }, nil
}

// Folder is the collaboration folder of the check.
func (e *Executor) Folder() string { return e.folder }

// tick moves the clock on for a call. Calls made at once (a parallel
// step's) all get the next minute without moving the clock, so whichever
// takes the folder's lock first, no event is stamped earlier than the one
// before it.
func (e *Executor) tick(simultaneous bool) time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	if simultaneous {
		return e.clock.Add(time.Minute)
	}
	e.clock = e.clock.Add(time.Minute)
	return e.clock
}

// Execute performs one step: a tool call, or a participant's edit of a
// document (the write and fixture controls).
func (e *Executor) Execute(ctx context.Context, step engine.Step) (engine.Outcome, error) {
	p := step.Params
	call := Call{Folder: e.folder, Now: e.tick(p["simultaneous"] == true), Compat: p["compat"] == true, Schema: str(p["schema"])}
	switch step.Op {
	case engine.OpControl:
		return e.control(step)
	case engine.OpAct, engine.OpRead:
	default:
		return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("the acp suite cannot execute a %s step", step.Op)}
	}
	before := e.digest()
	var ans Answer
	var err error
	switch step.Name {
	case "init":
		ans, err = e.target.Init(ctx, InitRequest{Call: call, Participants: strs(p["participants"]),
			Objective: str(p["objective"]), Completion: strs(p["completion"]), Resume: p["resume"] == true,
			PrimaryType: str(p["primary_type"]), PrimaryFile: str(p["primary_file"]), PrimaryChecks: strs(p["primary_checks"]),
			DeliverablesMode: str(p["deliverables_mode"]), DeliverablesDir: str(p["deliverables_dir"]), RepoRoot: str(p["repo_root"])})
	case "append":
		req := AppendRequest{Call: call, Participant: str(p["participant"]), Event: str(p["event"]), Summary: str(p["summary"]), Doc: str(p["doc"]),
			Role: str(p["role"]), SHA256: str(p["sha256"])}
		if file, ok := strings.CutPrefix(req.SHA256, "$sha256:"); ok {
			req.SHA256 = e.fileHash(file)
		}
		if req.Summary == "" {
			req.Summary = str(p["participant"]) + " " + strings.ReplaceAll(req.Event, "_", " ")
		}
		if n, ok := p["reply_to"].(float64); ok {
			i := int(n)
			req.ReplyTo = &i
		}
		ans, err = e.target.Append(ctx, req)
	case "next":
		ans, err = e.target.Next(ctx, NextRequest{Call: call, Participant: str(p["participant"])})
	case "wait":
		secs, _ := p["timeout"].(float64)
		ans, err = e.target.Wait(ctx, WaitRequest{Call: call, Participant: str(p["participant"]), Timeout: time.Duration(secs * float64(time.Second))})
	case "validate":
		ans, err = e.target.Validate(ctx, ValidateRequest{Call: call})
	default:
		return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("the acp suite has no tool %q", step.Name)}
	}
	if err != nil {
		return engine.Outcome{}, err
	}
	result := e.observe(ans, step.Name)
	result["changed"] = e.digest() != before
	out := engine.Outcome{OK: ans.Exit == 0, Result: engine.Normalize(result)}
	if ans.Exit != 0 {
		msg := strings.TrimSpace(e.scrub(ans.Stderr))
		if msg == "" {
			msg = strings.TrimSpace(e.scrub(ans.Stdout))
		}
		out.Rejection = &engine.Rejection{Reason: fmt.Sprintf("exit_%d", ans.Exit), Message: msg}
	}
	return out, nil
}

// scrub replaces the check's folder path with $FOLDER, so outputs compare
// across runs.
func (e *Executor) scrub(s string) string {
	for _, p := range []string{e.folder, e.root} {
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			s = strings.ReplaceAll(s, real, map[string]string{e.folder: "$FOLDER", e.root: "$ROOT"}[p])
		}
		s = strings.ReplaceAll(s, p, map[string]string{e.folder: "$FOLDER", e.root: "$ROOT"}[p])
	}
	return s
}

// observe builds the result document: the tool's exit and output, and the
// folder's state afterwards (its files, protocol.json, the event log's
// lines), with what follows from them (derive).
func (e *Executor) observe(ans Answer, tool string) map[string]any {
	stdout, stderr := e.scrub(ans.Stdout), e.scrub(ans.Stderr)
	r := map[string]any{"exit": ans.Exit, "stdout": stdout, "stderr": stderr}
	r["files"] = e.files()
	if raw, err := inputfile.Read(filepath.Join(e.folder, "protocol.json")); err == nil {
		if tool == "init" {
			r["protocol_text"] = string(raw) // the layout, as init writes it
		}
		var proto map[string]any
		if json.Unmarshal(raw, &proto) == nil {
			r["protocol"] = proto
		}
	}
	if raw, err := inputfile.Read(filepath.Join(e.folder, "events.jsonl")); err == nil {
		r["event_lines"] = splitLines(string(raw))
	}
	maps.Copy(r, derive(tool, engine.Normalize(r).(map[string]any)))
	return r
}

// Derived is what the result of a step holds that follows from the rest of
// it (engine.Vocabulary.Derived): a transcript records the folder's state
// once, and a replay rebuilds these from it.
func Derived(ex engine.Exchange) map[string]any {
	if ex.Outcome == nil {
		return nil
	}
	r, ok := engine.Normalize(ex.Outcome.Result).(map[string]any)
	if !ok {
		return nil
	}
	d := derive(ex.Name, r)
	if proto, ok := r["protocol"]; ok && ex.Name == "init" {
		// init's protocol.json as the upstream tools lay it out: keys
		// sorted, two spaces of indent, a final newline. A folder laid out
		// otherwise keeps its text in the transcript. Only init's result
		// holds the text (observe), so the other steps derive all that
		// Derived gives and their transcript lines say so with "*".
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if enc.Encode(proto) == nil {
			d["protocol_text"] = b.String()
		}
	}
	return d
}

// derive reads what a tool's output and the folder's state say: the
// validator's findings and the next action from the output; the phase,
// owner and waitingFor of protocol.json; the event log parsed, with its
// sequence numbers.
func derive(tool string, r map[string]any) map[string]any {
	d := map[string]any{}
	if stdout, ok := r["stdout"].(string); ok {
		lines := splitLines(stdout)
		switch tool {
		case "validate":
			errs, warns := []string{}, []string{}
			for _, l := range lines {
				if m, ok := strings.CutPrefix(l, "ERROR: "); ok {
					errs = append(errs, m)
				}
				if m, ok := strings.CutPrefix(l, "WARNING: "); ok {
					warns = append(warns, m)
				}
			}
			d["errors"], d["warnings"] = errs, warns
			if len(lines) > 0 {
				d["verdict"] = lines[0]
			}
		case "next", "wait":
			for _, l := range lines {
				if m, ok := strings.CutPrefix(l, "next action: "); ok {
					d["next_action"] = m
				}
				if m, ok := strings.CutPrefix(l, "ready: "); ok {
					d["ready"] = m
				}
			}
		}
	}
	if v, ok := r["protocol"]; ok {
		proto, _ := v.(map[string]any) // null when protocol.json holds null
		d["phase"], d["owner"], d["waitingFor"] = proto["currentPhase"], proto["proposalOwner"], proto["waitingFor"]
	}
	if v, ok := r["event_lines"]; ok {
		list, _ := v.([]any) // null when events.jsonl is empty
		events, seqs := []any{}, []any{}
		for _, v := range list {
			l, _ := v.(string)
			if strings.TrimSpace(l) == "" {
				continue
			}
			var ev map[string]any
			if json.Unmarshal([]byte(l), &ev) != nil {
				events = append(events, map[string]any{"unparsable": l})
				continue
			}
			events = append(events, ev)
			seqs = append(seqs, ev["seq"])
		}
		d["events"], d["seqs"] = events, seqs
		if len(seqs) > 0 {
			d["last_seq"] = seqs[len(seqs)-1]
		}
	}
	return d
}

// fileHash is the SHA-256 of a file of the folder as it is now ("" when
// there is none), for a freeze that records the deliverable's hash.
func (e *Executor) fileHash(name string) string {
	raw, err := inputfile.Read(filepath.Join(e.folder, filepath.FromSlash(name)))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// files lists the folder's files by their paths inside it, sorted.
func (e *Executor) files() []string {
	out := []string{}
	_ = filepath.WalkDir(e.folder, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(e.folder, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// digest fingerprints every file of the folder.
func (e *Executor) digest() string {
	h := sha256.New()
	var names []string
	_ = filepath.WalkDir(e.folder, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	for _, n := range names {
		raw, _ := inputfile.Read(n)
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(raw))
		h.Write(raw)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// control edits the folder as a participant (or a broken tool) would:
// write appends to or replaces a file, or removes it; fixture replaces the
// whole folder with the given files.
func (e *Executor) control(step engine.Step) (engine.Outcome, error) {
	p := step.Params
	switch step.Name {
	case "write":
		name := str(p["file"])
		if name == "" || strings.Contains(name, "..") || filepath.IsAbs(name) {
			return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("write needs a file name inside the folder, not %q", name)}
		}
		path := filepath.Join(e.folder, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: err}
		}
		var err error
		switch {
		case p["remove"] == true:
			err = os.Remove(path)
		case p["replace"] != nil:
			err = os.WriteFile(path, e.content(p["replace"]), 0o644)
		default:
			var f *os.File
			if f, err = os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				_, err = f.Write(e.content(p["append"]))
				err = errors.Join(err, f.Close())
			}
		}
		if err != nil {
			return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: err}
		}
	case "fixture":
		files, _ := p["files"].(map[string]any)
		if err := os.RemoveAll(e.folder); err != nil {
			return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: err}
		}
		if err := os.MkdirAll(e.folder, 0o755); err != nil {
			return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: err}
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			path := filepath.Join(e.folder, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: err}
			}
			if err := os.WriteFile(path, e.content(files[name]), 0o644); err != nil {
				return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: err}
			}
		}
	default:
		return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("the acp suite has no control %q", step.Name)}
	}
	return engine.Outcome{OK: true, Result: map[string]any{"written": true}}, nil
}

// content is the bytes a write or fixture puts in a file: the text, with
// the folder's completion gates for {{gates:checked}} and {{gates:open}},
// or the bytes of {"base64": …}.
func (e *Executor) content(v any) []byte {
	if m, ok := v.(map[string]any); ok {
		raw, _ := base64.StdEncoding.DecodeString(str(m["base64"]))
		return raw
	}
	s := str(v)
	if strings.Contains(s, "{{gates:") {
		var checked, open strings.Builder
		for _, g := range e.gates() {
			checked.WriteString("- [x] " + g + "\n")
			open.WriteString("- [ ] " + g + "\n")
		}
		s = strings.NewReplacer("{{gates:checked}}", checked.String(), "{{gates:open}}", open.String()).Replace(s)
	}
	return []byte(s)
}

// gates are the completion gates' texts in the folder's protocol.json.
func (e *Executor) gates() []string {
	raw, err := inputfile.Read(filepath.Join(e.folder, "protocol.json"))
	if err != nil {
		return nil
	}
	var proto struct {
		Gates []any `json:"completionGates"`
	}
	_ = json.Unmarshal(raw, &proto)
	var out []string
	for _, g := range proto.Gates {
		switch x := g.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			out = append(out, str(x["text"]))
		}
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return []string{}
	}
	return strings.Split(s, "\n")
}
