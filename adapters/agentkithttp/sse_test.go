package agentkithttp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// TestSplitStreamKeepsTheOrder: data lines join into frames at a blank
// line, other lines stay where they came, comments go.
func TestSplitStreamKeepsTheOrder(t *testing.T) {
	st := splitStream([]byte(": hi\ndata: a\ndata: b\nevent: x\n\ndata: [DONE]\n\n"))
	want := []agentkit.StreamItem{{Line: "event: x", IsLine: true}, {Frame: "a\nb"}, {Frame: "[DONE]"}}
	if fmt.Sprint(st.Items) != fmt.Sprint(want) || !st.EndsWithBlankLine {
		t.Errorf("got %+v", st)
	}
}

// BenchmarkDescribeSSE reads a 1000-frame event stream into the outcome
// document checks judge.
func BenchmarkDescribeSSE(b *testing.B) {
	var body strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&body, "data: {\"delta\":\"chunk %d \"}\n\n", i)
	}
	body.WriteString("data: [DONE]\n\n")
	raw := []byte(body.String())
	b.ReportAllocs()
	for b.Loop() {
		resp := agentkit.Response{Status: 200, Header: agentkit.Header{"Content-Type": {"text/event-stream"}}, Body: raw, Stream: splitStream(raw)}
		agentkit.Describe(resp, nil)
	}
}
