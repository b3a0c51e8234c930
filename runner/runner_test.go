package runner

import "testing"

func TestMatchTags(t *testing.T) {
	tags := []string{"scenario", "replay", "KF-L3-02"}
	for expr, want := range map[string]bool{
		"":                     true,
		"@replay":              true,
		"~@replay":             false,
		"@slow,@replay":        true,
		"@replay && ~@slow":    true,
		"@replay && @KF-L3-03": false,
		"@KF-L3-02":            true,
	} {
		if got := MatchTags(expr, tags); got != want {
			t.Errorf("%q: got %v", expr, got)
		}
	}
	if ValidTagExpr("replay") == "" || ValidTagExpr("@a && ~@b,@c") != "" {
		t.Error("tag expression validation")
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
