package results

import (
	"testing"

	"github.com/sifu-dev/sifu/internal/engine"
)

func TestDiff(t *testing.T) {
	old := &Run{Suite: "kungfu",
		Tests: []Test{{ID: "a", Status: engine.Pass}, {ID: "b", Status: engine.Fail}, {ID: "gone", Status: engine.Pass}},
		Rules: []Rule{{ID: "R-1", Status: RulePass}, {ID: "R-2", Status: RuleFail}}}
	cur := &Run{Suite: "kungfu",
		Tests: []Test{{ID: "a", Status: engine.Fail}, {ID: "b", Status: engine.Pass}, {ID: "new", Status: engine.Pass}},
		Rules: []Rule{{ID: "R-1", Status: RuleFail}, {ID: "R-2", Status: RulePass}}}
	d, err := Diff(old, cur)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Regressed() || len(d.Regressions) != 1 || d.Regressions[0].ID != "a" || len(d.NewPasses) != 1 ||
		len(d.RuleRegressions) != 1 || len(d.RuleNewPasses) != 1 || d.Added[0] != "new" || d.Removed[0] != "gone" {
		t.Fatalf("%+v", d)
	}
	if _, err := Diff(old, &Run{Suite: "acp"}); err == nil {
		t.Error("runs of different suites must not be compared")
	}
}
