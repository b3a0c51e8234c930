package kcpfuzz_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kcpinproc"
	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/attack/kcpfuzz"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kcp"
)

func seeds(t *testing.T) []kcpfuzz.Seed {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	s := kcpfuzz.Seeds(plan.Checks)
	if len(s) < 40 {
		t.Fatalf("only %d planner vectors", len(s))
	}
	return s
}

func TestTheReferenceAgreesWithItself(t *testing.T) {
	cfg := kcpfuzz.Config{Target: kcpinproc.Reference{}, Oracle: kcpinproc.Reference{}, Seeds: seeds(t), Name: "fuzz-kcp-1"}
	res, err := fuzz.Run(fuzz.Config{Seed: 1, Runs: 500}, kcpfuzz.Property(context.Background(), cfg))
	if err != nil {
		t.Fatal(err)
	}
	if res.Divergence != nil {
		t.Fatalf("the reference diverged from itself: %s", res.Divergence.Detail)
	}
}

// overEager selects one unit too many: it reports the first skipped unit as
// selected too, the way a planner that forgets a gate would.
type overEager struct{ kcpinproc.Reference }

func (o overEager) Plan(ctx context.Context, req kcp.PlanRequest) (map[string]any, error) {
	out, err := o.Reference.Plan(ctx, req)
	if err != nil {
		return out, err
	}
	if skipped, _ := out["skipped"].([]any); len(skipped) > 0 {
		out["skipped"] = skipped[1:]
	}
	return out, nil
}

func TestAWrongPlannerYieldsAVectorThatCatchesIt(t *testing.T) {
	cfg := kcpfuzz.Config{Target: overEager{}, Oracle: kcpinproc.Reference{}, Seeds: seeds(t), Name: "fuzz-kcp-2"}
	res, err := fuzz.Run(fuzz.Config{Seed: 2, Runs: 200, ShrinkTime: 3 * time.Second}, kcpfuzz.Property(context.Background(), cfg))
	if err != nil {
		t.Fatal(err)
	}
	d := res.Divergence
	if d == nil || d.Vector == nil {
		t.Fatalf("no divergence written as a vector: %+v", d)
	}
	checks, err := kcp.CompileVector(fstest.MapFS{"fuzz-kcp-2.json": {Data: d.Vector}}, "fuzz-kcp-2.json", nil)
	if err != nil {
		t.Fatalf("the finding is not an upstream-format vector: %v\n%s", err, d.Vector)
	}
	if v := engine.Run(context.Background(), checks[0], kcp.NewExecutor(kcpinproc.Reference{})); v.Status != engine.Pass {
		t.Errorf("the finding fails on the reference: %s", v.Message)
	}
	if v := engine.Run(context.Background(), checks[0], kcp.NewExecutor(overEager{})); v.Status != engine.Fail {
		t.Errorf("the finding does not fail on the wrong planner: %s", v.Status)
	}
}

// oldYAML reads numbers the way js-yaml 4.1 did, underscores allowed
// (1_000 is 1000), as a planner on the wrong js-yaml would.
type oldYAML struct{ kcpinproc.Reference }

var underscoreDigits = regexp.MustCompile(`(\d)_(\d)`)

func (o oldYAML) Plan(ctx context.Context, req kcp.PlanRequest) (map[string]any, error) {
	req.Manifest = underscoreDigits.ReplaceAllString(req.Manifest, "$1$2")
	return o.Reference.Plan(ctx, req)
}

// TestNumberSpellingsFindTheWrongYAML: the fuzzer's numeric respellings
// reach a planner that reads numbers with another js-yaml's rules.
func TestNumberSpellingsFindTheWrongYAML(t *testing.T) {
	var plain []kcpfuzz.Seed // no seed spells a number with an underscore itself
	for _, s := range seeds(t) {
		if !underscoreDigits.MatchString(s.Manifest) {
			plain = append(plain, s)
		}
	}
	cfg := kcpfuzz.Config{Target: oldYAML{}, Oracle: kcpinproc.Reference{}, Seeds: plain, Name: "fuzz-kcp-3"}
	res, err := fuzz.Run(fuzz.Config{Seed: 3, Runs: 2000, ShrinkTime: 3 * time.Second}, kcpfuzz.Property(context.Background(), cfg))
	if err != nil {
		t.Fatal(err)
	}
	if res.Divergence == nil || !strings.Contains(string(res.Divergence.Vector), "_") {
		t.Fatalf("no divergence on an underscore number: %+v", res.Divergence)
	}
}
