package kungfuref

import (
	"fmt"
	"testing"
)

// BenchmarkAct measures keyed memory.create actions on the in-memory store.
func BenchmarkAct(b *testing.B) {
	s, err := New(WithLimits(Limits{MaxContentBytes: 1 << 10}))
	if err != nil {
		b.Fatal(err)
	}
	a, _ := s.Provision("bench")
	params := map[string]any{"content": "benchmark content"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if r := s.Act(Request{Agent: a, Action: "memory.create", Key: fmt.Sprintf("k%d", i), Params: params}); r.Rejection != nil {
			b.Fatal(r.Rejection)
		}
	}
}
