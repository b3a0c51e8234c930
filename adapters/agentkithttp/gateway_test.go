package agentkithttp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

func TestClientReadsTheWholeAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "text/event-stream" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "headers", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"delta\":\"a\"}\n\n"))
		w.(http.Flusher).Flush()
		w.Write([]byte("data: [DONE]\n\n"))
	}))
	defer srv.Close()
	resp, err := NewClient(time.Second).Do(context.Background(), srv.URL, agentkit.Request{Method: "POST", Path: "/x", Accept: "text/event-stream", Body: []byte(`{}`)})
	if err != nil || resp.Status != 200 || !strings.HasSuffix(string(resp.Body), "data: [DONE]\n\n") {
		t.Fatalf("%v %d %q", err, resp.Status, resp.Body)
	}
}

func TestClientGivesUpWithTheContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := NewClient(time.Minute).Do(ctx, srv.URL, agentkit.Request{Method: "GET", Path: "/"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the context's deadline, got %v", err)
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	var tl tail
	tl.Write([]byte(strings.Repeat("x", tailSize)))
	tl.Write([]byte("the end"))
	if s := tl.String(); len(s) != tailSize || !strings.HasSuffix(s, "the end") {
		t.Fatalf("len %d, suffix %q", len(s), s[len(s)-7:])
	}
	var empty tail
	if empty.String() != "(nothing)" {
		t.Fatal(empty.String())
	}
}

func TestLaunchReportsAnExitWithItsOutput(t *testing.T) {
	_, err := Process{Command: "echo config is broken >&2; exit 4"}.Launch(context.Background(), t.TempDir(), "127.0.0.1:1")
	var sf *StartFailure
	if !errors.As(err, &sf) || sf.ExitCode != 4 || !strings.Contains(sf.Stderr, "config is broken") {
		t.Fatalf("got %v", err)
	}
}

// TestAnAnswerTooLongIsRefusedNotCut: an answer over MaxAnswer is an
// error naming the URL and the limit; it was cut silently at the limit
// before, and the cut answer judged.
func TestAnAnswerTooLongIsRefusedNotCut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", MaxAnswer+1)))
	}))
	defer srv.Close()
	_, err := NewClient(time.Minute).Do(context.Background(), srv.URL, agentkit.Request{Method: "GET", Path: "/big"})
	if err == nil || !strings.Contains(err.Error(), "GET "+srv.URL+"/big") || !strings.Contains(err.Error(), "longer than 16 MiB") {
		t.Fatalf("a 16 MiB and one byte answer: %v; want an error naming the URL and the limit", err)
	}
}

// TestAStreamLineOfAnyLengthIsSplit: a frame longer than a line scanner's
// buffer is kept whole (it was dropped with everything after it).
func TestAStreamLineOfAnyLengthIsSplit(t *testing.T) {
	long := strings.Repeat("y", 9<<20)
	st := splitStream([]byte("data: " + long + "\r\n\r\ndata: [DONE]\n\n"))
	if len(st.Items) != 2 || st.Items[0].Frame != long || st.Items[1].Frame != "[DONE]" || !st.EndsWithBlankLine {
		t.Fatalf("%d items", len(st.Items))
	}
}
