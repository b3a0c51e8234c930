package kungfuhttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/go-resty/resty/v2"

	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// BenchmarkActOverHTTP measures keyed actions through the HTTP adapter and
// server over loopback, with parallel clients.
func BenchmarkActOverHTTP(b *testing.B) {
	target, err := kungfuinproc.New(kungfuref.WithLimits(kungfuref.Limits{MaxContentBytes: 1 << 10}))
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

// The floor under BenchmarkActOverHTTP: the same round trip with nothing of
// the binding on either side, through net/http alone and through resty (the
// client sifu uses), against a handler that answers a fixed response.
func floorServer(b *testing.B) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true,"result":{"memory":"mem-1","version":1}}`))
	}))
}

// BenchmarkFloorNetHTTP is one loopback request and answer through net/http.
func BenchmarkFloorNetHTTP(b *testing.B) {
	srv := floorServer(b)
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	body := []byte(`{"action":"memory.create","params":{"content":"x"}}`)
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := c.Post(srv.URL+"/kungfu/v1/act", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
	})
}

// BenchmarkFloorResty is the same through resty.
func BenchmarkFloorResty(b *testing.B) {
	srv := floorServer(b)
	defer srv.Close()
	rc := resty.New().SetTransport(&http.Transport{MaxIdleConnsPerHost: 64}).SetBaseURL(srv.URL)
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := rc.R().SetBody(actBody{Action: "memory.create", Params: map[string]any{"content": "x"}}).Post("/kungfu/v1/act"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
