package main_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The benchmarks below time whole processes, start-up included: one
// planner call (the figure kcp-agent's CLI is compared with), and two
// floors measured the same way on the same machine — an empty Go program
// and, when node is installed, `node -e 0` — so a reader can tell the
// machine's speed at the time from the planner's. See docs/performance.md.

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// binaries builds sifu-kcp and an empty Go program once per test binary.
func binaries(b *testing.B) (planner, empty string) {
	b.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "sifu-kcp-bench")
		if buildErr != nil {
			return
		}
		if buildErr = goBuild(filepath.Join(buildDir, "sifu-kcp"), "."); buildErr != nil {
			return
		}
		src := filepath.Join(buildDir, "empty")
		if buildErr = os.MkdirAll(src, 0o755); buildErr != nil {
			return
		}
		buildErr = os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
		if buildErr == nil {
			buildErr = goBuild(filepath.Join(buildDir, "empty-go"), filepath.Join(src, "main.go"))
		}
	})
	if buildErr != nil {
		b.Fatalf("building the benchmark binaries: %v", buildErr)
	}
	return filepath.Join(buildDir, "sifu-kcp"), filepath.Join(buildDir, "empty-go")
}

func goBuild(out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

// runEach starts name with args once per iteration and fails on a
// non-zero exit.
func runEach(b *testing.B, name string, args ...string) {
	b.Helper()
	for b.Loop() {
		cmd := exec.Command(name, args...)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
	}
}

// BenchmarkPlanProcess is one `sifu-kcp plan --json` process over
// testdata/manifest.yaml.
func BenchmarkPlanProcess(b *testing.B) {
	planner, _ := binaries(b)
	manifest, err := filepath.Abs("testdata/manifest.yaml")
	if err != nil {
		b.Fatal(err)
	}
	runEach(b, planner, "plan", "--task", "tide tables for the berth schedule", "--manifest", manifest,
		"--as-of", "2026-06-01", "--budget", "1", "--methods", "free,x402", "--json")
}

// BenchmarkEmptyGoProcess is the floor of any Go program here.
func BenchmarkEmptyGoProcess(b *testing.B) {
	_, empty := binaries(b)
	runEach(b, empty)
}

// BenchmarkNodeProcess is `node -e 0`, the yardstick the notes give next
// to kcp-agent's CLI timings (160–195 ms there).
func BenchmarkNodeProcess(b *testing.B) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("node is not installed")
	}
	runEach(b, node, "-e", "0")
}
