package results

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/internal/engine"
)

func TestJUnitStatuses(t *testing.T) {
	run := &Run{Suite: "kungfu", Tests: []Test{
		{ID: "p", Status: engine.Pass}, {ID: "f", Status: engine.Fail, Message: "boom"},
		{ID: "w", Status: engine.Warn}, {ID: "u", Status: engine.Untestable}, {ID: "n", Status: engine.NotApplicable},
		{ID: "t", Status: engine.Timeout}, {ID: "h", Status: engine.HarnessError},
	}}
	var b bytes.Buffer
	if err := WriteJUnit(&b, run); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Suites[0]
	// Only what fails the run is red: fail is a failure; untestable,
	// timeout and harness_error are errors; warn and not_applicable skip.
	if s.Tests != 7 || s.Failures != 1 || s.Errors != 3 || s.Skipped != 2 {
		t.Fatalf("tests=%d failures=%d errors=%d skipped=%d", s.Tests, s.Failures, s.Errors, s.Skipped)
	}
}

// TestJUnitExpectedFailuresAreSkipped: a failure the expectations file
// expects is <skipped> with its entry and reason (the run exits 0, so the
// CI must stay green); a stale entry is a failing case of its own.
func TestJUnitExpectedFailuresAreSkipped(t *testing.T) {
	run := &Run{Suite: "kcp", StartedAt: "2026-12-01T10:00:00Z", Tests: []Test{
		{ID: "kcp/a/x", Source: "vectors/kcp/a.json#/checks/0", Status: engine.Fail, Message: "boom",
			Expected: &Expected{Entry: "KCP-1", Status: engine.Fail, Reason: "upstream bug 12"}},
		{ID: "kcp/b/y", Source: "features/kcp/b.feature:3", Status: engine.Pass},
	}, Summary: Summary{Fail: 1, Pass: 1, ExpectedFail: 1, Stale: 1},
		Expectations: &Expectations{File: "sifu.expect.yaml", Stale: []StaleEntry{{Entry: "KCP-2", Reason: "fixed since", Passed: []string{"kcp/b/y"}}}}}
	var b bytes.Buffer
	if err := WriteJUnit(&b, run); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Suites[0]
	if s.Failures != 1 || s.Skipped != 1 || s.Tests != 3 {
		t.Fatalf("tests=%d failures=%d skipped=%d:\n%s", s.Tests, s.Failures, s.Skipped, b.String())
	}
	x := s.Cases[0]
	if x.Failure != nil || x.Skipped == nil || !strings.Contains(x.Skipped.Message, "KCP-1") || !strings.Contains(x.Skipped.Message, "upstream bug 12") {
		t.Errorf("the expected failure is not skipped with its reason: %+v", x)
	}
	stale := s.Cases[2]
	if stale.Failure == nil || !strings.Contains(stale.Name, "KCP-2") {
		t.Errorf("the stale entry is not a failure: %+v", stale)
	}
	if s.Cases[0].Classname != "sifu.kcp.a" || s.Cases[1].Classname != "sifu.kcp.b" {
		t.Errorf("classnames %q %q, want one per check file", s.Cases[0].Classname, s.Cases[1].Classname)
	}
	if s.Timestamp != "2026-12-01T10:00:00" {
		t.Errorf("timestamp %q", s.Timestamp)
	}
}

// junitSchema is the shape of the strict JUnit schema CI tools validate
// against (Jenkins' junit-10.xsd): the attributes and children each
// element may have.
var junitSchema = map[string]struct{ attrs, children []string }{
	"testsuites": {[]string{"name", "time", "tests", "failures", "disabled", "errors"}, []string{"testsuite"}},
	"testsuite": {[]string{"name", "tests", "failures", "errors", "time", "disabled", "skipped", "timestamp", "hostname", "id", "package"},
		[]string{"properties", "testcase", "system-out", "system-err"}},
	"properties": {nil, []string{"property"}},
	"property":   {[]string{"name", "value"}, nil},
	"testcase":   {[]string{"name", "assertions", "time", "classname", "status"}, []string{"skipped", "error", "failure", "system-out", "system-err"}},
	"skipped":    {[]string{"message"}, nil},
	"error":      {[]string{"message", "type"}, nil},
	"failure":    {[]string{"message", "type"}, nil},
	"system-out": {nil, nil},
}

// TestJUnitKeepsToTheStrictSchema walks every element of a report with
// every status and checks it against junitSchema.
func TestJUnitKeepsToTheStrictSchema(t *testing.T) {
	run := &Run{Suite: "kungfu", StartedAt: "2026-12-01T10:00:00Z", Conditions: &Conditions{Mutant: "m"}, Tests: []Test{
		{ID: "p", Source: "f.feature:1", Status: engine.Pass}, {ID: "f", Source: "v.json#/checks/1", Status: engine.Fail, Message: "boom\nmore"},
		{ID: "w", Status: engine.Warn}, {ID: "u", Status: engine.Untestable}, {ID: "n", Status: engine.NotApplicable},
		{ID: "t", Status: engine.Timeout}, {ID: "h", Status: engine.HarnessError},
		{ID: "e", Status: engine.Fail, Expected: &Expected{Entry: "e", Status: engine.Fail, Reason: "r"}},
		{ID: "x", Status: engine.Timeout, Expected: &Expected{Entry: "x", Status: engine.Fail, Reason: "r"}},
	}, Expectations: &Expectations{Stale: []StaleEntry{{Entry: "s", Reason: "r", Passed: []string{"p"}}}}}
	var b bytes.Buffer
	if err := WriteJUnit(&b, run); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(&b)
	var stack []string
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch el := tok.(type) {
		case xml.StartElement:
			name := el.Name.Local
			shape, known := junitSchema[name]
			if !known {
				t.Errorf("element <%s> is not in the schema", name)
			}
			if len(stack) > 0 && !slices.Contains(junitSchema[stack[len(stack)-1]].children, name) {
				t.Errorf("<%s> may not hold <%s>", stack[len(stack)-1], name)
			}
			for _, a := range el.Attr {
				if !slices.Contains(shape.attrs, a.Name.Local) {
					t.Errorf("<%s> may not carry %s=%q", name, a.Name.Local, a.Value)
				}
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
}

// secretExec answers like the implementations of three suites at once: a
// Kungfu admission with its bearer secret, an exchange that records the
// HTTP headers it carried, and a KCP plan whose prohibited attempt names
// its token (an ordinary field: the path the attempt touched).
type secretExec struct{ token string }

func (e secretExec) Execute(_ context.Context, s engine.Step) (engine.Outcome, error) {
	switch s.Name {
	case "thread.admit":
		return engine.Outcome{OK: true, Result: map[string]any{"secret": "kfs_top", "thread": "t"}}, nil
	case "fetch":
		return engine.Outcome{OK: true, Result: map[string]any{"headers": map[string]any{
			"Authorization": "Bearer sk-live-1", "content-type": "application/json"}}}, nil
	case "plan":
		return engine.Outcome{OK: true, Result: map[string]any{"prohibitedAttempts": []any{
			map[string]any{"dimension": "paths", "token": e.token}}}}, nil
	}
	return engine.Outcome{OK: true}, nil
}

var secretVocabulary = engine.Vocabulary{Secrets: []engine.Place{
	{Op: engine.OpAct, Name: "thread.admit", Pointer: "/outcome/result/secret"},
	{Op: engine.OpAct, Name: "thread.join", Pointer: "/params/secret"},
	{Op: engine.OpRead, Name: "fetch", Pointer: "/outcome/result/headers", Headers: true},
}}

func secretCheck() engine.Check {
	return engine.Check{ID: "a", Steps: []engine.Step{
		{Source: "x", Op: engine.OpAct, Agent: "ada", Name: "thread.admit", Capture: map[string]string{"s": "/result/secret"}},
		{Source: "y", Op: engine.OpAct, Agent: "bob", Name: "thread.join", Params: map[string]any{"secret": "${s}"}},
		{Source: "z", Op: engine.OpRead, Name: "fetch", Expect: &engine.Expect{Match: []engine.Match{
			{Pointer: "/result/headers/Authorization", Matcher: map[string]any{"$regex": "^Bearer "}}}}},
		{Source: "w", Op: engine.OpAct, Name: "plan", Expect: &engine.Expect{Match: []engine.Match{
			// a pattern, not a literal: a value equal to a literal matcher
			// is left out as expected (engine.Exchange.Expected), and this
			// test is about what redaction keeps
			{Pointer: "/result/prohibitedAttempts/0/token", Matcher: map[string]any{"$regex": "^secrets/keys/a$"}}}}},
	}}
}

// TestTranscriptIsRedactedAndHashed: secrets are redacted where the suite
// declares them, a Kungfu admission secret where it is issued and where it
// is presented and an Authorization header; a field that merely bears a
// secret-sounding name (KCP's token) is written as it is, so the verdict
// judged again from the transcript is the one the run gave, and a wrong
// value there fails on re-judging too.
func TestTranscriptIsRedactedAndHashed(t *testing.T) {
	for _, tc := range []struct {
		token string
		want  engine.Status
	}{{"secrets/keys/a", engine.Pass}, {"secrets/keys/b", engine.Fail}} {
		check := secretCheck()
		v := engine.RunRecording(context.Background(), check, secretExec{token: tc.token}, secretVocabulary)
		if v.Status != tc.want {
			t.Fatalf("token %s: the run gives %s (%s), want %s", tc.token, v.Status, v.Message, tc.want)
		}
		run := &Run{Suite: "kungfu", Tests: []Test{{ID: "a", Status: v.Status, Transcript: v.Transcript}}}
		dir := t.TempDir()
		if err := WriteDir(dir, run); err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(filepath.Join(dir, "transcript.jsonl"))
		for _, secret := range []string{"kfs_top", "sk-live-1"} {
			if strings.Contains(string(raw), secret) {
				t.Fatalf("secret %s not redacted: %s", secret, raw)
			}
		}
		for _, kept := range []string{`"secret":"[redacted]"`, `"Authorization":"[redacted]"`, `"content-type":"application/json"`, `"token":"` + tc.token + `"`} {
			if !strings.Contains(string(raw), kept) {
				t.Fatalf("the transcript lacks %s: %s", kept, raw)
			}
		}
		if run.Tests[0].Lines == nil || *run.Tests[0].Lines != (LineRange{From: 1, To: 4}) || run.Transcript.Lines != 4 {
			t.Fatalf("line ranges: %+v %+v", run.Tests[0].Lines, run.Transcript)
		}
		if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != run.Transcript.SHA256 {
			t.Fatal("results.json does not record the SHA-256 of the transcript written")
		}
		back := &Run{Transcript: run.Transcript, Tests: []Test{{ID: "a", Lines: run.Tests[0].Lines}}}
		if err := LoadTranscript(filepath.Join(dir, "results.json"), back); err != nil {
			t.Fatal(err)
		}
		got, err := engine.Replay(context.Background(), check, back.Tests[0].Transcript)
		if err != nil || got.Verdict.Status != tc.want {
			t.Fatalf("token %s: judged again from the transcript: %+v %v, want %s", tc.token, got.Verdict, err, tc.want)
		}
	}
}

// TestTranscriptWritesRepeatedStateAsPatches: params or an outcome that
// repeat most of an earlier line's (a folder's growing event log, the same
// document written by two checks) are written as a JSON Patch of that line,
// whichever test it belongs to, and read back exactly; a patch that names no
// earlier line with such a value is refused, naming the line.
func TestTranscriptWritesRepeatedStateAsPatches(t *testing.T) {
	doc := map[string]any{"file": "spec.md", "replace": strings.Repeat("a paragraph of the deliverable\n", 8)}
	var events []any
	var tr []engine.Exchange
	for i := range 6 {
		events = append(events, map[string]any{"seq": float64(i + 1), "summary": strings.Repeat("an event of the log ", 5)})
		tr = append(tr, engine.Exchange{Source: "s", Op: engine.OpAct, Name: "append", Params: map[string]any{"n": float64(i)},
			Outcome: &engine.Outcome{OK: true, Result: map[string]any{"events": slices.Clone(events), "last_seq": float64(i + 1)}}})
	}
	tr = append(tr, engine.Exchange{Source: "s", Op: engine.OpRead, Name: "boom", Error: "broken", ErrorKind: "adapter"},
		engine.Exchange{Source: "s", Op: engine.OpControl, Name: "write", Params: doc, Outcome: &engine.Outcome{OK: true}})
	first := []engine.Exchange{tr[0], {Source: "s", Op: engine.OpControl, Name: "write", Params: doc, Outcome: &engine.Outcome{OK: true}}}
	run := &Run{Suite: "acp", Tests: []Test{{ID: "b", Status: engine.Pass, Transcript: first}, {ID: "a", Status: engine.Pass, Transcript: tr}}}
	dir := t.TempDir()
	if err := WriteDir(dir, run); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "transcript.jsonl"))
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if !strings.HasPrefix(lines[0], `{"test":"b",`) || strings.Contains(lines[1], `"test":`) || !strings.HasPrefix(lines[2], `{"test":"a",`) || strings.Contains(lines[3], `"test":`) {
		t.Fatalf("the first line of a test names it, and only the first:\n%s", raw)
	}
	if len(lines) != 10 || strings.Contains(lines[0], "_patch") || !strings.Contains(lines[2], `"outcome_patch":{"of":1,"ops":[]}`) ||
		!strings.Contains(lines[7], `"outcome_patch":{"of":7,`) || strings.Contains(lines[2], "params_patch") ||
		!strings.Contains(lines[9], `"params_patch":{"of":2,"ops":[]}`) || strings.Contains(lines[9], "paragraph") {
		t.Fatalf("the repeated values are not patches of the lines they repeat:\n%s", raw)
	}
	back := &Run{Transcript: run.Transcript, Tests: []Test{{ID: "b", Lines: run.Tests[0].Lines}, {ID: "a", Lines: run.Tests[1].Lines}}}
	if err := LoadTranscript(filepath.Join(dir, "results.json"), back); err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]engine.Exchange{first, tr} {
		w, _ := json.Marshal(want)
		got, _ := json.Marshal(back.Tests[i].Transcript)
		if string(got) != string(w) {
			t.Fatalf("read back:\n%s\nwant:\n%s", got, w)
		}
	}
	for _, tc := range []struct{ from, to, want string }{
		// Line 8 patching line 9, which comes after it.
		{`"outcome_patch":{"of":7,`, `"outcome_patch":{"of":9,`, "transcript.jsonl:8: /outcome_patch/of names line 9, which is no earlier line with an answer"},
		// Line 10 patching the params of line 9, which has none.
		{`"params_patch":{"of":2,`, `"params_patch":{"of":9,`, "transcript.jsonl:10: /params_patch/of names line 9, which is no earlier line with params"},
		// Test a's first line naming no test.
		{`{"test":"a",`, `{`, "transcript.jsonl:3 is the first line of a but names no test"},
	} {
		edited := strings.Replace(string(raw), tc.from, tc.to, 1)
		os.WriteFile(filepath.Join(dir, "transcript.jsonl"), []byte(edited), 0o644)
		sum := sha256.Sum256([]byte(edited))
		back.Transcript.SHA256 = hex.EncodeToString(sum[:])
		if err := LoadTranscript(filepath.Join(dir, "results.json"), back); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: %v", tc.want, err)
		}
	}
}

// TestRuleEvidenceIsWrittenOnce: results.json names a rule's checks only in
// each test's rules; reading it back gives every rule its evidence again,
// in the run's order.
func TestRuleEvidenceIsWrittenOnce(t *testing.T) {
	run := &Run{Suite: "kcp", Harness: This(), Tests: []Test{{ID: "b", Rules: []string{"R1", "R2"}}, {ID: "a", Rules: []string{"R1"}}},
		Rules: []Rule{{ID: "R1", Status: "pass", Evidence: []string{"b", "a"}}, {ID: "R2", Status: "pass", Evidence: []string{"b"}}, {ID: "R3", Status: "not_evidenced", Evidence: []string{}}}}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, run); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `"evidence"`) || len(run.Rules[0].Evidence) != 2 {
		t.Fatalf("results.json repeats the rules' checks, or writing took them from the run:\n%s", buf.String())
	}
	back, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]string{{"b", "a"}, {"b"}, {}} {
		if got := back.Rules[i].Evidence; !slices.Equal(got, want) || got == nil {
			t.Errorf("rule %s: evidence %#v, want %v", back.Rules[i].ID, got, want)
		}
	}
}

// TestTranscriptSplicesTexts: a text that an earlier line's differs from
// in a few places (a timestamp in an event line, a multi-byte character
// changed) is written as a splice of that text, each op short (a list),
// and read back exactly; a splice that cuts outside its text, splits a
// character or names no text, and an op of no known name or arity, are
// refused, naming the line and the op. An op written as an RFC 6902 object
// reads too.
func TestTranscriptSplicesTexts(t *testing.T) {
	line := func(at, who string) string {
		return `{"seq":1,"from":"` + who + `","event":"initialized","at":"2026-12-03T12:46:` + at + `Z","summary":"Collaboration workspace initialized","doc":"protocol.json"}`
	}
	ex := func(at, who string, n float64) engine.Exchange {
		return engine.Exchange{Source: "s", Op: engine.OpRead, Name: "log", Params: map[string]any{"n": n},
			Outcome: &engine.Outcome{OK: true, Result: map[string]any{"lines": []any{line(at, who), "a/b~c ünïcödé line of output that stays the same"}, "n": 1e21}}}
	}
	tr := []engine.Exchange{ex("58", "server", 1), ex("59", "server", 2), ex("59", "sérver", 3), ex("59", "sèrver", 4)}
	run := &Run{Suite: "acp", Tests: []Test{{ID: "a", Status: engine.Pass, Transcript: tr}}}
	dir := t.TempDir()
	if err := WriteDir(dir, run); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "transcript.jsonl"))
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], `["splice","/result/lines/0",71,1,"9"]`) ||
		!strings.Contains(lines[2], `["splice","/result/lines/0",18,1,"é"]`) ||
		!strings.Contains(lines[3], `["splice","/result/lines/0",18,1,"è"]`) {
		t.Fatalf("the changed texts are not written as splices:\n%s", raw)
	}
	back := &Run{Transcript: run.Transcript, Tests: []Test{{ID: "a", Lines: run.Tests[0].Lines}}}
	if err := LoadTranscript(filepath.Join(dir, "results.json"), back); err != nil {
		t.Fatal(err)
	}
	w, _ := json.Marshal(tr)
	if got, _ := json.Marshal(back.Tests[0].Transcript); string(got) != string(w) {
		t.Fatalf("read back:\n%s\nwant:\n%s", got, w)
	}
	for _, tc := range []struct{ from, to, want string }{
		{`0",71,1,`, `0",71,90,`, "transcript.jsonl:2: /outcome_patch does not apply to the outcome of line 1: op 0 (splice /result/lines/0): cuts bytes 71 to 161 of a 145-byte text"},
		{`"/result/lines/0",18,1,"è"`, `"/result/lines/1",7,1,"x"`, "transcript.jsonl:4: /outcome_patch does not apply to the outcome of line 2: op 0 (splice /result/lines/1): cuts a character of the text in two"},
		{`"/result/lines/0",71`, `"/result/n",71`, "transcript.jsonl:2: /outcome_patch does not apply to the outcome of line 1: op 0 (splice /result/n): the value there is not a text"},
		{`"/result/lines/0",71`, `"/result/lines/7",71`, `op 0 (splice /result/lines/7): there is no element "7"`},
		{`["splice",`, `["splise",`, `transcript.jsonl:2: /outcome_patch does not apply to the outcome of line 1: op 0: ["splise","/result/lines/0",71,1,"9"] names no operation a transcript patch has`},
		{`0",71,1,"9"]`, `0",71,1]`, `transcript.jsonl:2: /outcome_patch does not apply to the outcome of line 1: op 0: ["splice","/result/lines/0",71,1]: a splice is ["splice", path, at, cut, value]`},
		// The RFC 6902 object form of an op reads too, and is checked as much.
		{`["splice","/result/lines/0",71,1,"9"]`, `{"op":"splice","path":"/result/lines/0","at":71,"cut":90,"value":"9"}`, "transcript.jsonl:2: /outcome_patch does not apply to the outcome of line 1: op 0 (splice /result/lines/0): cuts bytes 71 to 161"},
		{`["splice","/result/lines/0",71,1,"9"]`, `{"op":"replace","path":"/result/lines/0","value":"x"}`, "transcript.jsonl:3: /outcome_patch does not apply to the outcome of line 2: op 0 (splice /result/lines/0): cuts bytes 18 to 19 of a 1-byte text"},
	} {
		edited := strings.Replace(string(raw), tc.from, tc.to, 1)
		if edited == string(raw) {
			t.Fatalf("%s: nothing to corrupt", tc.want)
		}
		os.WriteFile(filepath.Join(dir, "transcript.jsonl"), []byte(edited), 0o644)
		sum := sha256.Sum256([]byte(edited))
		back.Transcript.SHA256 = hex.EncodeToString(sum[:])
		if err := LoadTranscript(filepath.Join(dir, "results.json"), back); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: %v", tc.want, err)
		}
	}
}
