package httpwire

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/sifu-dev/sifu/adapters/inproc"
	ref "github.com/sifu-dev/sifu/reference/kungfu"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// BenchmarkActOverHTTP measures keyed actions through the HTTP adapter and
// server over loopback, with parallel clients.
func BenchmarkActOverHTTP(b *testing.B) {
	target, err := inproc.NewKungfu(ref.WithLimits(ref.Limits{MaxContentBytes: 1 << 10}))
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(NewHandler(target, ServerOptions{CredentialKey: []byte("k")}))
	defer srv.Close()
	c := NewClient(srv.URL, ClientOptions{})
	ctx := context.Background()
	r, err := c.Control(ctx, kungfu.Control{Name: "provision", Params: map[string]any{"name": "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	agent := r.Result["agent"].(string)
	var n atomic.Int64
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			key := fmt.Sprintf("k%d", n.Add(1))
			resp, err := c.Act(ctx, kungfu.Action{Agent: agent, Name: "memory.create", Key: key, Params: map[string]any{"content": "benchmark content"}})
			if err != nil || !resp.OK {
				b.Fatal(err, resp.Rejection)
			}
		}
	})
}
