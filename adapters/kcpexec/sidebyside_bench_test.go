package kcpexec

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// Side-by-side planner timing: docs/performance.md, "KCP planner".
const (
	benchWarmup  = 500 // untimed plans per vector and round, so V8 has compiled plan()
	benchBatches = 5   // timed batches per vector and round; their median counts
	benchBatch   = 200 // plans per batch
)

// BenchmarkPlannerSideBySide times the Go planner and kcp-agent's plan()
// over the corpus in one run, each in process inside its own runner
// (`sifu-kcp --serve` with GOMAXPROCS=1; runners/kcp-node/runner.mjs), both
// through the runner protocol's bench op so that each is timed the same
// way, inside the process, the pipe not counted. Every b.N is a round over
// the corpus; a vector's two timings in a round are a pair, taken one
// after the other, which goes first alternating by round. It reports the
// median over the vectors of each vector's median over the rounds: the Go
// and kcp-agent time per plan and their ratio (kcp-agent / Go), with the
// ratio's 10th and 90th percentiles over the vectors.
//
// kcp-agent is the package directory of an installed or built kcp-agent,
// given as SIFU_KCP_AGENT; without it only the Go side is timed:
//
//	SIFU_KCP_AGENT=/path/to/kcp-agent go test -run '^$' -bench PlannerSideBySide -benchtime 10x ./adapters/kcpexec/
func BenchmarkPlannerSideBySide(b *testing.B) {
	ctx := context.Background()
	corpus := planCorpus(b)
	goRunner, err := StartRunner(ctx, "GOMAXPROCS=1 "+serveCommand(b))
	if err != nil {
		b.Fatal(err)
	}
	defer goRunner.Close()
	var nodeRunner *Runner
	if module := os.Getenv("SIFU_KCP_AGENT"); module != "" {
		script, _ := filepath.Abs(filepath.Join("..", "..", "runners", "kcp-node", "runner.mjs"))
		if nodeRunner, err = StartRunner(ctx, fmt.Sprintf("node %q --module %q", script, module)); err != nil {
			b.Fatal(err)
		}
		defer nodeRunner.Close()
	} else {
		b.Log("SIFU_KCP_AGENT is not set (the directory of a kcp-agent package): timing the Go planner only")
	}
	goNs := make([][]float64, len(corpus)) // [vector][round]
	nodeNs := make([][]float64, len(corpus))
	ratio := make([][]float64, len(corpus))
	b.ResetTimer()
	for round := 0; round < b.N; round++ {
		for v, req := range corpus {
			runners := []*Runner{goRunner, nodeRunner}
			if round%2 == 1 {
				slices.Reverse(runners)
			}
			took := map[*Runner]float64{}
			for _, r := range runners {
				if r == nil {
					continue
				}
				ns, err := medianBench(ctx, r, req)
				if err != nil {
					b.Fatalf("%s: %v", req.Name, err)
				}
				took[r] = ns
			}
			goNs[v] = append(goNs[v], took[goRunner])
			if nodeRunner != nil {
				nodeNs[v] = append(nodeNs[v], took[nodeRunner])
				ratio[v] = append(ratio[v], took[nodeRunner]/took[goRunner])
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(medianOfMedians(goNs, 0.5), "go-ns/plan")
	if nodeRunner != nil {
		b.ReportMetric(medianOfMedians(nodeNs, 0.5), "kcp-agent-ns/plan")
		b.ReportMetric(medianOfMedians(ratio, 0.5), "ratio")
		b.ReportMetric(medianOfMedians(ratio, 0.1), "ratio-p10")
		b.ReportMetric(medianOfMedians(ratio, 0.9), "ratio-p90")
		// The vectors where the Go planner is least ahead: where to look
		// first (go test -v shows them).
		order := make([]int, len(corpus))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, c int) int { return cmp.Compare(quantile(ratio[a], 0.5), quantile(ratio[c], 0.5)) })
		for _, v := range order[:min(5, len(order))] {
			b.Logf("%s: Go %.0f ns, kcp-agent %.0f ns, ratio %.2f", corpus[v].Name, quantile(goNs[v], 0.5), quantile(nodeNs[v], 0.5), quantile(ratio[v], 0.5))
		}
	}
	b.ReportMetric(float64(len(corpus)), "vectors")
}

// planCorpus is every plan step of the KCP suite's corpus whose manifest
// the Go planner accepts.
func planCorpus(b *testing.B) []kcp.PlanRequest {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		b.Fatal(err)
	}
	var out []kcp.PlanRequest
	seen := map[string]bool{}
	for _, c := range plan.Checks {
		if len(c.Steps) == 0 || c.Steps[0].Name != "plan" {
			continue
		}
		p := c.Steps[0].Params
		manifest, _ := p["manifest"].(string)
		task, _ := p["task"].(string)
		name, _ := p["name"].(string)
		opts, _ := p["options"].(map[string]any)
		if seen[name+"\x00"+manifest+"\x00"+task] {
			continue
		}
		seen[name+"\x00"+manifest+"\x00"+task] = true
		out = append(out, kcp.PlanRequest{Name: name, Manifest: manifest, Task: task, Options: opts})
	}
	return out
}

// medianBench is the median time per plan of one bench request.
func medianBench(ctx context.Context, r *Runner, req kcp.PlanRequest) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	took, err := r.Bench(ctx, BenchRequest{Plan: req, Warmup: benchWarmup, Batches: benchBatches, Batch: benchBatch})
	var refusal *kcp.Refusal
	if errors.As(err, &refusal) {
		return 0, fmt.Errorf("the planner refused the corpus vector: %s", refusal.Message)
	}
	if err != nil {
		return 0, err
	}
	ns := make([]float64, len(took))
	for i, d := range took {
		ns[i] = float64(d)
	}
	return quantile(ns, 0.5), nil
}

// medianOfMedians is the q-quantile over the vectors of each vector's
// median over the rounds.
func medianOfMedians(perVector [][]float64, q float64) float64 {
	var m []float64
	for _, rounds := range perVector {
		if len(rounds) > 0 {
			m = append(m, quantile(rounds, 0.5))
		}
	}
	return quantile(m, q)
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[int(q*float64(len(s)-1)+0.5)]
}
