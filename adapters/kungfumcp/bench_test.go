package kungfumcp

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func benchClient(b *testing.B) (*Client, func()) { return benchClientOver(b, false) }

// benchClientOver serves the reference behind the bundled map and returns a
// client of it over MCP, or over the plain HTTP form (api).
func benchClientOver(b *testing.B, api bool) (*Client, func()) {
	raw := bundledRawB(b)
	s, err := Parse(Bundled, raw, nil)
	if err != nil {
		b.Fatal(err)
	}
	ref, err := kungfuinproc.New()
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(NewServer(ref, s).Handler())
	c := NewClient(srv.URL, s, 10*time.Second)
	if api {
		c = NewAPIClient(srv.URL, s, 10*time.Second)
	}
	return c, func() { c.Close(); srv.Close() }
}

// BenchmarkActOverMCP measures one action through the map, the go-sdk
// client and server, over loopback.
func BenchmarkActOverMCP(b *testing.B) {
	c, done := benchClient(b)
	defer done()
	ctx := context.Background()
	r, err := c.Control(ctx, kungfu.Control{Name: kungfu.ControlProvision, Params: map[string]any{"name": "bench"}})
	if err != nil || !r.OK {
		b.Fatal(err, r)
	}
	agent := r.Result["agent"].(string)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := c.Act(ctx, kungfu.Action{Agent: agent, Name: "memory.create", Params: map[string]any{"content": "x"}})
		if err != nil || !resp.OK {
			b.Fatal(err, resp)
		}
	}
}

// BenchmarkProvisionOverMCP measures registering an agent and opening its
// session.
func BenchmarkProvisionOverMCP(b *testing.B) {
	c, done := benchClient(b)
	defer done()
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		if r, err := c.Control(ctx, kungfu.Control{Name: kungfu.ControlProvision, Params: map[string]any{"name": "bench"}}); err != nil || !r.OK {
			b.Fatal(err, r)
		}
	}
}

// BenchmarkParallelReadsOverMCP measures reads by eight goroutines at once
// (reads are not rate-limited).
func BenchmarkParallelReadsOverMCP(b *testing.B) { parallelReads(b, false) }

// BenchmarkParallelReadsOverAPI: the same through the plain HTTP form.
func BenchmarkParallelReadsOverAPI(b *testing.B) { parallelReads(b, true) }

func parallelReads(b *testing.B, api bool) {
	c, done := benchClientOver(b, api)
	defer done()
	ctx := context.Background()
	r, err := c.Control(ctx, kungfu.Control{Name: kungfu.ControlProvision, Params: map[string]any{"name": "bench"}})
	if err != nil || !r.OK {
		b.Fatal(err, r)
	}
	agent := r.Result["agent"].(string)
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if resp, err := c.Read(ctx, kungfu.Read{Agent: agent, View: "agent"}); err != nil || !resp.OK {
				b.Error(err, resp)
				return
			}
		}
	})
}
