package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/registry"
)

// plantedFuzzer is a target whose fuzzer's own model breaks: a panic, or
// a capture it cannot make, in case 2 at step 3 (of any suite: the
// command line classifies every suite's fuzzer alike).
type plantedFuzzer struct{ fault string }

func (p plantedFuzzer) Fuzz(_ context.Context, req registry.FuzzRequest) (fuzz.Result, error) {
	cases := 0
	return fuzz.Run(fuzz.Config{Seed: req.Seed, Runs: req.Runs, Steps: req.Steps, ShrinkTime: req.ShrinkTime}, func(t *rapid.T, pr *fuzz.Probe) {
		cases++
		for step := 1; step <= 4; step++ {
			rapid.Bool().Draw(t, "x")
			pr.Stepped()
			if cases == 2 && step == 3 {
				switch p.fault {
				case "panic":
					var model map[string][]string
					model["secrets"] = nil // planted: a nil map
				case "capture":
					pr.Broken(errors.New("the oracle's answer at fuzz step 3: cannot capture s1: nothing at /result/secret"))
				}
			}
		}
	})
}

func (plantedFuzzer) Close() error { return nil }

// TestAFuzzerFaultIsAHarnessError: a fault of the fuzzer's own model is a
// harness_error, exit 1, with the seed, case and step and the command line
// that reproduces it; a malformed request is still exit 2.
func TestAFuzzerFaultIsAHarnessError(t *testing.T) {
	defer func(open func(*registry.Suite, registry.Spec) (fuzzSubject, error)) { openFuzzSubject = open }(openFuzzSubject)
	for _, suite := range []string{"kungfu", "kcp", "acp"} {
		for _, fault := range []string{"panic", "capture"} {
			openFuzzSubject = func(*registry.Suite, registry.Spec) (fuzzSubject, error) { return plantedFuzzer{fault}, nil }
			args := []string{"fuzz", "--suite", suite, "--seed", "5", "--runs", "10", "--steps", "4"}
			if got := run(args); got != exitFail {
				t.Errorf("sifu %s with a planted %s: exit %d, want %d", strings.Join(args, " "), fault, got, exitFail)
			}
			cmd := newRoot()
			cmd.SetArgs(args)
			var out bytes.Buffer
			cmd.SetOut(&out)
			err := cmd.ExecuteContext(context.Background())
			var h *fuzz.HarnessError
			if !errors.As(err, &h) {
				t.Fatalf("%s, %s: %v (%T), want a harness error", suite, fault, err, err)
			}
			for _, want := range []string{"seed 5", "case 2 at step 3", "reproduce: sifu fuzz --suite " + suite + " --target inproc --seed 5 --runs 2 --steps 4"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s, %s: the message does not say %q:\n%v", suite, fault, want, err)
				}
			}
			if strings.Contains(out.String(), "no divergence") {
				t.Errorf("%s, %s: a broken run said %q", suite, fault, out.String())
			}
		}
	}
	openFuzzSubject = func(*registry.Suite, registry.Spec) (fuzzSubject, error) { return plantedFuzzer{"panic"}, nil }
	for _, args := range [][]string{{"fuzz", "--no-such-flag"}, {"fuzz", "--steps", "0"}, {"fuzz", "--suite", "no-such-suite"}} {
		if got := run(args); got != exitUsage {
			t.Errorf("sifu %s: exit %d, want %d", strings.Join(args, " "), got, exitUsage)
		}
	}
}
