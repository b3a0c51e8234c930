// Package kungfustdio carries the sifu Kungfu binding over a subprocess's standard
// input and output: one JSON request per line in, one JSON answer per line
// out, matched by id, so requests may overlap.
//
//	→ {"id":1,"op":"hello"}
//	← {"id":1,"ok":true,"result":{"implementation":…}}
//	→ {"id":2,"op":"act","agent":"a-1","action":"memory.create","idempotency_key":"k","params":{…}}
//	← {"id":2,"ok":true,"result":{…}}   or   {"id":2,"ok":false,"rejection":{…}}
//
// Ops: hello, act (agent, action, idempotency_key, params), read (agent,
// view, params), control (control, params). See docs/binding.md.
package kungfustdio

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/sifu-dev/sifu/internal/ndjson"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// Request is one line sent to the implementation.
type Request struct {
	ID      int64          `json:"id"`
	Op      string         `json:"op"`
	Agent   string         `json:"agent,omitempty"`
	Action  string         `json:"action,omitempty"`
	Key     string         `json:"idempotency_key,omitempty"`
	View    string         `json:"view,omitempty"`
	Control string         `json:"control,omitempty"`
	Params  map[string]any `json:"params,omitempty"`
}

// Answer is one line received from the implementation.
type Answer struct {
	ID        int64             `json:"id"`
	OK        bool              `json:"ok"`
	Result    json.RawMessage   `json:"result,omitempty"`
	Rejection *kungfu.Rejection `json:"rejection,omitempty"`
}

// MaxLine is the longest line either side accepts: far more than any
// binding message, little enough to bound what a runaway process costs.
const MaxLine = 64 << 20

// Serve answers binding requests read from r by calling t, writing answers
// to w, until r ends or ctx is cancelled. Requests are served concurrently.
func Serve(ctx context.Context, t kungfu.Target, r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	var mu sync.Mutex
	var wg sync.WaitGroup
	write := func(a any) {
		mu.Lock()
		defer mu.Unlock()
		raw, _ := json.Marshal(a)
		_, _ = w.Write(append(raw, '\n'))
	}
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		if len(line) == 0 {
			continue
		}
		var req Request
		if err := json.Unmarshal(line, &req); err != nil {
			write(rejected(0, "invalid_params", "retry", "the line is not a binding request: "+err.Error()))
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			write(answer(ctx, t, req))
		}()
	}
	wg.Wait()
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("a request line is longer than %s, the longest the stdio binding reads: send each request as one JSON document of at most that size on one line", ndjson.SizeLabel(MaxLine))
	} else if err != nil {
		return err
	}
	return nil
}

func rejected(id int64, reason, next, msg string) Answer {
	return Answer{ID: id, Rejection: &kungfu.Rejection{Reason: reason, NextStep: next, Message: msg}}
}

func answer(ctx context.Context, t kungfu.Target, req Request) Answer {
	var resp kungfu.Response
	var err error
	switch req.Op {
	case "hello":
		h, herr := t.Hello(ctx)
		if herr != nil {
			return rejected(req.ID, "unavailable", "retry", herr.Error())
		}
		raw, _ := json.Marshal(h)
		return Answer{ID: req.ID, OK: true, Result: raw}
	case "act":
		resp, err = t.Act(ctx, kungfu.Action{Agent: req.Agent, Name: req.Action, Key: req.Key, Params: req.Params})
	case "read":
		resp, err = t.Read(ctx, kungfu.Read{Agent: req.Agent, View: req.View, Params: req.Params})
	case "control":
		resp, err = t.Control(ctx, kungfu.Control{Name: req.Control, Params: req.Params})
	default:
		return rejected(req.ID, "unknown_action", "stop", fmt.Sprintf("unknown op %q; use hello, act, read or control", req.Op))
	}
	if err != nil {
		return rejected(req.ID, "unavailable", "retry", err.Error())
	}
	if !resp.OK {
		return Answer{ID: req.ID, Rejection: resp.Rejection}
	}
	if resp.Result == nil {
		resp.Result = map[string]any{}
	}
	raw, _ := json.Marshal(resp.Result)
	return Answer{ID: req.ID, OK: true, Result: raw}
}
