package agentkit_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/sifu-dev/sifu/adapters/agentkithttp"
	"github.com/sifu-dev/sifu/adapters/agentkitinproc"
	"github.com/sifu-dev/sifu/suite/agentkit"
)

// BenchmarkSuiteInproc is one whole run of the suite against the reference
// gateway in-process (every check starts its own gateway).
func BenchmarkSuiteInproc(b *testing.B) {
	tg := target(b)
	for b.Loop() {
		r := run(b, tg)
		if r.Summary.Failed() {
			b.Fatal("the reference failed a check")
		}
	}
}

// BenchmarkApprovalReplay is one approved effect through suspend and
// replay: the question, "yes" (the effect runs), and the final answer
// (replayed from the journal), against one running reference agentkithttp.
func BenchmarkApprovalReplay(b *testing.B) {
	srv, err := agentkithttp.StartStub("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	m := &agentkithttp.Managed{Launcher: agentkitinproc.Launcher{}, Client: agentkithttp.NewClient(0), Server: srv}
	defer m.Close()
	ctx := context.Background()
	send := func(session, input string) {
		body := fmt.Sprintf(`{"session":%q,"input":%q}`, session, input)
		resp, err := m.Do(ctx, agentkit.Request{Method: http.MethodPost, Path: "/agents/assistant/messages", Body: []byte(body)})
		if err != nil || resp.Status != http.StatusOK {
			b.Fatalf("%v %d %s", err, resp.Status, resp.Body)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		key := fmt.Sprintf("bench-%d", i)
		srv.SetScript(key, agentkit.Script{Replies: []agentkit.Reply{
			{Tool: "deduct", Args: map[string]any{"amount": 1}},
			{Tool: "ask_user", Args: map[string]any{"question": "Continue?"}},
			{Text: "done {{tools}}"},
		}})
		send(key, "pay "+agentkit.Marker(key))
		send(key, "yes")
		send(key, "sure")
	}
	if n := srv.ToolCalls("bench-0", "deduct"); n != 1 {
		b.Fatalf("deduct ran %d times", n)
	}
}
