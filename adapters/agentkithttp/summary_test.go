package agentkithttp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// TestSummaryCallsAndInOrder: a call of a script with a summary that offers
// no tools gets the summary and is recorded as a summary call, taking no
// reply; with in_order the replies follow the calls, whatever the
// messages hold.
func TestSummaryCallsAndInOrder(t *testing.T) {
	s, err := StartStub("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetScript("k-a", agentkit.Script{Summary: "the gist", InOrder: true,
		Replies: []agentkit.Reply{{Text: "first"}, {Text: "second"}}})
	ask := func(tools bool) string {
		t.Helper()
		body := map[string]any{"model": "m", "messages": []any{msg("user", "go [sifu:k-a]", 0)}}
		if tools {
			body["tools"] = []any{map[string]any{"type": "function", "function": map[string]any{"name": "lookup"}}}
		}
		raw, _ := json.Marshal(body)
		resp, err := http.Post(s.ModelURL()+"/chat/completions", "application/json", bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Choices) != 1 {
			t.Fatalf("answer: %v %+v", err, out)
		}
		return out.Choices[0].Message.Content
	}
	got := []string{ask(true), ask(false), ask(true)}
	if want := []string{"first", "the gist", "second"}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("answers %q, want %q", got, want)
	}
	reqs := s.Requests("k-a")
	if len(reqs) != 3 || reqs[0].Summary || !reqs[1].Summary || reqs[2].Summary {
		t.Fatalf("summary flags of %d requests: %+v", len(reqs), reqs)
	}
}
