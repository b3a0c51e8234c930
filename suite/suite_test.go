package suite_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func reference() (kungfu.Target, error) { return kungfuinproc.New() }

// TestTheEntryGivesTheVerdictsOfARun: the public entry runs every check
// sifu run runs, as a subtest named by its ID, gives each the verdict a
// run gives it, folds the rules alike, records as many exchanges, and
// writes the same files.
func TestTheEntryGivesTheVerdictsOfARun(t *testing.T) {
	dir := t.TempDir()
	t.Run("entry", func(t *testing.T) {
		kungfu.Test(t, reference, suite.Out(dir), suite.Profiles("memory", "thread"))
	})
	for _, f := range []string{"results.json", "junit.xml", "cucumber.json", "transcript.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the entry wrote no %s: %v", f, err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := results.ReadJSON(bytes.NewReader(raw)) // rebuilds each rule's checks
	if err != nil {
		t.Fatal(err)
	}
	entry := *back
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	run, err := plan.Run(context.Background(), runner.Config{Target: kungfu.RunTarget{New: suite.Factory(reference)},
		TargetName: "inproc", Profiles: []string{"memory", "thread"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(entry.Tests) != len(run.Tests) || entry.Summary != run.Summary {
		t.Fatalf("the entry ran %d checks (%+v), sifu run %d (%+v)", len(entry.Tests), entry.Summary, len(run.Tests), run.Summary)
	}
	for i, e := range entry.Tests {
		r := run.Tests[i]
		if e.ID != r.ID || e.Status != r.Status || !slices.Equal(e.Rules, r.Rules) || lines(e) != len(r.Transcript) {
			t.Errorf("check %s: the entry says %s with %d exchange(s), the run %s %s with %d", e.ID, e.Status, lines(e), r.ID, r.Status, len(r.Transcript))
		}
	}
	if len(entry.Rules) != len(run.Rules) {
		t.Fatalf("the entry folds %d rules, the run %d", len(entry.Rules), len(run.Rules))
	}
	for i, e := range entry.Rules {
		if r := run.Rules[i]; e.ID != r.ID || e.Status != r.Status || !slices.Equal(e.Evidence, r.Evidence) {
			t.Errorf("rule %s: the entry says %s, the run %s", e.ID, e.Status, r.Status)
		}
	}
}

// lines is how many transcript lines a test's range holds.
func lines(t results.Test) int {
	if t.Lines == nil {
		return 0
	}
	return t.Lines.To - t.Lines.From + 1
}
