package runner

import (
	"testing"

	"github.com/sifu-dev/sifu/internal/engine"
)

func TestMatchTags(t *testing.T) {
	tags := []string{"scenario", "replay", "KF-L3-02", "a b", "x(y)"}
	for expr, want := range map[string]bool{
		"":                     true,
		"@replay":              true,
		"~@replay":             false,
		"@slow,@replay":        true,
		"@replay && ~@slow":    true,
		"@replay && @KF-L3-03": false,
		"@KF-L3-02":            true,
		// Cucumber's tag expressions.
		"not @replay":                              false,
		"@replay and not @slow":                    true,
		"@slow or @replay":                         true,
		"(@slow or @replay) and @KF-L3-03":         false,
		"not (@slow or @fast)":                     true,
		"not not @replay":                          true,
		"@scenario and (@replay or @x) and not @y": true,
		`@a\ b`:                             true,
		`@x\(y\)`:                           true,
		"@slow or not @replay or @KF-L3-02": true,
	} {
		if got := MatchTags(expr, tags); got != want {
			t.Errorf("%q: got %v", expr, got)
		}
	}
	if MatchTags("@slow or @replay and @KF-L3-03", tags) {
		t.Error("and must bind tighter than or")
	}
	for _, bad := range []string{"replay", "@a and", "(@a or @b", "@a @b", "@a and ~@b", "or @a", `@a\`, `@a\b`, "@a,,@b", "not", "@a )"} {
		if ValidTagExpr(bad) == "" {
			t.Errorf("%q was accepted", bad)
		}
	}
	for _, good := range []string{"@a && ~@b,@c", "@a and not (@b or @c)", `@with\ space`} {
		if msg := ValidTagExpr(good); msg != "" {
			t.Errorf("%q: %s", good, msg)
		}
	}
}

func TestShards(t *testing.T) {
	for _, bad := range []string{"0/2", "3/2", "x", "1/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	ids := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	seen := map[string]int{}
	for i := 1; i <= 3; i++ {
		sh := Shard{Index: i, Count: 3}
		for _, id := range ids {
			if sh.Holds(id) {
				seen[id]++
			}
		}
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("%s is in %d shards", id, seen[id])
		}
	}
}

// TestDisturbs: on a shared target, a check that uses a control the suite
// declares disturbing (Kungfu's clock, restart) runs alone unless the
// target confines that control to the check.
func TestDisturbs(t *testing.T) {
	clock := engine.Check{Steps: []engine.Step{{Op: engine.OpControl, Name: "provision"}, {Op: engine.OpControl, Name: "clock"}}}
	restart := engine.Check{Steps: []engine.Step{{Op: engine.OpParallel, Steps: []engine.Step{{Op: engine.OpControl, Name: "restart"}}}}}
	plain := engine.Check{Steps: []engine.Step{{Op: engine.OpControl, Name: "provision"}, {Op: engine.OpAct, Name: "x"}}}
	for _, tc := range []struct {
		c      engine.Check
		scoped []string
		want   bool
	}{
		{clock, nil, true}, {clock, []string{"clock"}, false}, {clock, []string{"restart"}, true},
		{restart, nil, true}, {restart, []string{"clock", "restart"}, false},
		{plain, nil, false},
	} {
		vocabulary := engine.Vocabulary{Provision: "provision", Disturbing: []string{"clock", "restart"}}
		if got := vocabulary.Disturbs(tc.c, tc.scoped); got != tc.want {
			t.Errorf("disturbs(%v, %v) = %v, want %v", tc.c.Controls(), tc.scoped, got, tc.want)
		}
	}
}
