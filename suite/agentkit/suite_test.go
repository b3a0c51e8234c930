package agentkit_test

import (
	"context"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/agentkithttp"
	"github.com/sifu-dev/sifu/adapters/agentkitinproc"
	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/reference/agentkitref"
	"github.com/sifu-dev/sifu/suite/agentkit"
)

var (
	once     sync.Once
	shared   *agentkithttp.Stub
	loaded   *runner.Plan
	onceErrs error
)

// setup loads the plan and starts one stub for every test of the package:
// checks never collide on a stub (each has its own script keys).
func setup(t testing.TB) (*agentkithttp.Stub, *runner.Plan) {
	t.Helper()
	once.Do(func() {
		shared, onceErrs = agentkithttp.StartStub("127.0.0.1:0")
		if onceErrs == nil {
			shared.MaxHold = time.Second // a gateway that ignores an interrupt is caught in a second
			loaded, onceErrs = runner.Load(sifu.Assets, agentkit.Suite)
		}
	})
	if onceErrs != nil {
		t.Fatal(onceErrs)
	}
	return shared, loaded
}

// target runs the reference gateway in-process with planted faults.
func target(t testing.TB, faults ...agentkitref.Fault) runner.Target {
	t.Helper()
	srv, _ := setup(t)
	client := agentkithttp.NewClient(0)
	return agentkit.RunTarget{New: func(context.Context) (agentkit.Target, func(), error) {
		m := &agentkithttp.Managed{Launcher: agentkitinproc.Launcher{Faults: faults}, Client: client, Server: srv}
		return m, m.Close, nil
	}}
}

func run(t testing.TB, tg runner.Target, rules ...string) *results.Run {
	t.Helper()
	return runWithin(t, tg, 0, rules...)
}

// runWithin runs with a time limit per check (0: the runner's default).
func runWithin(t testing.TB, tg runner.Target, limit time.Duration, rules ...string) *results.Run {
	t.Helper()
	_, plan := setup(t)
	r, err := plan.Run(context.Background(), runner.Config{TargetName: "inproc", Target: tg, Rules: rules, Timeout: limit})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestEveryRuleIsCheckedOrNotBlackBox: every rule of the catalogue is
// evidenced by a check or says why it cannot be observed from outside.
// (That the reference gateway passes every check is reference/agentkitref's
// TestConformance, through the suite's public entry.)
func TestEveryRuleIsCheckedOrNotBlackBox(t *testing.T) {
	_, plan := setup(t)
	checked := plan.Coverage()
	for _, r := range plan.Catalogue.Rules {
		if len(checked[r.ID]) == 0 && r.Evidence != catalogue.NotBlackBox {
			t.Errorf("rule %s has no check and is not marked not black-box", r.ID)
		}
	}
}

// negativeControls are the rules whose checks must catch each planted
// fault: the reference's own data, which sifu selftest counts kills by.
var negativeControls = agentkitref.CaughtBy

// TestEveryMustRuleHasANegativeControl: each black-box MUST rule of the
// catalogue is broken by some planted fault that its checks catch.
func TestEveryMustRuleHasANegativeControl(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, agentkit.Suite)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, rules := range negativeControls {
		for _, id := range rules {
			covered[id] = true
		}
	}
	for _, r := range plan.Catalogue.Rules {
		if r.Level == "MUST" && r.Evidence != "not-black-box" && !covered[r.ID] {
			t.Errorf("rule %s has no planted fault that a check catches", r.ID)
		}
	}
}

// TestEveryPlantedFaultIsCaught runs the checks of each fault's rules
// against the reference with that fault: every rule listed must have a
// failing check, and nothing may end as a timeout or harness error.
func TestEveryPlantedFaultIsCaught(t *testing.T) {
	for _, f := range agentkitref.Faults {
		rules, ok := negativeControls[f]
		if !ok {
			t.Errorf("fault %s has no negative control", f)
			continue
		}
		t.Run(string(f), func(t *testing.T) {
			r := run(t, target(t, f), rules...)
			caught := map[string]bool{}
			for _, tc := range r.Tests {
				if tc.Status == engine.Fail {
					for _, id := range tc.Rules {
						caught[id] = true
					}
				}
				if tc.Status == engine.HarnessError || tc.Status == engine.Timeout {
					t.Errorf("%s: %s: %s", tc.ID, tc.Status, tc.Message)
				}
			}
			for _, id := range rules {
				if !caught[id] {
					t.Errorf("no check of %s failed with the %s fault planted", id, f)
				}
			}
		})
	}
}

// TestVectorProblemsNameTheFileAndField: a malformed vector file is refused
// with a message naming the file and where it went wrong.
func TestVectorProblemsNameTheFileAndField(t *testing.T) {
	fsys := fstest.MapFS{
		"v/unknown-key.json": {Data: []byte(`{"suite":"agentkit","cases":[{"id":"a","rules":["AK-HTTP-01"],"request":{"method":"GET","path":"/healthz"},"expect":{"status":200},"colour":"red"}]}`)},
		"v/no-rules.json":    {Data: []byte(`{"suite":"agentkit","cases":[{"id":"a","rules":[],"request":{"method":"GET","path":"/healthz"},"expect":{"status":200}}]}`)},
		"v/both.json":        {Data: []byte(`{"suite":"agentkit","cases":[{"id":"a","rules":["AK-HTTP-01"],"request":{"method":"GET","path":"/"},"files":{},"expect":{"status":200}}]}`)},
		"v/dup.json":         {Data: []byte(`{"suite":"agentkit","cases":[{"id":"a","rules":["AK-HTTP-01"],"request":{"method":"GET","path":"/"},"expect":{"status":200}},{"id":"a","rules":["AK-HTTP-01"],"request":{"method":"GET","path":"/"},"expect":{"status":200}}]}`)},
		"v/no-message.json":  {Data: []byte(`{"suite":"agentkit","base":{"app.yaml":"x"},"cases":[{"id":"a","rules":["AK-CONFIG-01"],"files":{},"expect":{"starts":false}}]}`)},
		"v/not-json.json":    {Data: []byte(`{"suite":`)},
	}
	for file, want := range map[string]string{
		"v/unknown-key.json": "v/unknown-key.json",
		"v/no-rules.json":    "/cases/0/rules",
		"v/both.json":        "/cases/0",
		"v/dup.json":         "used twice",
		"v/no-message.json":  "stderr_contains",
		"v/not-json.json":    "v/not-json.json",
	} {
		_, err := agentkit.CompileVector(fsys, file, schema.NewSet(sifu.Assets, "vectors/schema"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want an error mentioning %q, got %v", file, want, err)
		}
	}
}

// TestCopiedVectorsDirectoryLoads: a copy of vectors/agentkit, rules.json
// included, runs with --vectors: the catalogue in it is skipped, not read
// as a vector; a file that only looks like one is still refused.
func TestCopiedVectorsDirectoryLoads(t *testing.T) {
	copied := fstest.MapFS{}
	err := fs.WalkDir(sifu.Assets, "vectors/agentkit", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := fs.ReadFile(sifu.Assets, p)
		copied["copy/"+strings.TrimPrefix(p, "vectors/agentkit/")] = &fstest.MapFile{Data: raw}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := runner.Load(sifu.Assets, agentkit.Suite, runner.WithVectors(copied, "copy"))
	if err != nil {
		t.Fatalf("a copied vectors directory: %v", err)
	}
	bundled, _ := runner.Load(sifu.Assets, agentkit.Suite)
	if len(plan.Checks) != len(bundled.Checks) {
		t.Errorf("%d checks from the copy, %d bundled", len(plan.Checks), len(bundled.Checks))
	}
	copied["copy/fake.json"] = &fstest.MapFile{Data: []byte(`{"spec": {}, "rules": []}`)}
	if _, err := runner.Load(sifu.Assets, agentkit.Suite, runner.WithVectors(copied, "copy")); err == nil || !strings.Contains(err.Error(), "fake.json") {
		t.Errorf("a malformed catalogue-like file: want an error naming it, got %v", err)
	}
}
