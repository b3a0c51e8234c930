package registry_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/runner"
)

func isUsage(err error) bool {
	var u *runner.UsageError
	return errors.As(err, &u)
}

// TestTargetArgsMakeTheSpec: the control token comes from its file
// (trimmed) over the environment variable; --fault-seed alone is a usage
// error; --faults configures the transport faults with their seed.
func TestTargetArgsMakeTheSpec(t *testing.T) {
	t.Setenv("SIFU_TEST_TOKEN", "from-env")
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := registry.TargetArgs{Kind: "http", URL: "http://x", TokenEnv: "SIFU_TEST_TOKEN", RequestTimeout: time.Second}
	if s, err := a.Spec(); err != nil || s.ControlToken != "from-env" || s.Kind != "http" || s.URL != "http://x" || s.RequestTimeout != time.Second || s.Faults != nil {
		t.Errorf("from the environment: %+v, %v", s, err)
	}
	a.TokenFile = file
	if s, err := a.Spec(); err != nil || s.ControlToken != "from-file" {
		t.Errorf("from the file: %q, %v", s.ControlToken, err)
	}
	a.TokenFile = filepath.Join(t.TempDir(), "missing")
	if _, err := a.Spec(); !isUsage(err) || !strings.Contains(err.Error(), "--control-token-file") {
		t.Errorf("a missing token file: %v", err)
	}
	a.TokenFile, a.FaultSeed = "", 7
	if _, err := a.Spec(); !isUsage(err) || !strings.Contains(err.Error(), "--fault-seed needs --faults") {
		t.Errorf("--fault-seed alone: %v", err)
	}
	a.Faults = "all"
	if s, err := a.Spec(); err != nil || s.Faults == nil || s.Faults.Seed != 7 {
		t.Errorf("--faults all --fault-seed 7: %+v, %v", s.Faults, err)
	}
	a.Faults = "no-such-fault"
	if _, err := a.Spec(); !isUsage(err) || !strings.Contains(err.Error(), "--faults") {
		t.Errorf("an unknown fault: %v", err)
	}
}

// TestRunArgsMakeTheRequest: the suite is looked up, the shard parsed and
// the signing key read; each fails as a usage error naming its flag.
func TestRunArgsMakeTheRequest(t *testing.T) {
	key := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(key, []byte("KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := registry.RunArgs{TargetArgs: registry.TargetArgs{Suite: "kungfu", Kind: "inproc", Checks: []string{"kungfu/*"}},
		Profiles: []string{"core"}, Tags: "@x", Rules: []string{"KF-1"}, Shard: "2/4", SignKey: key, Out: "o", Declare: "d", Timeout: time.Second, Repeat: 3}
	req, err := a.Request()
	if err != nil {
		t.Fatal(err)
	}
	if req.Suite != registry.Kungfu || req.Select.Shard != (runner.Shard{Index: 2, Count: 4}) || string(req.SignKey) != "KEY" || req.Out != "o" || req.Declare != "d" ||
		req.Timeout != time.Second || req.Repeat != 3 || req.Select.Tags != "@x" || req.Select.Profiles[0] != "core" || req.Select.Rules[0] != "KF-1" || req.Select.Checks[0] != "kungfu/*" {
		t.Errorf("request %+v", req)
	}
	for _, c := range []struct {
		change func(*registry.RunArgs)
		want   string
	}{
		{func(a *registry.RunArgs) { a.Suite = "no-such-suite" }, "no-such-suite"},
		{func(a *registry.RunArgs) { a.Shard = "5/4" }, "--shard"},
		{func(a *registry.RunArgs) { a.SignKey = filepath.Join(t.TempDir(), "missing") }, "--sign-key"},
	} {
		bad := a
		c.change(&bad)
		if _, err := bad.Request(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error naming %s, got %v", c.want, err)
		}
	}
}

// TestEachRunsEverySuiteAgainstItsReference: --suite all gives one run per
// suite, its results and statement in a subdirectory of each; args that
// name another implementation or narrow the checks are refused.
func TestEachRunsEverySuiteAgainstItsReference(t *testing.T) {
	a := registry.RunArgs{TargetArgs: registry.TargetArgs{Suite: "all", Kind: "inproc"}, Out: "out", Tags: "@x"}
	each, err := a.Each()
	if err != nil || len(each) != len(registry.Names()) {
		t.Fatalf("%d runs, %v", len(each), err)
	}
	for i, one := range each {
		if name := registry.Names()[i]; one.Suite != name || one.Out != filepath.Join("out", name) || one.Declare != "" || one.Tags != "@x" {
			t.Errorf("run %d: %+v", i, one)
		}
	}
	for _, change := range []func(*registry.RunArgs){
		func(a *registry.RunArgs) { a.Kind = "http" },
		func(a *registry.RunArgs) { a.Rules = []string{"KF-1"} },
		func(a *registry.RunArgs) { a.Mutant = "starts-public" },
		func(a *registry.RunArgs) { a.Faults = "all" },
		func(a *registry.RunArgs) { a.Config = "x.yaml" },
	} {
		bad := a
		change(&bad)
		if _, err := bad.Each(); !isUsage(err) || !strings.Contains(err.Error(), "pick one suite with --suite") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// brokenFuzzer fails in case 3, or while shrinking.
type brokenFuzzer struct {
	shrinking bool
	got       *registry.FuzzRequest
}

func (b brokenFuzzer) Fuzz(_ context.Context, req registry.FuzzRequest) (fuzz.Result, error) {
	*b.got = req
	return fuzz.Result{Runs: 3}, &fuzz.HarnessError{Seed: req.Seed, Case: 3, Step: 1, Shrinking: b.shrinking, Err: errors.New("planted")}
}

func (brokenFuzzer) Close() error { return nil }

// TestAFuzzRunSaysHowToReproduce: a fuzz run checks its args, picks a
// seed, passes the request on, and a fault of the fuzzer comes back with
// the command line that reaches it again (up to its case, or every case
// when it was met while shrinking); the replay names the target.
func TestAFuzzRunSaysHowToReproduce(t *testing.T) {
	var got registry.FuzzRequest
	open := func(shrinking bool) func(*registry.Suite, registry.Spec) (registry.Fuzzer, error) {
		return func(*registry.Suite, registry.Spec) (registry.Fuzzer, error) {
			return brokenFuzzer{shrinking, &got}, nil
		}
	}
	a := registry.FuzzArgs{TargetArgs: registry.TargetArgs{Suite: "kcp", Kind: "exec", Command: "kcp-agent", Checks: []string{"kcp/*"}}, Out: "findings", Runs: 10, Steps: 4, ShrinkTime: time.Second}
	r, err := a.Open(open(false))
	if err != nil {
		t.Fatal(err)
	}
	if r.Seed == 0 {
		t.Error("no seed was picked")
	}
	r.Seed = 5
	_, err = r.Fuzz(context.Background(), nil)
	var h *registry.FuzzHarnessError
	if !errors.As(err, &h) || got.Seed != 5 || got.Runs != 10 || got.Steps != 4 || got.Checks[0] != "kcp/*" {
		t.Fatalf("%v (%T); request %+v", err, err, got)
	}
	if want := `sifu fuzz --suite kcp --target exec --cmd "kcp-agent" --check "kcp/*" --seed 5 --runs 3 --steps 4`; h.Reproduce != want {
		t.Errorf("reproduce %q, want %q", h.Reproduce, want)
	}
	if want := `sifu run --suite kcp --target exec --cmd "kcp-agent" --vectors findings`; r.Replay() != want {
		t.Errorf("replay %q, want %q", r.Replay(), want)
	}
	r, _ = a.Open(open(true))
	r.Seed = 5
	if _, err := r.Fuzz(context.Background(), nil); !errors.As(err, &h) || !strings.Contains(h.Reproduce, "--runs 10") {
		t.Errorf("a fault met while shrinking: %v", err)
	}
	for _, change := range []func(*registry.FuzzArgs){
		func(a *registry.FuzzArgs) { a.Runs = 0 },
		func(a *registry.FuzzArgs) { a.Suite = "agentkit" },
		func(a *registry.FuzzArgs) { a.Suite = "kungfu" }, // --check: the kungfu fuzzer generates its cases
	} {
		bad := a
		change(&bad)
		if _, err := bad.Open(open(false)); !isUsage(err) {
			t.Errorf("%+v: %v, want a usage error", bad, err)
		}
	}
}

// TestARaceRunChecksItsArgs: a suite without races, or no rounds, is a
// usage error before any target starts.
func TestARaceRunChecksItsArgs(t *testing.T) {
	for _, a := range []registry.RaceArgs{
		{TargetArgs: registry.TargetArgs{Suite: "agentkit"}, Rounds: 1},
		{TargetArgs: registry.TargetArgs{Suite: "kungfu"}, Rounds: 0},
	} {
		if _, _, err := a.Run(context.Background(), nil); !isUsage(err) {
			t.Errorf("%+v: %v, want a usage error", a, err)
		}
	}
}

// TestACPToolsReadTheClock: SIFU_ACP_NOW must be an RFC 3339 time.
func TestACPToolsReadTheClock(t *testing.T) {
	t.Setenv(registry.ACPNowEnv, "2026-01-02T03:04:05Z")
	if _, err := registry.ACPTools(); err != nil {
		t.Fatal(err)
	}
	t.Setenv(registry.ACPNowEnv, "yesterday")
	if _, err := registry.ACPTools(); err == nil || !strings.Contains(err.Error(), registry.ACPNowEnv) {
		t.Errorf("a bad clock: %v", err)
	}
}

// TestServeChecksItsOptions: a bad --sync, or a token file that cannot be
// read, is a usage error before anything is served; the database's folder
// is made.
func TestServeChecksItsOptions(t *testing.T) {
	db := filepath.Join(t.TempDir(), "new", "kungfu.db")
	for _, o := range []registry.ServeKungfu{
		{DB: db, Sync: "sometimes"},
		{DB: ":memory:", TokenFile: filepath.Join(t.TempDir(), "missing")},
	} {
		if err := o.Serve(context.Background()); !isUsage(err) {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
	if _, err := os.Stat(filepath.Dir(db)); err != nil {
		t.Errorf("the database's folder was not made: %v", err)
	}
}
