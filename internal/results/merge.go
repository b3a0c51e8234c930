package results

import (
	"fmt"
	"reflect"
	"slices"
)

// Merge joins the shards of one run (sifu run --shard i/n, each with its
// tests' transcripts loaded) into the whole run. names label the shards in
// errors. It refuses a set that is not every shard of one run exactly once:
// a shard missing or given twice, shards of different splits, targets,
// harnesses, profiles or selections, a check in two shards, or a run made
// with a planted fault or injected faults.
func Merge(names []string, shards []*Run) (*Run, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	var merged *Run
	var count int
	have := map[int]string{}
	seen := map[string]string{}
	for k, run := range shards {
		name := names[k]
		if c := run.Conditions; c != nil {
			return nil, fmt.Errorf("%s: the run was made with %s; a declaration needs a plain run, so such shards are not merged", name, c)
		}
		if run.Interrupted {
			return nil, fmt.Errorf("%s: the run was interrupted before every check ended; run the shard again", name)
		}
		var i, n int
		if _, err := fmt.Sscanf(run.Selection.Shard, "%d/%d", &i, &n); err != nil || n < 1 || i < 1 || i > n {
			return nil, fmt.Errorf("%s is not a shard (no /selection/shard): merge the results of sifu run --shard i/n", name)
		}
		if merged == nil {
			count = n
			m := *run
			m.Tests = nil
			merged = &m
		} else {
			for field, same := range map[string]bool{
				"/suite":            run.Suite == merged.Suite,
				"/harness":          run.Harness == merged.Harness,
				"/target":           reflect.DeepEqual(run.Target, merged.Target),
				"/profiles":         slices.Equal(run.Profiles, merged.Profiles),
				"/selection/tags":   run.Selection.Tags == merged.Selection.Tags,
				"/selection/rules":  slices.Equal(run.Selection.Rules, merged.Selection.Rules),
				"/selection/checks": slices.Equal(run.Selection.Checks, merged.Selection.Checks),
				"/selection/rerun":  run.Selection.Rerun == merged.Selection.Rerun,
			} {
				if !same {
					return nil, fmt.Errorf("%s: %s differs from %s's; only the shards of one run can be merged", name, field, names[0])
				}
			}
			if n != count {
				return nil, fmt.Errorf("%s is shard %d/%d, but %s is of a split into %d; merge the shards of one split", name, i, n, names[0], count)
			}
			merged.DurationMS = max(merged.DurationMS, run.DurationMS)
		}
		if prev, dup := have[i]; dup {
			return nil, fmt.Errorf("%s and %s are both shard %d/%d; give each shard once", prev, name, i, n)
		}
		have[i] = name
		for _, t := range run.Tests {
			if prev, dup := seen[t.ID]; dup {
				return nil, fmt.Errorf("%s: check %s is also in %s; shards must not overlap", name, t.ID, prev)
			}
			seen[t.ID] = name
			merged.Tests = append(merged.Tests, t)
		}
	}
	var missing []string
	for i := 1; i <= count; i++ {
		if _, ok := have[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shard(s) %v of the run are missing: a merged statement needs every shard", missing)
	}
	merged.Selection.Shard = ""
	merged.Transcript, merged.Expectations = nil, nil
	return merged, nil
}
