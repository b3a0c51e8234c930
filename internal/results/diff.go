package results

import (
	"fmt"
	"io"
	"sort"

	"github.com/sifu-dev/sifu/internal/engine"
)

// Change is one check or rule whose status differs between two runs.
type Change struct {
	ID   string `json:"id"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Delta compares two runs of the same suite.
type Delta struct {
	Regressions     []Change `json:"regressions"`      // checks that passed and no longer do
	NewPasses       []Change `json:"new_passes"`       // checks that pass now and did not
	RuleRegressions []Change `json:"rule_regressions"` // rules that passed and no longer do
	RuleNewPasses   []Change `json:"rule_new_passes"`
	Added           []string `json:"added"`   // checks only in the new run
	Removed         []string `json:"removed"` // checks only in the old run
}

// Diff compares an old and a new run. Both must be of the same suite.
func Diff(old, cur *Run) (*Delta, error) {
	if old.Suite != cur.Suite {
		return nil, fmt.Errorf("/suite: the runs are of different suites (%q and %q)", old.Suite, cur.Suite)
	}
	d := &Delta{}
	before := map[string]engine.Status{}
	for _, t := range old.Tests {
		before[t.ID] = t.Status
	}
	seen := map[string]bool{}
	for _, t := range cur.Tests {
		seen[t.ID] = true
		was, ok := before[t.ID]
		switch {
		case !ok:
			d.Added = append(d.Added, t.ID)
		case was == engine.Pass && t.Status != engine.Pass && t.Status != engine.NotApplicable:
			d.Regressions = append(d.Regressions, Change{t.ID, string(was), string(t.Status)})
		case was != engine.Pass && t.Status == engine.Pass:
			d.NewPasses = append(d.NewPasses, Change{t.ID, string(was), string(t.Status)})
		}
	}
	for id := range before {
		if !seen[id] {
			d.Removed = append(d.Removed, id)
		}
	}
	rules := map[string]string{}
	for _, r := range old.Rules {
		rules[r.ID] = r.Status
	}
	for _, r := range cur.Rules {
		was, ok := rules[r.ID]
		switch {
		case ok && was == RulePass && r.Status != RulePass && r.Status != RuleNotApplicable:
			d.RuleRegressions = append(d.RuleRegressions, Change{r.ID, was, r.Status})
		case ok && was != RulePass && r.Status == RulePass:
			d.RuleNewPasses = append(d.RuleNewPasses, Change{r.ID, was, r.Status})
		}
	}
	sort.Strings(d.Removed)
	return d, nil
}

// Regressed reports whether anything that passed no longer does.
func (d *Delta) Regressed() bool { return len(d.Regressions)+len(d.RuleRegressions) > 0 }

// WriteText prints the delta for people: regressions first, then new
// passes, checks added and removed, and the counts.
func (d *Delta) WriteText(w io.Writer) {
	section := func(title string, cs []Change) {
		for _, c := range cs {
			fmt.Fprintf(w, "%-16s %s: %s → %s\n", title, c.ID, c.From, c.To)
		}
	}
	section("REGRESSION", d.Regressions)
	section("RULE REGRESSION", d.RuleRegressions)
	section("new pass", d.NewPasses)
	section("rule new pass", d.RuleNewPasses)
	for _, id := range d.Added {
		fmt.Fprintf(w, "%-16s %s\n", "added", id)
	}
	for _, id := range d.Removed {
		fmt.Fprintf(w, "%-16s %s\n", "removed", id)
	}
	fmt.Fprintf(w, "%d regression(s), %d rule regression(s), %d new pass(es), %d added, %d removed\n",
		len(d.Regressions), len(d.RuleRegressions), len(d.NewPasses), len(d.Added), len(d.Removed))
}
