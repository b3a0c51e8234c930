package results

import (
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/internal/engine"
)

func shard(s string, ids ...string) *Run {
	r := &Run{Suite: "kungfu", Harness: Harness{Name: "sifu", Version: "1"}, Target: TargetInfo{Name: "http"}, Profiles: []string{"full"},
		Selection: Selection{Shard: s}}
	for _, id := range ids {
		r.Tests = append(r.Tests, Test{ID: id, Status: engine.Pass})
	}
	return r
}

// TestMergeNeedsEveryShardOnce: two of three shards, a shard twice, shards
// of different splits or targets, and a whole run are refused; all three
// merge into a run with no shard left in its selection.
func TestMergeNeedsEveryShardOnce(t *testing.T) {
	names := []string{"a", "b", "c"}
	for name, c := range map[string]struct {
		runs []*Run
		want string
	}{
		"missing":  {[]*Run{shard("1/3", "x"), shard("2/3", "y")}, "3/3"},
		"twice":    {[]*Run{shard("1/2", "x"), shard("1/2", "y")}, "both shard 1/2"},
		"splits":   {[]*Run{shard("1/2", "x"), shard("2/3", "y")}, "split into 2"},
		"overlap":  {[]*Run{shard("1/2", "x"), shard("2/2", "x")}, "also in"},
		"no shard": {[]*Run{shard("", "x")}, "not a shard"},
	} {
		if _, err := Merge(names[:len(c.runs)], c.runs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
	other := shard("2/2", "y")
	other.Target.Version = "2"
	if _, err := Merge(names[:2], []*Run{shard("1/2", "x"), other}); err == nil || !strings.Contains(err.Error(), "/target") {
		t.Errorf("shards of different targets: %v", err)
	}
	m, err := Merge(names, []*Run{shard("2/3", "y"), shard("1/3", "x"), shard("3/3", "z")})
	if err != nil || len(m.Tests) != 3 || m.Selection.Shard != "" {
		t.Fatalf("a complete set: %v %+v", err, m)
	}
}

// TestMergeRefusesShardsOfDifferentSelections: shards chosen with other
// tags, rules or check patterns are not parts of one run.
func TestMergeRefusesShardsOfDifferentSelections(t *testing.T) {
	for field, change := range map[string]func(*Selection){
		"/selection/tags":   func(s *Selection) { s.Tags = "@x" },
		"/selection/rules":  func(s *Selection) { s.Rules = []string{"R1"} },
		"/selection/checks": func(s *Selection) { s.Checks = []string{"kcp/*"} },
	} {
		other := shard("2/2", "y")
		change(&other.Selection)
		if _, err := Merge([]string{"a", "b"}, []*Run{shard("1/2", "x"), other}); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("shards differing in %s: %v", field, err)
		}
	}
}
