package knownfail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/schema"
)

func load(t *testing.T, yaml string) (*File, []byte, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sifu.expect.yaml")
	os.WriteFile(p, []byte(yaml), 0o644)
	return Load(p)
}

func run() *results.Run {
	r := &results.Run{Suite: "kungfu", Tests: []results.Test{
		{ID: "kungfu/x/leaks", Rules: []string{"KF-12-07"}, Status: engine.Fail},
		{ID: "kungfu/x/fine", Rules: []string{"KF-5-02"}, Status: engine.Pass},
	}}
	for _, t := range r.Tests {
		r.Summary.Add(t.Status)
	}
	return r
}

func TestExpectedFailuresAndStaleEntries(t *testing.T) {
	cat, err := catalogue.Load(sifu.Assets, "vectors/kungfu/rules.json", schema.NewSet(sifu.Assets, "vectors/schema"))
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"kungfu/x/leaks", "kungfu/x/fine"}
	f, raw, err := load(t, "suite: kungfu\nexpected_failures:\n  - id: KF-12-07\n    reason: our API answers 403 for private objects\n")
	if err != nil {
		t.Fatal(err)
	}
	r := run()
	if err := Apply(f, raw, "sifu.expect.yaml", r, cat, ids); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Failed() || r.Tests[0].Expected == nil || r.Summary.ExpectedFail != 1 {
		t.Fatalf("an expected failure must not fail the run: %+v", r.Summary)
	}

	f, raw, _ = load(t, "expected_failures:\n  - id: kungfu/x/fine\n    reason: was broken last week\n")
	r = run()
	if err := Apply(f, raw, "sifu.expect.yaml", r, cat, ids); err != nil {
		t.Fatal(err)
	}
	if !r.Summary.Failed() || r.Summary.Stale != 1 {
		t.Fatalf("an entry whose checks pass is stale and fails the run: %+v", r.Summary)
	}

	for yaml, want := range map[string]string{
		"expected_failures:\n  - id: KF-12-07\n":                            "no reason",
		"expected_failures:\n  - id: KF-12-07\n    reason: x\n    why: y\n": "field why not found",
		"expected_failures:\n  - id: KF-99\n    reason: x\n":                "neither a check ID nor a rule ID",
	} {
		f, raw, err := load(t, yaml)
		if err == nil {
			err = Apply(f, raw, "sifu.expect.yaml", run(), cat, ids)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want an error containing %q, got %v", yaml, want, err)
		}
	}
}

func TestUpdateKeepsReasons(t *testing.T) {
	r := run()
	f := Update(r, &File{ExpectedFailures: []Entry{{ID: "kungfu/x/leaks", Reason: "known"}}})
	if len(f.ExpectedFailures) != 1 || f.ExpectedFailures[0].Reason != "known" {
		t.Fatalf("%+v", f)
	}
	if f = Update(r, nil); !strings.HasPrefix(f.ExpectedFailures[0].Reason, "TODO") {
		t.Fatalf("%+v", f)
	}
}

// TestTodoReasonIsRefused: the TODO reason that `expect update` writes for
// a new entry is not a reason: loading the file fails until it is replaced.
func TestTodoReasonIsRefused(t *testing.T) {
	raw, err := Marshal(Update(run(), nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := load(t, string(raw)); err == nil || !strings.Contains(err.Error(), "TODO") {
		t.Fatalf("a file with a TODO reason loaded: %v", err)
	}
}
