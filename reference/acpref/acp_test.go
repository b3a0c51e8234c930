package acpref

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var epoch = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func newTools(opts ...func(*Options)) *Tools {
	o := Options{Now: func() time.Time { return epoch }, NoSync: true}
	for _, f := range opts {
		f(&o)
	}
	return New(o)
}

func initFolder(t testing.TB, tools *Tools, participants ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "collab")
	if len(participants) == 0 {
		participants = []string{"server", "reader"}
	}
	if _, err := tools.Init(dir, InitRequest{Participants: participants, Objective: "o", Completion: []string{"g"}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func one(n int) *int { return &n }

// TestHelperProcess is not a test: the concurrency test starts the test
// binary again as one participant appending through the command line.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("ACP_HELPER") != "1" {
		t.Skip("helper process only")
	}
	args := strings.Split(os.Getenv("ACP_ARGS"), "\x1f")
	os.Exit(New(Options{}).Main(context.Background(), "acp", args, os.Stdout, os.Stderr))
}

// TestConcurrentProcessAppends: many processes append at the same moment;
// the lock on the folder keeps every seq exactly once and in order, and the
// folder stays valid.
func TestConcurrentProcessAppends(t *testing.T) {
	tools := newTools()
	participants := []string{"owner"}
	for i := 0; i < 12; i++ {
		participants = append(participants, fmt.Sprintf("p%02d", i))
	}
	dir := initFolder(t, tools, participants...)
	start := make(chan struct{})
	var wg sync.WaitGroup
	codes := make([]int, len(participants))
	for i, p := range participants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
			cmd.Env = append(os.Environ(), "ACP_HELPER=1", "ACP_ARGS="+strings.Join([]string{"append", "--folder", dir,
				"--participant", p, "--event", "blocked", "--summary", p + " blocks", "--reply-to", "1"}, "\x1f"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if ee, ok := err.(*exec.ExitError); ok {
				codes[i] = ee.ExitCode()
			} else if err != nil {
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Errorf("%s: exit %d", participants[i], c)
		}
	}
	read, err := ReadEvents(dir, false)
	if err != nil || len(read.Problems) > 0 {
		t.Fatal(err, read.Messages())
	}
	events := read.Events
	if len(events) != len(participants)+1 {
		t.Fatalf("%d events, want %d", len(events), len(participants)+1)
	}
	seen := map[string]bool{}
	for i, e := range events {
		if n, _ := e.Seq(); n != i+1 {
			t.Errorf("line %d has seq %d", i+1, n)
		}
		if i > 0 {
			if seen[e.Str("from")] {
				t.Errorf("%s appended twice", e.Str("from"))
			}
			seen[e.Str("from")] = true
		}
	}
	if r := tools.Validate(dir); r.Exit() != 0 {
		t.Errorf("the folder does not validate:\n%s", r.Text())
	}
}

// TestCrashMidAppendLeavesAValidFolder: a crash after the new event log is
// written but before it replaces the old one leaves the old, valid folder
// (and a stray temporary file the validator ignores); a crash between the
// event log and protocol.json leaves a whole log that the next append
// brings protocol.json back in line with.
func TestCrashMidAppendLeavesAValidFolder(t *testing.T) {
	tools := newTools()
	dir := initFolder(t, tools)
	before, _ := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	crashPoint = func(name string) bool { return name == "events.jsonl" }
	_, err := tools.Append(dir, AppendRequest{Participant: "server", Event: "proposal_submitted", Summary: "s", ReplyTo: one(1)})
	crashPoint = nil
	if err == nil {
		t.Fatal("the planted crash did not happen")
	}
	after, _ := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if !bytes.Equal(before, after) {
		t.Fatalf("a crash before the rename changed events.jsonl:\n%s", after)
	}
	if r := tools.Validate(dir); r.Exit() != 0 {
		t.Fatalf("after a crash before the rename:\n%s", r.Text())
	}
	crashPoint = func(name string) bool { return name == "protocol.json" }
	_, err = tools.Append(dir, AppendRequest{Participant: "server", Event: "proposal_submitted", Summary: "s", ReplyTo: one(1)})
	crashPoint = nil
	if err == nil {
		t.Fatal("the planted crash did not happen")
	}
	read, err := ReadEvents(dir, false)
	if err != nil || len(read.Events) != 2 || len(read.Problems) > 0 {
		t.Fatalf("after a crash between the files the log must hold 2 whole events: %v %d", err, len(read.Events))
	}
	r := tools.Validate(dir)
	if r.Exit() != 2 || !strings.Contains(r.Text(), "protocol.json currentPhase is drafting, expected reviewing") {
		t.Fatalf("the stale protocol.json must be reported:\n%s", r.Text())
	}
	if _, err := tools.Append(dir, AppendRequest{Participant: "reader", Event: "review_submitted", Summary: "s", ReplyTo: one(2)}); err != nil {
		t.Fatal(err)
	}
	proto, _ := ReadProtocol(dir)
	if proto.Str("currentPhase") != PhaseRevising {
		t.Fatalf("the next append must rewrite protocol.json from the log, got %v", proto["currentPhase"])
	}
}

// TestTornLastLineIsKept: a last line without its newline (a foreign
// tool's crash) is never glued to the next event.
func TestTornLastLineIsKept(t *testing.T) {
	tools := newTools()
	dir := initFolder(t, tools)
	path := filepath.Join(dir, "events.jsonl")
	raw, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.TrimRight(raw, "\n"), 0o644)
	if _, err := tools.Append(dir, AppendRequest{Participant: "server", Event: "proposal_submitted", Summary: "s", ReplyTo: one(1)}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.HasPrefix(after, raw) || bytes.Count(after, []byte("\n")) != 2 {
		t.Fatalf("events.jsonl:\n%s", after)
	}
}

// TestWaitWakesOnChange: wait blocks on the folder's notifications and
// returns as soon as another participant's append makes it the waiter's
// turn, well before its timeout and its (hour-long) fallback poll.
func TestWaitWakesOnChange(t *testing.T) {
	tools := newTools()
	dir := initFolder(t, tools)
	stdout := &signalWriter{wrote: make(chan string, 16)}
	var stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- tools.Wait(context.Background(), dir, WaitRequest{Participant: "reader", Timeout: time.Hour, Interval: time.Hour}, stdout, &stderr)
	}()
	// The waiter prints its first waiting line once it is watching.
	if line := <-stdout.wrote; !strings.Contains(line, "waiting: waiting for server after seq 1") {
		t.Fatalf("first line %q", line)
	}
	if _, err := tools.Append(dir, AppendRequest{Participant: "server", Event: "proposal_submitted", Summary: "s", ReplyTo: one(1)}); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(stdout.String(), "ready: reader is listed in waitingFor") {
			t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("wait did not wake up on the append")
	}
}

// signalWriter records what is written and announces each write.
type signalWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan string
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	w.mu.Unlock()
	select {
	case w.wrote <- string(p):
	default:
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestWaitTimeoutsAndDefaults: the 30-minute default, "0" waiting forever,
// a negative timeout ending after the first look, and virtual time.
func TestWaitTimeoutsAndDefaults(t *testing.T) {
	if DefaultWaitTimeout != 30*time.Minute {
		t.Fatal("the default wait timeout must be 30 minutes")
	}
	var asked []time.Duration
	tools := newTools(func(o *Options) {
		o.After = func(d time.Duration) <-chan time.Time {
			asked = append(asked, d)
			ch := make(chan time.Time, 1)
			ch <- epoch
			return ch
		}
	})
	dir := initFolder(t, tools)
	var out, errs bytes.Buffer
	if code := tools.Main(context.Background(), "acp", []string{"wait", "--folder", dir, "--participant", "reader"}, &out, &errs); code != 1 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if len(asked) != 1 || asked[0] != DefaultWaitTimeout {
		t.Fatalf("wait asked for timeouts %v, want [30m]", asked)
	}
	if !strings.HasPrefix(errs.String(), "timeout: waiting for server after seq 1") {
		t.Fatalf("stderr: %q", errs.String())
	}
	errs.Reset()
	if code := tools.Wait(context.Background(), dir, WaitRequest{Participant: "reader", Timeout: -time.Second}, &out, &errs); code != 1 {
		t.Fatalf("a negative timeout must time out after one look, exit %d", code)
	}
	asked = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code := tools.Wait(ctx, dir, WaitRequest{Participant: "reader", Timeout: 0}, &out, &errs); code != 1 || len(asked) != 0 {
		t.Fatalf("timeout 0 waits without a timer (asked %v), exit %d", asked, code)
	}
}

func TestParseTimestamp(t *testing.T) {
	for in, want := range map[string]bool{
		"2026-03-02T09:00:00Z": true, "2026-03-02T09:00:00+08:00": true, "2026-03-02 09:00:00.123456+00:00": true,
		"20260302T090000Z": true, "2026-03-02T09:00Z": true, "2026-03-02": false, "2026-03-02T09:00:00": false,
		"yesterday": false, "2026-02-30T00:00:00Z": false, "": false,
	} {
		ts, ok := ParseTimestamp(in)
		if (ok && ts.Aware) != want {
			t.Errorf("%q: aware %v, want %v", in, ok && ts.Aware, want)
		}
	}
}

func TestPlaceholders(t *testing.T) {
	for in, want := range map[string]bool{"TBD": true, "a todo here": true, "Unresolved.": true, "结果 待定": true,
		"TODOS": false, "xTBD": false, "resolved": false, "_TBD": false} {
		if got := hasPlaceholder(in); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

func TestPyRepr(t *testing.T) {
	for in, want := range map[string]string{"a": "'a'", "it's": `"it's"`, `both'"`: `'both\'"'`} {
		if got := PyRepr(in); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
	if got := PyRepr([]string{"a", "b"}); got != "['a', 'b']" {
		t.Errorf("list: %s", got)
	}
}

// FuzzValidate: whatever protocol.json, events.jsonl and readiness.md
// hold, validation ends with a verdict, never a panic, and never changes
// the folder.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{"currentPhase":"drafting","participants":[{"id":"a"}],"objective":"o","completionGates":["g"],"proposalOwner":"a","waitingFor":["a"]}`),
		[]byte(`{"seq":1,"from":"a","event":"initialized","at":"2026-03-02T09:00:00Z","summary":"s"}`+"\n"), []byte("- [unresolved] TBD\n"))
	f.Add([]byte(`{"participants":["a",1,{"id":2}],"waitingFor":"a","completionGates":[null]}`),
		[]byte(`{"seq":true,"from":1,"event":["x"],"at":5,"reply_to":"1"}`+"\n"+`{"seq":1e400}`+"\n[]\n"), []byte("- [x]\n"))
	f.Add([]byte(`[]`), []byte("\x00\xff\n{"), []byte(""))
	f.Fuzz(func(t *testing.T, proto, events, readiness []byte) {
		dir := t.TempDir()
		for name, data := range map[string][]byte{"protocol.json": proto, "events.jsonl": events, "readiness.md": readiness,
			"review.md": []byte("## t - a - seq 1\n"), "conclusion.md": []byte("- [proceed] x\n")} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tools := newTools()
		r := tools.Validate(dir)
		if r.Exit() < 0 || r.Exit() > 2 {
			t.Fatalf("exit %d", r.Exit())
		}
		_ = r.Text()
		_ = r.JSON()
		_, _ = tools.Next(dir, "a")
		got, _ := os.ReadFile(filepath.Join(dir, "events.jsonl"))
		if !bytes.Equal(got, events) {
			t.Fatal("validation changed events.jsonl")
		}
	})
}

func TestPythonValues(t *testing.T) {
	if got := pySplitlines("a\u2028b\r\nc\u0085d\re"); strings.Join(got, "|") != "a|b|c|d|e" {
		t.Errorf("splitlines: %q", got)
	}
	for in, want := range map[float64]string{3: "3.0", 0.5: "0.5", 1e16: "1e+16", 1.5e-5: "1.5e-05", -2: "-2.0"} {
		if got := pyFloat(in); got != want {
			t.Errorf("repr(%v) = %s, want %s", in, got, want)
		}
	}
	one, oneF, yes := json.Number("1"), json.Number("1.0"), true
	if !pyEq(one, oneF) || !pyEq(one, yes) || pyEq(one, "1") {
		t.Error("1 == 1.0 == True, and 1 != '1'")
	}
	if _, ok := pyInt(oneF); ok {
		t.Error("1.0 is not an int")
	}
	if n, ok := pyInt(yes); !ok || n != 1 {
		t.Error("True is the int 1")
	}
}

// TestEventLinesByMode: strict reading splits at "\n" and reports a raw
// separator with its line; compat reading splits as splitlines() does.
func TestEventLinesByMode(t *testing.T) {
	raw := []byte(`{"seq":1,"summary":"a` + "\u2028" + `b"}` + "\n")
	strict := ParseEvents(raw, false)
	if len(strict.Events) != 1 || len(strict.Problems) != 1 || strict.Problems[0].Rule != "ACP-STRICT-RAW-SEPARATOR" || strict.Problems[0].Line != 1 {
		t.Errorf("strict: %d events, %v", len(strict.Events), strict.Messages())
	}
	compat := ParseEvents(raw, true)
	if len(compat.Events) != 0 || len(compat.Problems) != 2 || !strings.HasPrefix(compat.Problems[1].Message, "events.jsonl line 2: invalid JSON") {
		t.Errorf("compat: %d events, %v", len(compat.Events), compat.Messages())
	}
	bad := ParseEvents([]byte("{\"seq\":1}\n{\"s\":\"\xff\"}\n"), false)
	if len(bad.Problems) != 1 || !strings.HasPrefix(bad.Problems[0].Message, "events.jsonl line 2: not valid UTF-8") {
		t.Errorf("invalid UTF-8: %v", bad.Messages())
	}
}

// TestToolsEscapeSeparators: what append writes, any line-splitting reader
// reads back.
func TestToolsEscapeSeparators(t *testing.T) {
	tools := newTools()
	dir := initFolder(t, tools)
	if _, err := tools.Append(dir, AppendRequest{Participant: "reader", Event: "blocked", Summary: "a\u0085b\u2028c\u2029d", ReplyTo: one(1)}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if strings.ContainsAny(string(raw), "\u0085\u2028\u2029") || len(pySplitlines(string(raw))) != 2 {
		t.Fatalf("raw separators written:\n%q", raw)
	}
	if r := New(Options{Compat: true}).Validate(dir); r.Exit() != 0 {
		t.Fatalf("compat validation:\n%s", r.Text())
	}
}

// TestV2RoundTrip: a v2 folder from init through a frozen deliverable.
func TestV2RoundTrip(t *testing.T) {
	tools := newTools()
	dir := filepath.Join(t.TempDir(), "collab")
	res, err := tools.Init(dir, InitRequest{Participants: []string{"server", "reader"}, Objective: "o", Completion: []string{"g"}, PrimaryType: "adr"})
	if err != nil || res.Schema != SchemaV2 {
		t.Fatal(err, res.Schema)
	}
	proto, _ := ReadProtocol(dir)
	if proto.SchemaOf() != SchemaV2 || proto.PrimaryRef() != "deliverables/adr.md" || len(proto.Gates()) != 7 {
		t.Fatalf("protocol: %v %v %v", proto.SchemaOf(), proto.PrimaryRef(), proto.Gates())
	}
	if r := tools.Validate(dir); r.Exit() != 0 {
		t.Fatalf("fresh v2 folder:\n%s", r.Text())
	}
	if _, err := tools.Append(dir, AppendRequest{Participant: "server", Event: "proposal_submitted", Summary: "s", ReplyTo: one(1)}); err == nil ||
		!strings.Contains(err.Error(), "proposal_submitted requires prior primary deliverable_drafted") {
		t.Fatalf("proposal before the draft: %v", err)
	}
	if _, err := tools.Append(dir, AppendRequest{Participant: "server", Event: "deliverable_drafted", Summary: "s", ReplyTo: one(1), Doc: "deliverables/adr.md", Role: "primary"}); err != nil {
		t.Fatal(err)
	}
	if r := New(Options{Schema: SchemaV1, NoSync: true}).Validate(dir); r.Exit() != 2 {
		t.Fatalf("a v2 log under the v1 validator must fail (unknown event):\n%s", r.Text())
	}
}
