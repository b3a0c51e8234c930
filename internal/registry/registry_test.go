package registry_test

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/attack/faultproxy"
	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/runner"
)

// TestEveryFaultNamesRulesOfItsCatalogue: every planted fault of every
// reference lists the rules whose checks must catch it, each a rule of the
// suite's catalogue that some check evidences.
func TestEveryFaultNamesRulesOfItsCatalogue(t *testing.T) {
	for _, name := range registry.Names() {
		s, _ := registry.Lookup(name)
		plan, err := s.Plan()
		if err != nil {
			t.Fatal(err)
		}
		checked := plan.Coverage()
		if len(s.Faults) == 0 {
			t.Errorf("suite %s has no planted fault", name)
		}
		for _, f := range s.Faults {
			if len(f.Rules) == 0 {
				t.Errorf("%s: fault %s names no rule its checks must catch it by (reference CaughtBy)", name, f.Name)
			}
			for _, id := range f.Rules {
				if len(checked[id]) == 0 {
					t.Errorf("%s: fault %s names rule %s, which no check evidences", name, f.Name, id)
				}
			}
		}
	}
}

// TestAMutantThatCannotBeBuiltIsAnError: a mutant whose target cannot be
// built fails the self-test's preparation, naming the mutant, instead of
// leaving the self-test one fault short (agent-kit mutants were dropped).
func TestAMutantThatCannotBeBuiltIsAnError(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	mutants, err := registry.AgentKit.Mutants()
	if err == nil || !strings.Contains(err.Error(), registry.AgentKit.Faults[0].Name) {
		t.Fatalf("%d mutants, error %v; want an error naming the first mutant", len(mutants), err)
	}
}

// TestAKillNeedsACheckOfTheFaultsRules: a mutant is killed only when a
// check of one of its fault's rules fails; failures of other rules' checks
// are reported, not counted.
func TestAKillNeedsACheckOfTheFaultsRules(t *testing.T) {
	s := registry.Kungfu
	plan, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	reference, err := s.Open(registry.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	fault := "existence-leak"
	target, err := s.Open(registry.Spec{Mutant: fault})
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, f := range s.Faults {
		if f.Name == fault {
			rules = f.Rules
		}
	}
	mutants := []selftest.Mutant{
		{Name: "right rules", Rules: rules, Target: target},
		{Name: "wrong rules", Rules: []string{"KF-7.4-02"}, Target: target},
	}
	cfg := runner.Config{Profiles: []string{"memory"}}
	r, err := selftest.Run(context.Background(), plan, reference, mutants, cfg, false, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	right, wrong := r.Outcomes[0], r.Outcomes[1]
	if !right.Killed || len(right.KilledBy) == 0 {
		t.Errorf("checks of %v did not kill %s: %+v", rules, fault, right)
	}
	if wrong.Killed || len(wrong.Failed) == 0 {
		t.Errorf("a fault caught only by checks of other rules counts as killed: %+v", wrong)
	}
	if r.Killed != 1 || !slices.Equal(r.Survivors(), []string{"wrong rules"}) {
		t.Errorf("killed %d, survivors %v", r.Killed, r.Survivors())
	}
	// A killed mutant met only its rules' checks; with every check it
	// meets the others too, and the verdict is the same.
	if len(right.Failed) != 0 {
		t.Errorf("a mutant met checks of other rules though its own killed it: %v", right.Failed)
	}
	all, err := selftest.Run(context.Background(), plan, reference, mutants[:1], cfg, true, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := all.Outcomes[0]; !o.Killed || !slices.Equal(o.KilledBy, right.KilledBy) || len(o.Failed) == 0 {
		t.Errorf("with every check: %+v; with its rules' checks: %+v", o, right)
	}
}

// TestOpenRefusesWhatTheSuiteCannotDo: unknown kinds, mutants that are not
// the reference's, faults outside Kungfu and --start-cmd's kind.
func TestOpenRefusesWhatTheSuiteCannotDo(t *testing.T) {
	for name, open := range map[string]func() error{
		"unknown kind":   func() error { _, err := registry.KCP.Open(registry.Spec{Kind: "http"}); return err },
		"unknown mutant": func() error { _, err := registry.ACP.Open(registry.Spec{Mutant: "no-such-fault"}); return err },
		"mutant over http": func() error {
			_, err := registry.Kungfu.Open(registry.Spec{Kind: "http", Mutant: "existence-leak"})
			return err
		},
		"faults on acp": func() error { _, err := registry.ACP.Open(registry.Spec{Faults: &faultproxy.Config{}}); return err },
		"http without url": func() error {
			_, err := registry.Kungfu.Open(registry.Spec{Kind: "http", RequestTimeout: time.Second})
			return err
		},
		"exec without tool": func() error { _, err := registry.ACP.Open(registry.Spec{Kind: "exec"}); return err },
	} {
		var usage *runner.UsageError
		if err := open(); !errors.As(err, &usage) {
			t.Errorf("%s: %v; want a usage error", name, err)
		}
	}
	t.Setenv("TMPDIR", t.TempDir())
	tg, err := registry.AgentKit.Open(registry.Spec{StartCommand: "/bin/true", NoProbe: true})
	if err != nil || tg.Kind != "process" {
		t.Errorf("--start-cmd opens kind %v (%v), want process", tg, err)
	}
}

// TestRequestsThatDoNotGoTogether are refused before anything runs.
func TestRequestsThatDoNotGoTogether(t *testing.T) {
	ok := registry.RunRequest{Suite: registry.Kungfu, Timeout: time.Second, Repeat: 1}
	for name, req := range map[string]registry.RunRequest{
		"faults and a statement":   {Spec: registry.Spec{Faults: &faultproxy.Config{}}, Declare: t.TempDir()},
		"a mutant and statement":   {Spec: registry.Spec{Mutant: "existence-leak"}, Declare: t.TempDir()},
		"a rerun and a statement":  {Rerun: "results.json", Declare: t.TempDir()},
		"features and a statement": {Features: t.TempDir(), Declare: t.TempDir()},
		"vectors and a statement":  {Vectors: t.TempDir(), Declare: t.TempDir()},
		"a key and no statement":   {SignKey: []byte("k")},
		"no repeat":                {Repeat: -1},
		"an unwritable --out":      {Out: "/proc/sifu-cannot-write-here"},
	} {
		req.Suite, req.Timeout = ok.Suite, ok.Timeout
		if req.Repeat == 0 {
			req.Repeat = 1
		}
		var usage *runner.UsageError
		if err := req.Validate(false); !errors.As(err, &usage) {
			t.Errorf("%s: %v; want a usage error", name, err)
		}
	}
	if err := ok.Validate(false); err != nil {
		t.Errorf("a plain request: %v", err)
	}
	if err := (registry.RunRequest{Suite: ok.Suite, Timeout: time.Second, Repeat: 1, Out: t.TempDir()}).Validate(true); err == nil {
		t.Error("--list with --out was accepted")
	}
}

// TestShardsMergeAndRerunsRunWhatFailed: two shards merged are the whole
// run, folded and declared again; a rerun of a run that passed runs
// nothing; a rerun of a mutant's failures runs exactly those.
func TestShardsMergeAndRerunsRunWhatFailed(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	base := registry.RunRequest{Suite: registry.KCP, Timeout: 30 * time.Second, Repeat: 1}
	var shards []string
	for i := 1; i <= 2; i++ {
		req := base
		req.Select.Shard = runner.Shard{Index: i, Count: 2}
		req.Out = filepath.Join(dir, "s"+string(rune('0'+i)))
		if _, err := registry.Run(ctx, req); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, filepath.Join(req.Out, "results.json"))
	}
	whole := base
	whole.Out = filepath.Join(dir, "all")
	all, err := registry.Run(ctx, whole)
	if err != nil {
		t.Fatal(err)
	}
	merged, d, err := registry.Merge(filepath.Join(dir, "merged"), shards, time.Now(), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Tests) != len(all.Run.Tests) || merged.Summary != all.Run.Summary || d.Partial {
		t.Errorf("merged %d checks (%+v, partial %v), the whole run %d (%+v)", len(merged.Tests), merged.Summary, d.Partial, len(all.Run.Tests), all.Run.Summary)
	}
	if _, problems, err := registry.Verify(ctx, filepath.Join(dir, "merged", "conformance.json"), declaration.VerifyOptions{}); err != nil || len(problems) > 0 {
		t.Errorf("the merged statement does not verify: %v %v", err, problems)
	}
	if _, _, err := registry.Merge(filepath.Join(dir, "twice"), []string{shards[0], shards[0]}, time.Now(), false); err == nil {
		t.Error("one shard merged twice was accepted")
	}
	rerun := base
	rerun.Rerun = filepath.Join(whole.Out, "results.json")
	if res, err := registry.Run(ctx, rerun); err != nil || !res.NothingToRerun {
		t.Errorf("a rerun of a run that passed: %+v %v", res, err)
	}
	failing := base
	failing.Spec.Mutant, failing.Out = "budget-unchecked", filepath.Join(dir, "mutant")
	bad, err := registry.Run(ctx, failing)
	if err != nil {
		t.Fatal(err)
	}
	failing.Rerun, failing.Out = filepath.Join(dir, "mutant", "results.json"), ""
	again, err := registry.Run(ctx, failing)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, tc := range bad.Run.Tests {
		if tc.Status != engine.Pass && tc.Status != engine.NotApplicable {
			want = append(want, tc.ID)
		}
	}
	for _, tc := range again.Run.Tests {
		got = append(got, tc.ID)
	}
	if len(want) == 0 || !slices.Equal(want, got) {
		t.Errorf("the rerun ran %v, the failures were %v", got, want)
	}
}

// TestAFindingIsReplayedAsAVector: a fuzz finding is compiled as the suite
// compiles any vector and run on the reference and the mutant.
func TestAFindingIsReplayedAsAVector(t *testing.T) {
	ctx := context.Background()
	s := registry.KCP
	reference, _ := s.Open(registry.Spec{})
	mutant, _ := s.Open(registry.Spec{Mutant: "budget-unchecked"})
	res, err := mutant.Fuzz(ctx, registry.FuzzRequest{Seed: 3, Runs: 200, ShrinkTime: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Divergence == nil {
		t.Skip("the fuzzer found no divergence with this seed")
	}
	verdict, err := registry.ReplayFinding(ctx, s, 3, res.Divergence.Vector, reference, mutant)
	if err != nil {
		t.Fatal(err)
	}
	if verdict != "its vector passes on the reference and fails on the mutant" {
		t.Errorf("replayed: %s", verdict)
	}
	if v, err := registry.ReplayFinding(ctx, s, 3, nil, reference, mutant); err != nil || v != "no vector written" {
		t.Errorf("no vector: %q %v", v, err)
	}
	if _, err := registry.ReplayFinding(ctx, s, 3, []byte("{"), reference, mutant); err == nil {
		t.Error("a finding that does not compile was replayed")
	}
}

// TestASubjectSaysWhatItsTargetSays: a Kungfu target over the wire is
// shared by every check and takes several at once; the subject the
// registry opens around it must say both to the runner, or checks that
// disturb a shared server run beside the others and wire runs go one
// check per processor.
func TestASubjectSaysWhatItsTargetSays(t *testing.T) {
	tg, err := registry.Kungfu.Open(registry.Spec{Kind: "http", URL: "http://127.0.0.1:1", RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var target runner.Target = tg
	w, ok := target.(runner.WorkersTarget)
	if !ok || w.Workers() <= runtime.GOMAXPROCS(0) {
		t.Errorf("an HTTP subject takes %v checks at once (%v), want more than one per processor", w, ok)
	}
	if s, ok := target.(runner.SharedTarget); !ok || !s.Shared() {
		t.Error("an HTTP subject does not say that its checks share it")
	}
	in, err := registry.Kungfu.Open(registry.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if s, ok := runner.Target(in).(runner.SharedTarget); ok && s.Shared() {
		t.Error("the in-process reference, fresh per check, says it is shared")
	}
}
