package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// runOnce runs the whole Kungfu suite once against target, as `sifu run`
// does (each target's default concurrency), and returns the run's own wall
// time: compilation excluded, as the run's summary line reports it.
func runOnce(b *testing.B, plan *runner.Plan, target runner.Target) time.Duration {
	b.Helper()
	start := time.Now()
	run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "bench"})
	took := time.Since(start)
	if err != nil || run.Summary.Failed() {
		b.Fatalf("run failed: %v %+v", err, run.Summary)
	}
	return took
}

// BenchmarkWireSideBySide runs the Kungfu suite in-process, over HTTP
// against a `sifu serve` process and over stdio against `sifu serve
// --stdio` (both with SQLite, --sync normal), one after the other in every
// iteration, so that the three see the same machine; it reports each
// median and the wire runs' ratios to in-process (docs/performance.md).
// Set SIFU_BENCH_SYNC=full to measure with every fact synced to the disk,
// or SIFU_BENCH_SYNC=memory to keep the facts in memory on every side.
func BenchmarkWireSideBySide(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "sifu")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	sync := "normal"
	if benchSync != "" {
		sync = benchSync
	}
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		b.Fatal(err)
	}
	inproc, err := registry.Kungfu.Open(registry.Spec{})
	if err != nil {
		b.Fatal(err)
	}
	addr := freeAddrB(b)
	db := filepath.Join(b.TempDir(), "kungfu.db")
	stdioDB := "kungfu.db"
	if sync == "memory" { // facts in memory on every side, as in-process
		db, stdioDB, sync = ":memory:", ":memory:", "full"
	}
	srv := exec.Command(bin, "serve", "kungfu", "--addr", addr, "--db", db, "--sync", sync)
	if err := startAndWait(srv); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	overHTTP, err := registry.Kungfu.Open(registry.Spec{Kind: "http", URL: "http://" + addr, RequestTimeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	var in, hp, sd []float64
	for b.Loop() {
		overStdio, err := registry.Kungfu.Open(registry.Spec{Kind: "stdio", Command: bin + " serve kungfu --stdio --db " + stdioDB + " --sync " + sync})
		if err != nil {
			b.Fatal(err)
		}
		in = append(in, runOnce(b, plan, inproc).Seconds()*1000)
		hp = append(hp, runOnce(b, plan, overHTTP).Seconds()*1000)
		sd = append(sd, runOnce(b, plan, overStdio).Seconds()*1000)
		overStdio.Close()
	}
	mi, mh, ms := median(in), median(hp), median(sd)
	b.ReportMetric(mi, "inproc-ms")
	b.ReportMetric(mh, "http-ms")
	b.ReportMetric(ms, "stdio-ms")
	b.ReportMetric(mh/mi, "http/inproc")
	b.ReportMetric(ms/mi, "stdio/inproc")
	b.ReportMetric(0, "ns/op")
}

// benchSync is SIFU_BENCH_SYNC, read once.
var benchSync = func() string { return lookupEnv("SIFU_BENCH_SYNC") }()

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func lookupEnv(name string) string { v, _ := os.LookupEnv(name); return v }

func freeAddrB(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startAndWait starts `sifu serve` and waits until it says it is serving.
func startAndWait(cmd *exec.Cmd) error {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "serving") {
				ready <- true
			}
		}
	}()
	select {
	case <-ready:
		return nil
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		return fmt.Errorf("sifu serve did not start")
	}
}
