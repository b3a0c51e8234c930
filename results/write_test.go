package results

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/engine"
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
	if s.Tests != 7 || s.Failures != 2 || s.Errors != 2 || s.Skipped != 2 {
		t.Fatalf("tests=%d failures=%d errors=%d skipped=%d", s.Tests, s.Failures, s.Errors, s.Skipped)
	}
}

func TestTranscriptIsRedactedAndHashed(t *testing.T) {
	run := &Run{Suite: "kungfu", Tests: []Test{{ID: "a", Status: engine.Pass, Transcript: []engine.Exchange{
		{Source: "x", Op: engine.OpAct, Name: "thread.admit", Outcome: &engine.Outcome{OK: true, Result: map[string]any{"secret": "kfs_top", "thread": "t"}}},
		{Source: "y", Op: engine.OpRead, Name: "thread"},
	}}}}
	dir := t.TempDir()
	if err := WriteDir(dir, run); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "transcript.jsonl"))
	if strings.Contains(string(raw), "kfs_top") || !strings.Contains(string(raw), `"secret":"[redacted]"`) {
		t.Fatalf("secret not redacted: %s", raw)
	}
	if run.Tests[0].Lines == nil || *run.Tests[0].Lines != (LineRange{From: 1, To: 2}) || run.Transcript.Lines != 2 {
		t.Fatalf("line ranges: %+v %+v", run.Tests[0].Lines, run.Transcript)
	}
}
