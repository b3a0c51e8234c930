package main

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/adapters/kungfuhttp"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kungfuref"
)

// sifuCLI runs the command line in-process and returns its output and error.
func sifuCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRoot()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func TestFaultFlagsAreChecked(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--faults", "jitter"},
		{"run", "--faults", "all", "--declare", t.TempDir()},
		{"run", "--suite", "kcp", "--faults", "duplicate"},
		{"run", "--fault-seed", "7"},
	} {
		_, err := sifuCLI(t, args...)
		var usage *runner.UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), "--fault") {
			t.Errorf("sifu %v: %v; want a usage error (exit 2) about --faults", args, err)
		}
	}
}

// TestFaultRunInProcess: a fault run prints its seed, runs only the @faults
// checks and passes against the reference.
func TestFaultRunInProcess(t *testing.T) {
	t.Parallel()
	out, err := sifuCLI(t, "run", "-q", "--suite", "kungfu", "--faults", "all", "--fault-seed", "11")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"seed 11", "--fault-seed 11", "checks: 4 (4 pass"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// serveReference serves the reference (with planted faults, if any) over
// the HTTP binding in this process.
func serveReference(t *testing.T, planted ...kungfuref.Fault) string {
	t.Helper()
	var opts []kungfuref.Option
	if len(planted) > 0 {
		opts = append(opts, kungfuref.WithFaults(planted...))
	}
	k, err := kungfuinproc.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(kungfuhttp.NewHandler(k, kungfuhttp.ServerOptions{CredentialKey: []byte("k")}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestFaultRunOverHTTP: connections cut mid-body by the client's transport,
// lost answers, duplicates, delays and reordering leave the reference's
// effects exact over HTTP, and catch a server that ignores idempotency keys.
func TestFaultRunOverHTTP(t *testing.T) {
	t.Parallel()
	for _, seed := range []string{"1", "2"} {
		out, err := sifuCLI(t, "run", "-q", "--suite", "kungfu", "--target", "http", "--url", serveReference(t), "--faults", "all", "--fault-seed", seed)
		if err != nil || !strings.Contains(out, "checks: 4 (4 pass") {
			t.Errorf("seed %s: %v\n%s", seed, err, out)
		}
	}
	out, err := sifuCLI(t, "run", "-q", "--suite", "kungfu", "--target", "http", "--url", serveReference(t, kungfuref.FaultReplayReexecutes), "--faults", "reset,drop-response,duplicate", "--fault-seed", "1")
	var failed *failedError
	if !errors.As(err, &failed) || strings.Contains(out, "harness_error") && !strings.Contains(out, " 0 harness_error") {
		t.Errorf("a server that ignores keys must fail the fault run (exit 1) without harness errors: %v\n%s", err, out)
	}
}

// TestFaultRunOverStdio: the pipe to `sifu serve --stdio` is cut mid-line
// (the process killed and started again on its database), besides the
// other faults; the effects stay exact.
func TestFaultRunOverStdio(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildSifu(t)
	for _, seed := range []string{"2"} {
		out, err := sifuCLI(t, "run", "-q", "--suite", "kungfu", "--target", "stdio", "--cmd", bin+" serve kungfu --stdio --db kungfu.db", "--faults", "all", "--fault-seed", seed)
		if err != nil || !strings.Contains(out, "checks: 4 (4 pass") {
			t.Errorf("seed %s: %v\n%s", seed, err, out)
		}
	}
}

// TestAlteredRunsAreRecorded: a run against a planted fault or through
// injected faults says so on the console and in results.json, cannot be
// declared, and its shards are not merged into a declaration.
func TestAlteredRunsAreRecorded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	readConditions := func(sub string) *results.Conditions {
		t.Helper()
		run, _, err := declaration.ReadResults(filepath.Join(dir, sub, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		return run.Conditions
	}

	out, err := sifuCLI(t, "run", "-q", "--suite", "kcp", "--mutant", "gates-swapped", "--out", filepath.Join(dir, "mutant"))
	var failed *failedError
	if !errors.As(err, &failed) || !strings.Contains(out, "with planted fault gates-swapped") {
		t.Errorf("mutant run: %v (want a conformance failure), output:\n%s", err, out)
	}
	if c := readConditions("mutant"); c == nil || c.Mutant != "gates-swapped" || c.Faults != nil {
		t.Errorf("mutant run recorded conditions %+v", c)
	}

	out, err = sifuCLI(t, "run", "-q", "--suite", "kungfu", "--faults", "duplicate,delay", "--fault-seed", "5", "--out", filepath.Join(dir, "faults"))
	if err != nil || !strings.Contains(out, "with faults duplicate,delay (seed 5)") {
		t.Errorf("fault run: %v, output:\n%s", err, out)
	}
	if c := readConditions("faults"); c == nil || c.Mutant != "" || !slices.Equal(c.Faults, []string{"duplicate", "delay"}) || c.FaultSeed != 5 {
		t.Errorf("fault run recorded conditions %+v", c)
	}

	out, err = sifuCLI(t, "run", "-q", "--suite", "kcp")
	if err != nil || strings.Contains(out, " with ") {
		t.Errorf("plain run: %v, output:\n%s", err, out)
	}

	_, err = sifuCLI(t, "run", "--suite", "kcp", "--mutant", "gates-swapped", "--declare", filepath.Join(dir, "decl"))
	var usage *runner.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "--mutant") {
		t.Errorf("--declare with --mutant: %v", err)
	}
	for _, sub := range []string{"mutant", "faults"} {
		_, err := sifuCLI(t, "merge", "--out", filepath.Join(dir, "merged-"+sub), filepath.Join(dir, sub, "results.json"))
		if err == nil || !strings.Contains(err.Error(), "made with") {
			t.Errorf("merging the %s run: %v; want a refusal naming its conditions", sub, err)
		}
	}
}
