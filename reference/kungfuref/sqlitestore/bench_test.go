package sqlitestore

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sifu-dev/sifu/reference/kungfuref"
)

// BenchmarkDurableAct measures keyed actions whose facts are on disk (WAL,
// full sync) before each answer.
func BenchmarkDurableAct(b *testing.B) {
	st, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s, err := kungfuref.New(kungfuref.WithStore(st), kungfuref.WithLimits(kungfuref.Limits{MaxContentBytes: 1 << 10}))
	if err != nil {
		b.Fatal(err)
	}
	a, _ := s.Provision("bench")
	params := map[string]any{"content": "benchmark content"}
	i := 0
	for b.Loop() {
		i++
		if r := s.Act(kungfuref.Request{Agent: a, Action: "memory.create", Key: fmt.Sprintf("k%d", i), Params: params}); r.Rejection != nil {
			b.Fatal(r.Rejection)
		}
	}
}
