package registry_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/registry"
)

// soakSize is how long each seed's run is, per suite: cases and average
// steps per case (a KCP case is one plan).
var soakSize = map[string]struct{ runs, steps int }{
	"kungfu": {50, 200},
	"acp":    {20, 40},
	"kcp":    {1000, 30},
}

// TestSoak fuzzes every suite's bundled reference against a fresh one,
// over many seeds and long cases, and fails on anything but agreement: a
// divergence (the reference disagrees with itself) or a harness error (the
// fuzzer's model expected what the protocol does not say). It is bounded,
// and not part of the default run: it runs with SIFU_SOAK=1 (docs/attack.md).
//
//	SIFU_SOAK_SEEDS  seeds, as a list of numbers and ranges (default 1-40)
//	SIFU_SOAK_TIME   no new seed starts after a suite ran this long (default 5m)
//	SIFU_SOAK_SUITES the suites (default every suite with a fuzzer)
//	SIFU_SOAK_SCALE  multiplies every run's cases (default 1)
func TestSoak(t *testing.T) {
	if os.Getenv("SIFU_SOAK") == "" {
		t.Skip("the soak runs with SIFU_SOAK=1 (docs/attack.md)")
	}
	seeds, err := soakSeeds(envOr("SIFU_SOAK_SEEDS", "1-40"))
	if err != nil {
		t.Fatalf("SIFU_SOAK_SEEDS: %v", err)
	}
	budget, err := time.ParseDuration(envOr("SIFU_SOAK_TIME", "5m"))
	if err != nil {
		t.Fatalf("SIFU_SOAK_TIME: %v", err)
	}
	scale, err := strconv.Atoi(envOr("SIFU_SOAK_SCALE", "1"))
	if err != nil || scale < 1 {
		t.Fatalf("SIFU_SOAK_SCALE must be a positive whole number, not %q", os.Getenv("SIFU_SOAK_SCALE"))
	}
	var suites []string
	for _, name := range registry.Names() {
		if s, _ := registry.Lookup(name); s.Fuzzes {
			suites = append(suites, name)
		}
	}
	if only := os.Getenv("SIFU_SOAK_SUITES"); only != "" {
		suites = strings.Split(only, ",")
	}
	for _, name := range suites {
		t.Run(name, func(t *testing.T) {
			s, err := registry.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			size, ok := soakSize[name]
			if !ok {
				t.Fatalf("no soak size for suite %s: add it to soakSize", name)
			}
			size.runs *= scale
			subject, err := s.Open(registry.Spec{})
			if err != nil {
				t.Fatal(err)
			}
			defer subject.Close()
			start := time.Now()
			ran, steps := 0, 0
			for _, seed := range seeds {
				if time.Since(start) > budget {
					t.Logf("%s: the %s budget is spent; seeds after %d not run", name, budget, seeds[ran-1])
					break
				}
				reproduce := fmt.Sprintf("sifu fuzz --suite %s --seed %d --runs %d --steps %d", name, seed, size.runs, size.steps)
				began := time.Now()
				res, err := subject.Fuzz(context.Background(), registry.FuzzRequest{Seed: seed, Runs: size.runs, Steps: size.steps, ShrinkTime: 10 * time.Second})
				ran++
				steps += res.Steps
				t.Logf("seed %d: %d cases, %d steps in %s", seed, res.Runs, res.Steps, time.Since(began).Round(time.Millisecond))
				if err != nil {
					t.Errorf("seed %d: %v\nreproduce: %s", seed, err, reproduce)
				}
				if d := res.Divergence; d != nil {
					t.Errorf("seed %d: the reference diverged from itself at step %d: %s\nreproduce: %s", seed, d.Step+1, d.Detail, reproduce)
				}
			}
			t.Logf("%s: %d seeds, %d steps in %s", name, ran, steps, time.Since(start).Round(time.Second))
		})
	}
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// soakSeeds reads "1-40" or "7,13,20-25".
func soakSeeds(spec string) ([]uint64, error) {
	var out []uint64
	for _, part := range strings.Split(spec, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil || a == 0 {
			return nil, fmt.Errorf("%q is not a seed (a positive number) or a range of them (1-40)", part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a range of seeds (1-40)", part)
			}
		}
		for s := a; s <= b; s++ {
			out = append(out, s)
		}
	}
	return out, nil
}
