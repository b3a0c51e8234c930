package kcp_test

import (
	"encoding/json"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kcpref"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// corpusInput is one planner vector of the corpus, parsed ahead of time.
type corpusInput struct {
	task string
	m    kcpref.Manifest
	opts kcpref.Options
}

func loadCorpus(b *testing.B) []corpusInput {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		b.Fatal(err)
	}
	var out []corpusInput
	for _, c := range plan.Checks {
		if c.Steps[0].Name != "plan" {
			continue
		}
		p := c.Steps[0].Params
		m, err := kcpref.ParseManifest([]byte(p["manifest"].(string)))
		if err != nil {
			continue
		}
		var opts kcpref.Options
		raw, _ := json.Marshal(p["options"])
		if err := json.Unmarshal(raw, &opts); err != nil {
			b.Fatal(err)
		}
		out = append(out, corpusInput{task: p["task"].(string), m: m, opts: opts})
	}
	return out
}

// BenchmarkCorpusPlanOnly is Plan alone over the corpus vectors.
func BenchmarkCorpusPlanOnly(b *testing.B) {
	in := loadCorpus(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := in[i%len(in)]
		kcpref.Plan(c.task, c.m, c.opts)
	}
}

// BenchmarkCorpusParseOnly is ParseManifest alone over the corpus vectors.
func BenchmarkCorpusParseOnly(b *testing.B) {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		b.Fatal(err)
	}
	var docs [][]byte
	for _, c := range plan.Checks {
		if c.Steps[0].Name == "plan" {
			docs = append(docs, []byte(c.Steps[0].Params["manifest"].(string)))
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		kcpref.ParseManifest(docs[i%len(docs)])
	}
}

// BenchmarkCorpusPlanRepeated is Plan alone over the corpus vectors, each
// planned 200 times in a row, as the side-by-side benchmark of
// adapters/kcpexec times them (a planner that plans one manifest again and
// again); ns/op is the mean over the vectors.
func BenchmarkCorpusPlanRepeated(b *testing.B) {
	in := loadCorpus(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := in[(i/200)%len(in)]
		kcpref.Plan(c.task, c.m, c.opts)
	}
}
