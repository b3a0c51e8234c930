package kungfustdio

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// helloThen answers the hello (request 1) properly and then behaves as the
// shell snippet says when the act (request 2) arrives.
func helloThen(snippet string) string {
	hello := `{"implementation":"broken","version":"1","spec":"s","profiles":["memory"],"controls":["provision"]}`
	return `read line; echo '{"id":1,"ok":true,"result":` + hello + `}'; read line; ` + snippet
}

// TestBrokenProcesses: after a good hello, an implementation that crashes,
// hangs, answers garbage, answers slowly or answers in another schema ends
// the act as an adapter error (harness_error) or a deadline (timeout),
// within the check's deadline, and never as an answer.
func TestBrokenProcesses(t *testing.T) {
	cases := map[string]struct {
		snippet  string
		deadline bool // must end as a deadline, not an adapter error
	}{
		"hang":                 {`sleep 30`, true},
		"slow":                 {`sleep 3; echo '{"id":2,"ok":true,"result":{}}'; sleep 30`, true},
		"stdout closed":        {`exec 1>&-; sleep 30`, true},
		"crash by signal":      {`kill -SEGV $$`, false},
		"garbage":              {`echo 'Segmentation fault (core dumped)'; sleep 30`, false},
		"half a line":          {`printf '{"id":2,"ok":tr'; exit 0`, false},
		"another schema":       {`echo '{"jsonrpc":"2.0","id":2,"result":{"content":[]}}'; sleep 30`, false},
		"unknown id":           {`echo '{"id":99,"ok":true,"result":{}}'; sleep 30`, false},
		"result not an object": {`echo '{"id":2,"ok":true,"result":[1,2]}'; sleep 30`, false},
		"line too long":        {`head -c 5000000 /dev/zero | tr '\0' x; echo; sleep 30`, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := start(t, helloThen(c.snippet))
			if _, err := p.Hello(ctx(t, 10*time.Second)); err != nil {
				t.Fatalf("hello: %v", err)
			}
			done := make(chan error, 1)
			// 200ms for the ones that never answer; the others must end
			// as adapter errors however slow the machine is.
			limit := 10 * time.Second
			if c.deadline {
				limit = 200 * time.Millisecond
			}
			go func() {
				_, err := p.Act(ctx(t, limit), kungfu.Action{Agent: "a-1", Name: "memory.create", Params: map[string]any{"content": "x"}})
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second): // generous outer bound
				t.Fatalf("the act did not return after its %s deadline", limit)
			}
			var ae *engine.AdapterError
			timedOut := errors.Is(err, context.DeadlineExceeded)
			switch {
			case c.deadline && !timedOut:
				t.Errorf("want a deadline, got %v", err)
			case !c.deadline && !errors.As(err, &ae):
				t.Errorf("want an adapter error, got %v", err)
			}
		})
	}
}

// echoing answers a hello listing the given controls and every other
// request with an empty success, and counts its starts in the file starts.
func echoing(controls string) string {
	hello := `{"implementation":"echo","version":"1","spec":"s","profiles":["memory"],"controls":[` + controls + `]}`
	return `echo start >> starts; while read line; do id=$(echo "$line" | sed 's/^{"id":\([0-9]*\).*/\1/'); ` +
		`case "$line" in *'"op":"hello"'*) echo '{"id":'$id',"ok":true,"result":` + hello + `}';; ` +
		`*) echo '{"id":'$id',"ok":true,"result":{}}';; esac; done`
}

// TestCutStream: a cut kills a durable implementation mid-line and starts it
// again; the request fails with the cut's error (so a fault proxy can repeat
// it) and the next one reaches the new process. A non-durable one is not
// killed: the request is lost before it is written.
func TestCutStream(t *testing.T) {
	errCut := errors.New("cut (test)")
	for _, durable := range []bool{true, false} {
		controls, wantStarts := `"provision"`, "start\n"
		if durable {
			controls, wantStarts = `"provision","restart"`, "start\nstart\n"
		}
		dir := t.TempDir()
		p, err := Start(echoing(controls), dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		if _, err := p.Hello(ctx(t, 5*time.Second)); err != nil {
			t.Fatal(err)
		}
		cuts := 0
		p.SetCut(func(context.Context, string) error {
			cuts++
			if cuts == 1 {
				return errCut
			}
			return nil
		})
		if _, err := p.Act(ctx(t, 5*time.Second), kungfu.Action{Agent: "a", Name: "memory.create"}); err != nil || cuts != 0 {
			t.Fatalf("an unkeyed act is never cut: %v (asked %d times)", err, cuts)
		}
		keyed := kungfu.Action{Agent: "a", Name: "memory.create", Key: "k"}
		var ae *engine.AdapterError
		if _, err := p.Act(ctx(t, 5*time.Second), keyed); !errors.Is(err, errCut) || !errors.As(err, &ae) {
			t.Fatalf("durable %v: the cut act must fail with the cut: %v", durable, err)
		}
		if r, err := p.Act(ctx(t, 5*time.Second), keyed); err != nil || !r.OK {
			t.Fatalf("durable %v: the repeat after the cut: %+v %v", durable, r, err)
		}
		if got := readFile(t, dir+"/starts"); got != wantStarts {
			t.Errorf("durable %v: starts %q, want %q", durable, got, wantStarts)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestStderrTailIsQuotedWhole: an implementation that writes its last words
// to stderr and then breaks the protocol or dies is quoted with them,
// however its stderr and stdout interleave on the way to sifu.
func TestStderrTailIsQuotedWhole(t *testing.T) {
	for name, snippet := range map[string]string{
		"crash":   `echo "fatal: out of memory" >&2; kill -SEGV $$`,
		"garbage": `echo "fatal: out of memory" >&2; echo 'Traceback (most recent call last):'; sleep 30`,
		"exit":    `echo "fatal: out of memory" >&2; exit 3`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for i := 0; i < 10; i++ {
				p := start(t, helloThen(snippet))
				if _, err := p.Hello(ctx(t, 10*time.Second)); err != nil {
					t.Fatalf("hello: %v", err)
				}
				_, err := p.Act(ctx(t, 10*time.Second), kungfu.Action{Agent: "a-1", Name: "memory.create", Params: map[string]any{"content": "x"}})
				if err == nil || !strings.Contains(err.Error(), "fatal: out of memory") {
					t.Fatalf("round %d: the error does not quote the stderr tail: %v", i, err)
				}
			}
		})
	}
}

// TestARefusedHelloSaysWhy: an implementation that answers the hello with
// ok false is said to have refused it, with its rejection, or, when it gives
// none, that it did not say why; Go's "<nil>" never reaches the user.
func TestARefusedHelloSaysWhy(t *testing.T) {
	for answer, want := range map[string]string{
		`{"id":1,"ok":false}`: "the implementation refused the hello without saying why",
		`{"id":1,"ok":false,"rejection":{"reason":"unavailable","next_step":"retry","message":"warming up"}}`: "the implementation refused the hello: unavailable: warming up (next step retry)",
	} {
		p := start(t, `read line; echo '`+answer+`'; sleep 30`)
		_, err := p.Hello(ctx(t, 10*time.Second))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "<nil>") {
			t.Errorf("answer %s: %v, want %q", answer, err, want)
		}
	}
}
