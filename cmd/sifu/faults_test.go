package main

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/adapters/httpwire"
	"github.com/sifu-dev/sifu/adapters/inproc"
	ref "github.com/sifu-dev/sifu/reference/kungfu"
	"github.com/sifu-dev/sifu/runner"
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
	for expr, want := range map[string]string{
		"":                    "@faults",
		"@KF-L3-02":           "@KF-L3-02 && @faults",
		"@a && ~@b, @c":       "@a && ~@b && @faults,@c && @faults",
		"@KF-L3-02,@KF-L2-01": "@KF-L3-02 && @faults,@KF-L2-01 && @faults",
	} {
		if got := withFaultsTag(expr); got != want {
			t.Errorf("withFaultsTag(%q) = %q, want %q", expr, got, want)
		}
	}
}

// TestFaultRunInProcess: a fault run prints its seed, runs only the @faults
// checks and passes against the reference.
func TestFaultRunInProcess(t *testing.T) {
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
func serveReference(t *testing.T, planted ...ref.Fault) string {
	t.Helper()
	var opts []ref.Option
	if len(planted) > 0 {
		opts = append(opts, ref.WithFaults(planted...))
	}
	k, err := inproc.NewKungfu(opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpwire.NewHandler(k, httpwire.ServerOptions{CredentialKey: []byte("k")}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestFaultRunOverHTTP: connections cut mid-body by the client's transport,
// lost answers, duplicates, delays and reordering leave the reference's
// effects exact over HTTP, and catch a server that ignores idempotency keys.
func TestFaultRunOverHTTP(t *testing.T) {
	for _, seed := range []string{"1", "2"} {
		out, err := sifuCLI(t, "run", "-q", "--suite", "kungfu", "--target", "http", "--url", serveReference(t), "--faults", "all", "--fault-seed", seed)
		if err != nil || !strings.Contains(out, "checks: 4 (4 pass") {
			t.Errorf("seed %s: %v\n%s", seed, err, out)
		}
	}
	out, err := sifuCLI(t, "run", "-q", "--suite", "kungfu", "--target", "http", "--url", serveReference(t, ref.FaultReplayReexecutes), "--faults", "reset,drop-response,duplicate", "--fault-seed", "1")
	var failed *failedError
	if !errors.As(err, &failed) || strings.Contains(out, "harness_error") && !strings.Contains(out, " 0 harness_error") {
		t.Errorf("a server that ignores keys must fail the fault run (exit 1) without harness errors: %v\n%s", err, out)
	}
}

// TestFaultRunOverStdio: the pipe to `sifu serve --stdio` is cut mid-line
// (the process killed and started again on its database), besides the
// other faults; the effects stay exact.
func TestFaultRunOverStdio(t *testing.T) {
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
