package kungfuhttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func startServer(t *testing.T, opts ServerOptions) *httptest.Server {
	t.Helper()
	ref, err := kungfuinproc.New()
	if err != nil {
		t.Fatal(err)
	}
	opts.CredentialKey = []byte("test-key")
	srv := httptest.NewServer(NewHandler(ref, opts))
	t.Cleanup(srv.Close)
	return srv
}

// TestServerAnswersBadInputWithBindingRejections: every bad request gets a
// 4xx and a binding-shaped rejection with a reason and a next step.
func TestServerAnswersBadInputWithBindingRejections(t *testing.T) {
	srv := startServer(t, ServerOptions{ControlToken: "ctl"})
	cases := []struct {
		name, method, path, auth, body string
		status                         int
		reason                         string
	}{
		{"no credential", "POST", "/kungfu/v1/act", "", `{"action":"memory.create"}`, 401, "unauthenticated"},
		{"forged credential", "POST", "/kungfu/v1/act", "kfa.alice-1.0000", `{"action":"memory.create"}`, 401, "unauthenticated"},
		{"wrong control token", "POST", "/kungfu/v1/control", "nope", `{"control":"provision"}`, 401, "unauthenticated"},
		{"malformed JSON", "POST", "/kungfu/v1/control", "ctl", `{"control":`, 400, "invalid_params"},
		{"unknown field", "POST", "/kungfu/v1/control", "ctl", `{"control":"provision","x":1}`, 400, "invalid_params"},
		{"oversized body", "POST", "/kungfu/v1/control", "ctl", `{"control":"provision","params":{"p":"` + strings.Repeat("x", MaxBody) + `"}}`, 413, "invalid_params"},
		{"unknown route", "GET", "/nope", "", "", 404, "unknown_action"},
		{"wrong method", "GET", "/kungfu/v1/act", "", "", 404, "unknown_action"},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		if c.auth != "" {
			req.Header.Set("Authorization", "Bearer "+c.auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body kungfu.Response
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil || res.StatusCode != c.status || body.OK || body.Rejection == nil ||
			body.Rejection.Reason != c.reason || !kungfu.IsNextStep(body.Rejection.NextStep) {
			t.Errorf("%s: status %d, body %+v (%v); want %d %s", c.name, res.StatusCode, body.Rejection, err, c.status, c.reason)
		}
	}
}

func TestClientRoundTripAndCredentialsStayInside(t *testing.T) {
	srv := startServer(t, ServerOptions{ControlToken: "ctl"})
	c := NewClient(srv.URL, ClientOptions{ControlToken: "ctl"})
	ctx := context.Background()
	h, err := c.Hello(ctx)
	if err != nil || h.Implementation == "" {
		t.Fatalf("hello: %+v %v", h, err)
	}
	r, err := c.Control(ctx, kungfu.Control{Name: "provision", Params: map[string]any{"name": "alice"}})
	if err != nil || !r.OK {
		t.Fatal(err, r)
	}
	if _, leaked := r.Result["credential"]; leaked {
		t.Error("the credential must stay inside the adapter")
	}
	alice := r.Result["agent"].(string)
	got, err := c.Act(ctx, kungfu.Action{Agent: alice, Name: "memory.create", Key: "k", Params: map[string]any{"content": "x"}})
	if err != nil || !got.OK || got.Result["version"] != 1.0 {
		t.Fatalf("act: %+v %v", got, err)
	}
	rej, err := c.Read(ctx, kungfu.Read{Agent: alice, View: "memory", Params: map[string]any{"memory": "missing"}})
	if err != nil || rej.OK || rej.Rejection.Reason != "not_found" {
		t.Fatalf("read: %+v %v", rej, err)
	}
	if _, err := c.Act(ctx, kungfu.Action{Agent: "stranger", Name: "memory.create"}); err == nil {
		t.Error("an agent the adapter never provisioned has no credential")
	}
}

// TestGarbageAnswersAreHarnessErrors: a server that answers outside the
// binding yields an AdapterError naming the problem, never a panic.
func TestGarbageAnswersAreHarnessErrors(t *testing.T) {
	answers := map[string]string{
		"/kungfu/v1/hello":   `{"implementation": 7}`,
		"/kungfu/v1/control": `not json at all`,
		"/kungfu/v1/act":     `{"ok": true, "rejection": {"reason": "x"}}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(answers[r.URL.Path]))
	}))
	defer srv.Close()
	c := NewClient(srv.URL, ClientOptions{Retries: -1})
	ctx := context.Background()
	var ae *engine.AdapterError
	if _, err := c.Hello(ctx); !errors.As(err, &ae) || !strings.Contains(err.Error(), "/implementation") {
		t.Errorf("hello: %v", err)
	}
	if _, err := c.Control(ctx, kungfu.Control{Name: "clock"}); !errors.As(err, &ae) || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("control: %v", err)
	}
	c.creds["a"] = "kfa.a.x"
	if _, err := c.Act(ctx, kungfu.Action{Agent: "a", Name: "x"}); !errors.As(err, &ae) {
		t.Errorf("act: %v", err)
	}
}
