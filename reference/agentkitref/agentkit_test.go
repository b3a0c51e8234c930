package agentkitref

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestParseRef(t *testing.T) {
	r, err := ParseRef("cap://tool/ops/deduct@v2")
	if err != nil || r.Key() != "tool/ops/deduct" || r.Version != "v2" || r.String() != "cap://tool/ops/deduct@v2" {
		t.Fatalf("got %+v %v", r, err)
	}
	if r, _ := ParseRef("cap://tool/ops/deduct@"); r.String() != "cap://tool/ops/deduct" {
		t.Errorf("an empty version is no version: %s", r)
	}
	for in, want := range map[string]string{
		"tool/ops/x":       "missing cap:// scheme",
		"cap://tool/x":     "want cap://kind/domain/name",
		"cap://tool//x":    "empty segment",
		"cap://t*/ops/x":   "the kind segment cannot use wildcards",
		"cap://a/b/c/d@v1": "want cap://kind/domain/name",
	} {
		if _, err := ParseRef(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want %q, got %v", in, want, err)
		}
	}
	pat, _ := ParseRef("cap://tool/o*/*")
	if !pat.Match(Ref{Kind: "tool", Domain: "ops", Name: "x", Version: "v9"}) || pat.Match(Ref{Kind: "skill", Domain: "ops", Name: "x"}) {
		t.Error("prefix and wildcard matching")
	}
}

func TestApproveWords(t *testing.T) {
	for _, yes := range []string{"y", " YES ", "Ok", "approve", "同意", "是", "批准", "好", " 同意", "\u3000好\n"} {
		if !approves(yes, false) {
			t.Errorf("%q should approve", yes)
		}
	}
	for _, no := range []string{"no", "yes please", "好的", "同\u3000意", "yes\u200b", ""} {
		if approves(no, false) {
			t.Errorf("%q should deny", no)
		}
	}
}

// TestGeneratedSessionIsInjectable: the clock and the random source behind
// a generated session come from Options.
func TestGeneratedSessionIsInjectable(t *testing.T) {
	app, err := LoadFS(fstest.MapFS{
		"app.yaml":              {Data: []byte("model: {provider: openai, config: {base_url: http://127.0.0.1:1/v1}}\nreliability: {retry: {max_attempts: 1}}\nagents: [agents/a.yaml]\n")},
		"agents/a.yaml":         {Data: []byte("name: a\n")},
		"namespaces/unused.yml": {Data: []byte("")},
	}, "app.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(app, Options{
		Now:    func() time.Time { return time.Date(2026, 11, 29, 20, 36, 35, 0, time.FixedZone("x", 3600)) },
		Random: func(n int) []byte { return bytes.Repeat([]byte{0x6d}, n) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := g.newID("http-"); got != "http-20261129T193635-6d6d6d6d" {
		t.Errorf("session id %s", got)
	}
	// An unreachable model makes the turn fail with a 500 that says why.
	rec := httptest.NewRecorder()
	body, _ := json.Marshal(map[string]string{"input": "hi"})
	g.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/agents/a/messages", bytes.NewReader(body)))
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "model call") {
		t.Errorf("got %d %q", rec.Code, rec.Body.String())
	}
}

func TestWindowRuleArithmetic(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want string
	}{
		{"session: {window: 11}\nloop: {compaction: {keep_recent: 10, max_messages: 40}}", "(11) must be >= loop.compaction keep_recent+2 (12)"},
		{"session: {window: 16}\nloop: {compaction: {max_messages: 30}}", "(16) must be >= loop.compaction keep_recent+2 (17)"},
		{"session: {window: 11}\nloop: {compaction: {tool_clear_over: 3}}", "(11) must be >= loop.compaction keep_recent+2 (12)"},
		{"session: {window: 12}\nloop: {compaction: {keep_recent: 10, max_messages: 40}}", ""},
		{"session: {window: 0}\nloop: {compaction: {keep_recent: 10, max_messages: 40}}", ""},
	} {
		_, err := LoadFS(fstest.MapFS{
			"app.yaml":      {Data: []byte("model: {provider: openai}\nagents: [agents/a.yaml]\n")},
			"agents/a.yaml": {Data: []byte("name: a\n" + c.yaml + "\n")},
		}, "app.yaml", nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.yaml, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: want %q, got %v", c.yaml, c.want, err)
		}
	}
}
