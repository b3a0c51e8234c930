package fuzz_test

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
)

// faulty is a property whose harness breaks in case 3 at step 4, by
// fault: Broken, a panic, or the target lost.
func faulty(fault string) fuzz.Property {
	cases := 0
	return func(t *rapid.T, p *fuzz.Probe) {
		cases++
		for i := range 5 {
			rapid.IntRange(0, 9).Draw(t, "x")
			p.Stepped()
			if cases == 3 && i == 3 {
				switch fault {
				case "broken":
					p.Broken(errors.New("the model expected /result/secret"))
				case "panic":
					var m map[string]int
					m["planted"]++ // a nil map: a fault of the model
				case "unreachable":
					p.Unreachable(errors.New("connection refused"))
				}
			}
		}
	}
}

// TestAHarnessFaultSaysWhereToReproduceIt: a fault of the fuzzer's own
// model, reported or a panic, ends the run as a HarnessError naming the
// seed, the case and the step, without shrinking it.
func TestAHarnessFaultSaysWhereToReproduceIt(t *testing.T) {
	for _, fault := range []string{"broken", "panic"} {
		t.Run(fault, func(t *testing.T) {
			res, err := fuzz.Run(fuzz.Config{Seed: 11, Runs: 20}, faulty(fault))
			var h *fuzz.HarnessError
			if !errors.As(err, &h) {
				t.Fatalf("Run: %v (%T), want a HarnessError; divergence %v", err, err, res.Divergence)
			}
			if h.Seed != 11 || h.Case != 3 || h.Step != 4 || h.Shrinking {
				t.Errorf("HarnessError at seed %d case %d step %d (shrinking %v), want seed 11 case 3 step 4", h.Seed, h.Case, h.Step, h.Shrinking)
			}
			for _, want := range []string{"seed 11", "case 3", "step 4"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the message %q does not say %q", err, want)
				}
			}
			if fault == "panic" && (!strings.Contains(err.Error(), "nil map") || !strings.Contains(h.Stack, "fuzz_test.go")) {
				t.Errorf("a panic's error should say what and where: %v\n%s", err, h.Stack)
			}
			if res.Runs != 3 {
				t.Errorf("%d cases ran: a harness fault is not shrunk", res.Runs)
			}
		})
	}
}

func TestALostTargetIsATargetError(t *testing.T) {
	_, err := fuzz.Run(fuzz.Config{Seed: 11, Runs: 20}, faulty("unreachable"))
	var te *fuzz.TargetError
	if !errors.As(err, &te) || te.Case != 3 || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Run: %v (%T), want a TargetError of case 3", err, err)
	}
}

// TestAFailureNoCaseRecordedIsAHarnessError: rapid failing the run without
// a divergence (here: every case skipped) is not "no divergence".
func TestAFailureNoCaseRecordedIsAHarnessError(t *testing.T) {
	_, err := fuzz.Run(fuzz.Config{Seed: 5, Runs: 10}, func(t *rapid.T, _ *fuzz.Probe) { t.Skip("never valid") })
	var h *fuzz.HarnessError
	if !errors.As(err, &h) || !strings.Contains(err.Error(), "only generated 0 valid tests") {
		t.Fatalf("Run: %v, want a HarnessError saying no valid case was generated", err)
	}
}

// TestAHarnessFaultWhileShrinkingKeepsTheDivergence: the divergence is
// returned, and the fault with it.
func TestAHarnessFaultWhileShrinkingKeepsTheDivergence(t *testing.T) {
	diverged := false
	res, err := fuzz.Run(fuzz.Config{Seed: 2, Runs: 50}, func(t *rapid.T, p *fuzz.Probe) {
		n := rapid.IntRange(0, 100).Draw(t, "n")
		p.Stepped()
		if n > 50 {
			if diverged {
				p.Broken(errors.New("planted while shrinking"))
			}
			diverged = true
			p.Diverged(&fuzz.Divergence{Detail: "n is large"})
		}
	})
	var h *fuzz.HarnessError
	if !errors.As(err, &h) || !h.Shrinking || h.DivergedCase == 0 || res.Divergence == nil {
		t.Fatalf("Run: %v, divergence %v; want the divergence and a HarnessError met while shrinking", err, res.Divergence)
	}
}
