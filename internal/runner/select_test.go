package runner_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kcpinproc"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// TestCheckPatterns: --check keeps the checks whose ID matches a pattern,
// * crossing slashes; the selection is recorded; a pattern that matches
// nothing is a usage error, never an empty green run.
func TestCheckPatterns(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	target := targetOf(kcpinproc.Reference{})
	ids := func(patterns ...string) ([]string, error) {
		r, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "t", Checks: patterns})
		if err != nil {
			return nil, err
		}
		if !slices.Equal(r.Selection.Checks, patterns) {
			t.Errorf("selection records %v, want %v", r.Selection.Checks, patterns)
		}
		var out []string
		for _, tc := range r.Tests {
			out = append(out, tc.ID)
		}
		return out, nil
	}

	got, err := ids("kcp/gate-cascade-first-failing")
	if err != nil || !slices.Equal(got, []string{"kcp/gate-cascade-first-failing"}) {
		t.Errorf("exact ID: %v, %v", got, err)
	}
	got, err = ids("*budget*", "kcp/gate-cascade-first-f?iling")
	if err != nil || len(got) < 3 || !slices.Contains(got, "kcp/gate-cascade-first-failing") {
		t.Errorf("patterns: %v, %v", got, err)
	}
	for _, id := range got {
		if !strings.Contains(id, "budget") && id != "kcp/gate-cascade-first-failing" {
			t.Errorf("%s matches neither pattern", id)
		}
	}
	all, err := ids("*")
	if err != nil || len(all) != len(plan.Checks) {
		t.Errorf("*: %d checks, want all %d (%v)", len(all), len(plan.Checks), err)
	}
	for _, bad := range [][]string{{"kcp/no-such-check"}, {"kcp/gate-cascade-first-failing/"}, {" "}, {"kcp.gate-cascade-first-failing"}} {
		_, err := ids(bad...)
		var usage *runner.UsageError
		if !errors.As(err, &usage) {
			t.Errorf("--check %q: %v; want a usage error", bad, err)
		}
	}
}

// TestFoldKeepsTheCheckSelection: folding a run chosen with --check (as a
// merge of such shards does) gives the rule verdicts the run gave; a fold
// that forgot the selection would call every unselected rule untested as
// if the whole suite had run.
func TestFoldKeepsTheCheckSelection(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	r, err := plan.Run(context.Background(), runner.Config{Target: targetOf(kcpinproc.Reference{}), TargetName: "t", Checks: []string{"*budget*"}})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint(r.Rules)
	if err := plan.Fold(r); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(r.Rules); got != want {
		t.Errorf("folded rule verdicts differ from the run's:\n got %s\nwant %s", got, want)
	}
	for _, rule := range r.Rules {
		if len(rule.Evidence) == 0 {
			t.Errorf("rule %s has no check in the selection, yet it is folded (%s)", rule.ID, rule.Status)
		}
	}
}
