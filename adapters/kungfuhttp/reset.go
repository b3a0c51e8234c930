package kungfuhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"syscall"
)

// ResetFunc decides, for one attempt at a repeatable request (a read, or an
// action with an idempotency key), whether the connection is cut in the
// middle of a body, as a faulty network would cut it. afterDelivery puts the
// cut in the response body (the implementation got the whole request) rather
// than in the request body (it got half of it). identity names the request
// (route and body, not the credential); attempt counts from 0.
type ResetFunc func(identity string, attempt int) (cut, afterDelivery bool)

// attempts counts the attempts the client makes at one repeatable request.
type attempts struct {
	identity string
	mu       sync.Mutex
	n        int
}

type attemptsKey struct{}

// repeatable marks ctx as carrying a request that may be cut and repeated.
func repeatable(ctx context.Context, path string, body any) context.Context {
	raw, _ := json.Marshal(body)
	return context.WithValue(ctx, attemptsKey{}, &attempts{identity: path + "\x00" + string(raw)})
}

// resetTransport cuts connections where its ResetFunc says so.
type resetTransport struct {
	base   http.RoundTripper
	decide ResetFunc
}

func (t *resetTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	a, ok := req.Context().Value(attemptsKey{}).(*attempts)
	if !ok {
		return t.base.RoundTrip(req)
	}
	a.mu.Lock()
	n := a.n
	a.n++
	a.mu.Unlock()
	cut, after := t.decide(a.identity, n)
	if !cut {
		return t.base.RoundTrip(req)
	}
	if !after {
		return t.cutRequest(req)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	left := resp.ContentLength / 2
	if left < 1 {
		left = 1
	}
	resp.Body = &cutBody{rc: resp.Body, left: left}
	return resp, nil
}

// cutRequest sends half of the request body and then fails the body, so the
// connection breaks before the server has read a whole request.
func (t *resetTransport) cutRequest(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
	}
	cut := req.Clone(req.Context())
	cut.GetBody = nil
	cut.ContentLength = int64(len(body))
	cut.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body[:len(body)/2]), failing{}))
	resp, err := t.base.RoundTrip(cut)
	if err == nil {
		resp.Body.Close()
	}
	return nil, fmt.Errorf("connection reset in the middle of the request body (injected fault): %w", syscall.ECONNRESET)
}

// failing is a reader whose connection was reset.
type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, syscall.ECONNRESET }

// cutBody yields the first bytes of a response body and then fails as a
// reset connection would.
type cutBody struct {
	rc   io.ReadCloser
	left int64
}

func (c *cutBody) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("connection reset in the middle of the response body (injected fault): %w", syscall.ECONNRESET)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.rc.Read(p)
	c.left -= int64(n)
	if err == io.EOF {
		return n, fmt.Errorf("connection reset in the middle of the response body (injected fault): %w", syscall.ECONNRESET)
	}
	return n, err
}

func (c *cutBody) Close() error { return c.rc.Close() }
