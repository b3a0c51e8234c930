package kcpref

import (
	"fmt"
	"strings"
	"testing"
)

// midManifest is a deterministic 200-unit manifest with triggers, audiences,
// temporal windows, prices, sizes and a few federation refs.
func midManifest(units int) string {
	var b strings.Builder
	b.WriteString("project: bench\nversion: \"1.0.0\"\nunits:\n")
	for i := range units {
		w := func(k int) string { return propVocab[(i*7+k*5)%len(propVocab)] }
		fmt.Fprintf(&b, "  - id: unit-%03d\n    path: docs/%s/%03d.md\n    intent: \"%s %s for the %s team\"\n", i, w(0), i, w(1), w(2), w(3))
		fmt.Fprintf(&b, "    triggers: [%s, %s]\n", w(4), w(5))
		if i%5 == 0 {
			b.WriteString("    audience: [human]\n")
		}
		if i%7 == 0 {
			fmt.Fprintf(&b, "    temporal: {valid_from: \"2026-01-01\", valid_until: \"2026-12-31\", superseded_by: unit-%03d}\n", (i+1)%units)
		}
		if i%3 == 0 {
			fmt.Fprintf(&b, "    payment: {methods: [{type: x402, price_per_request: \"0.0%d\", currency: USDC}]}\n", 1+i%9)
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, "    size_tokens: %d\n", 100+i*13)
		}
	}
	b.WriteString("manifests:\n")
	for i := range 5 {
		fmt.Fprintf(&b, "  - {id: ref-%d, url: \"https://r%d.example/k.yaml\", context: [prod]}\n", i, i)
	}
	return b.String()
}

func BenchmarkPlan(b *testing.B) {
	m := mustParse(b, midManifest(200))
	o := agentOpts()
	o.Budget = &Budget{Amount: 0.5}
	o.ContextBudget = ptr(8000.0)
	o.MaxUnits = ptr(20.0)
	b.ReportAllocs()
	for b.Loop() {
		Plan("deploy the sovereign compute guide with a budget policy", m, o)
	}
}

func BenchmarkParseManifest(b *testing.B) {
	data := []byte(midManifest(200))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseManifest(data); err != nil {
			b.Fatal(err)
		}
	}
}
