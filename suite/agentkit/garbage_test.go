package agentkit_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/adapters/agentkithttp"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/agentkit"
)

// fixed "launches" a gateway that is already listening at url.
type fixed struct{ url string }

func (f fixed) Hello() agentkit.Hello { return agentkit.Hello{Implementation: "garbage"} }
func (f fixed) Launch(context.Context, string, string) (agentkithttp.Instance, error) {
	return fixedInstance(f), nil
}

type fixedInstance struct{ url string }

func (f fixedInstance) URL() string { return f.url }
func (f fixedInstance) Stop() error { return nil }

// TestGarbageNeverPasses: a gateway that answers every request with 200 and
// nonsense, or that speaks no HTTP at all, passes no check (apart from the
// start-up checks that only ask it to come up).
func TestGarbageNeverPasses(t *testing.T) {
	nonsense := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("<html>garbage</html>"))
	}))
	defer nonsense.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HELLO THIS IS NOT HTTP\r\n\r\n"))
			c.Close()
		}
	}()
	srv, _ := setup(t)
	for name, url := range map[string]string{"nonsense": nonsense.URL, "not-http": "http://" + ln.Addr().String()} {
		t.Run(name, func(t *testing.T) {
			tg := agentkit.RunTarget{New: func(context.Context) (agentkit.Target, func(), error) {
				m := &agentkithttp.Managed{Launcher: fixed{url}, Client: agentkithttp.NewClient(0), Server: srv}
				return m, m.Close, nil
			}}
			r := runWithin(t, tg, time.Second)
			for _, tc := range r.Tests {
				startup := slices.Contains(tc.Tags, "startup")
				if tc.Status == engine.Pass && !startup {
					t.Errorf("%s passed against a %s gateway", tc.ID, name)
				}
				if name == "not-http" && !startup && tc.Status != engine.HarnessError && tc.Status != engine.Timeout {
					t.Errorf("%s: %s, want harness_error (or timeout)", tc.ID, tc.Status)
				}
			}
		})
	}
}
