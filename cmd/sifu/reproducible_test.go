package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/runner"
)

// TestSourceDateEpochMakesEvidenceReproducible: with SOURCE_DATE_EPOCH set,
// two runs of a deterministic suite write byte-identical evidence and
// statements, dated by the variable and without durations; a malformed
// value is a usage error.
func TestSourceDateEpochMakesEvidenceReproducible(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1764460800") // 2025-11-30T00:00:00Z
	dirs := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	for _, dir := range dirs {
		if out, err := sifuCLI(t, "run", "-q", "--suite", "kcp", "--declare", dir); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	entries, err := os.ReadDir(dirs[0])
	if err != nil || len(entries) < 5 {
		t.Fatalf("%d files written (%v)", len(entries), err)
	}
	for _, e := range entries {
		a, errA := os.ReadFile(filepath.Join(dirs[0], e.Name()))
		b, errB := os.ReadFile(filepath.Join(dirs[1], e.Name()))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs (%v %v)", e.Name(), errA, errB)
		}
	}
	run, _, err := declaration.ReadResults(filepath.Join(dirs[0], "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if run.StartedAt != "2025-11-30T00:00:00Z" || run.DurationMS != 0 || run.Tests[0].DurationMS != 0 {
		t.Errorf("started_at %s, duration %d ms, first test %d ms", run.StartedAt, run.DurationMS, run.Tests[0].DurationMS)
	}
	d, err := declaration.Read(filepath.Join(dirs[0], "conformance.json"))
	if err != nil || d.Date != "2025-11-30" {
		t.Errorf("declaration dated %q (%v), want 2025-11-30", d.Date, err)
	}
	// A reproducible transcript keeps no elapsed time: a zero is not written.
	transcript, _ := os.ReadFile(filepath.Join(dirs[0], "transcript.jsonl"))
	if len(bytes.TrimSpace(transcript)) == 0 {
		t.Error("the transcript is empty: nothing to check for elapsed times")
	}
	if m := regexp.MustCompile(`"elapsed_ns":\d+`).FindString(string(transcript)); m != "" {
		t.Errorf("the transcript keeps an elapsed time: %s", m)
	}
	if _, err := sifuCLI(t, "verify", filepath.Join(dirs[0], "conformance.json")); err != nil {
		t.Errorf("the reproducible statement does not verify: %v", err)
	}

	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	_, err = sifuCLI(t, "run", "-q", "--suite", "kcp")
	var usage *runner.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "SOURCE_DATE_EPOCH") {
		t.Errorf("a malformed SOURCE_DATE_EPOCH: %v; want a usage error naming it", err)
	}
}
