package kungfuhttp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

const validHello = `{"implementation":"broken","version":"1","spec":"Kungfu Protocol 1.0-rc1","profiles":["memory"],"controls":["provision"]}`

// broken serves a valid hello and answers every other route with
// misbehave. Handlers that hang wait on stop, which the cleanup closes
// before the server, since httptest waits for every handler to return.
func broken(t *testing.T, misbehave func(w http.ResponseWriter, r *http.Request, stop <-chan struct{})) *httptest.Server {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/kungfu/v1/hello" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(validHello))
			return
		}
		misbehave(w, r, stop)
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv
}

// brokenServers are fake implementations that crash, hang, answer garbage,
// answer slowly, or answer another schema.
func brokenServers() map[string]func(http.ResponseWriter, *http.Request, <-chan struct{}) {
	return map[string]func(http.ResponseWriter, *http.Request, <-chan struct{}){
		"crash": func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close() // the process died: the connection ends with no answer
			}
		},
		"hang": func(w http.ResponseWriter, r *http.Request, stop <-chan struct{}) { <-stop },
		"garbage": func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><body>502 Bad Gateway</body></html>"))
		},
		"slow": func(w http.ResponseWriter, r *http.Request, stop <-chan struct{}) {
			// Headers at once, then a body that trickles and never ends in time.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"ok":true,`))
			w.(http.Flusher).Flush()
			<-stop
		},
		"other-schema": func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}`))
		},
		"server-error": func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			http.Error(w, "internal error", http.StatusInternalServerError)
		},
	}
}

// TestBrokenServers: against each broken server every act, read and control
// ends with an adapter error (harness_error) or a deadline (timeout), never
// an answer, and returns within the configured request timeout and retries.
func TestBrokenServers(t *testing.T) {
	for name, misbehave := range brokenServers() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := broken(t, misbehave)
			c := NewClient(srv.URL, ClientOptions{Timeout: 200 * time.Millisecond})
			c.creds["alice-1"] = "kfa.alice-1.x" // as if provisioned
			calls := map[string]func(context.Context) (kungfu.Response, error){
				"control": func(ctx context.Context) (kungfu.Response, error) {
					return c.Control(ctx, kungfu.Control{Name: "provision", Params: map[string]any{"name": "alice"}})
				},
				"act": func(ctx context.Context) (kungfu.Response, error) {
					return c.Act(ctx, kungfu.Action{Agent: "alice-1", Name: "memory.create", Params: map[string]any{"content": "x"}})
				},
				"keyed act": func(ctx context.Context) (kungfu.Response, error) {
					return c.Act(ctx, kungfu.Action{Agent: "alice-1", Name: "memory.create", Key: "k", Params: map[string]any{"content": "x"}})
				},
				"read": func(ctx context.Context) (kungfu.Response, error) {
					return c.Read(ctx, kungfu.Read{Agent: "alice-1", View: "memories"})
				},
			}
			for what, call := range calls {
				done := make(chan error, 1)
				go func() {
					_, err := call(context.Background())
					done <- err
				}()
				var err error
				select {
				case err = <-done:
				case <-time.After(20 * time.Second): // generous: three attempts of 200ms and backoff
					t.Fatalf("%s did not return: the request timeout was not applied", what)
				}
				var ae *engine.AdapterError
				timedOut := errors.Is(err, context.DeadlineExceeded)
				if !errors.As(err, &ae) && !timedOut {
					t.Errorf("%s: %v; want an adapter error or a deadline", what, err)
				}
				if (name == "hang" || name == "slow") && !timedOut {
					t.Errorf("%s against a server that never finishes must time out, got %v", what, err)
				}
			}
		})
	}
}

// TestBrokenHello: a hello in another schema or as garbage is an adapter
// error naming what was wrong.
func TestBrokenHello(t *testing.T) {
	for body, want := range map[string]string{
		`{"name":"x"}`: "implementation",
		`not json`:     "hello",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }))
		_, err := NewClient(srv.URL, ClientOptions{Timeout: 200 * time.Millisecond}).Hello(context.Background())
		srv.Close()
		var ae *engine.AdapterError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), want) {
			t.Errorf("hello %s: %v; want an adapter error mentioning %q", body, err, want)
		}
	}
}

// TestAnAnswerTooLongIsOneSentence: an answer over the body limit is an
// adapter error naming the URL, the limit and what to check, not resty's
// own words; it is not repeated.
func TestAnAnswerTooLongIsOneSentence(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = w.Write([]byte(`{"implementation":"` + strings.Repeat("x", 2<<20) + `"}`))
	}))
	defer srv.Close()
	_, err := NewClient(srv.URL, ClientOptions{MaxResponse: 1 << 20}).Hello(context.Background())
	var ae *engine.AdapterError
	if !errors.As(err, &ae) {
		t.Fatalf("hello with a 2 MiB answer: %v; want an adapter error", err)
	}
	for _, want := range []string{"GET " + srv.URL + "/kungfu/v1/hello", "longer than 1 MiB (1048576 bytes)", "--url"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "resty") {
		t.Errorf("%q quotes resty", err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("the request was made %d times; an answer too long is not repeated", n)
	}
}
