package kungfustdio

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func start(t *testing.T, script string) *Process {
	t.Helper()
	p, err := Start(script, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func ctx(t *testing.T, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

// TestBrokenImplementations: crashes, garbage and early exits become
// adapter errors (harness_error) quoting the stderr tail; a hang becomes a
// deadline error (timeout). Nothing panics.
func TestBrokenImplementations(t *testing.T) {
	var ae *engine.AdapterError
	garbage := start(t, `echo "this is not json"; sleep 5`)
	if _, err := garbage.Hello(ctx(t, 5*time.Second)); !errors.As(err, &ae) || !strings.Contains(err.Error(), "not a binding answer") {
		t.Errorf("garbage: %v", err)
	}
	early := start(t, `echo "cannot open database" >&2; exit 3`)
	if _, err := early.Hello(ctx(t, 5*time.Second)); !errors.As(err, &ae) || !strings.Contains(err.Error(), "cannot open database") {
		t.Errorf("early exit: %v", err)
	}
	hang := start(t, `sleep 30`)
	if _, err := hang.Hello(ctx(t, 200*time.Millisecond)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hang: %v", err)
	}
	hello := `{"implementation":"x","version":"1","spec":"s","profiles":["memory"],"controls":["provision"]}`
	crash := start(t, `read line; echo '{"id":1,"ok":true,"result":`+hello+`}'; read line; echo "panic: boom" >&2; exit 2`)
	if _, err := crash.Hello(ctx(t, 5*time.Second)); err != nil {
		t.Fatalf("hello before the crash: %v", err)
	}
	if _, err := crash.Act(ctx(t, 5*time.Second), kungfu.Action{Agent: "a", Name: "memory.create"}); !errors.As(err, &ae) || !strings.Contains(err.Error(), "panic: boom") {
		t.Errorf("crash: %v", err)
	}
	badHello := start(t, `read line; echo '{"id":1,"ok":true,"result":{"implementation":"x"}}'; sleep 5`)
	if _, err := badHello.Hello(ctx(t, 5*time.Second)); !errors.As(err, &ae) || !strings.Contains(err.Error(), "version") {
		t.Errorf("hello missing fields: %v", err)
	}
}

// TestServeRefusesALineTooLongInASentence: a request line over MaxLine
// ends Serve with a sentence naming the limit, not "token too long".
func TestServeRefusesALineTooLongInASentence(t *testing.T) {
	in := io.MultiReader(io.LimitReader(repeatX{}, MaxLine+1), strings.NewReader("\n"))
	err := Serve(context.Background(), nil, in, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "longer than 64 MiB (67108864 bytes)") || strings.Contains(err.Error(), "token too long") {
		t.Fatalf("Serve: %v", err)
	}
}

type repeatX struct{}

func (repeatX) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
