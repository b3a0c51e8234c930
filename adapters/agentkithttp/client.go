// Package agentkithttp is the transport side of the agent-kit suite: an HTTP
// client for a gateway's contract, and a launcher that starts a user's
// gateway binary as a process (its own working directory, standard input
// closed, its own process group) and kills it again.
package agentkithttp

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// Client sends requests to a gateway over HTTP and reads each answer to its
// end (an SSE stream ends when the gateway closes it).
type Client struct{ rc *resty.Client }

// MaxAnswer is the most sifu reads of one answer body (a whole event
// stream included).
const MaxAnswer = 16 << 20

// NewClient returns a client whose requests give up after timeout.
func NewClient(timeout time.Duration) *Client {
	return &Client{rc: resty.New().SetTimeout(timeout).SetRedirectPolicy(resty.NoRedirectPolicy())}
}

// Do sends req to the gateway at base.
func (c *Client) Do(ctx context.Context, base string, req agentkit.Request) (agentkit.Response, error) {
	r := c.rc.R().SetContext(ctx).SetDoNotParseResponse(true)
	if req.Accept != "" {
		r.SetHeader("Accept", req.Accept)
	}
	if req.Body != nil {
		r.SetHeader("Content-Type", "application/json").SetBody(req.Body)
	}
	resp, err := r.Execute(req.Method, base+req.Path)
	if err != nil {
		if ctx.Err() != nil {
			return agentkit.Response{}, ctx.Err()
		}
		return agentkit.Response{}, fmt.Errorf("%s %s: %w", req.Method, req.Path, err)
	}
	body := resp.RawBody()
	defer body.Close()
	raw, err := io.ReadAll(io.LimitReader(body, MaxAnswer+1))
	if err != nil {
		if ctx.Err() != nil {
			return agentkit.Response{}, ctx.Err()
		}
		return agentkit.Response{}, fmt.Errorf("%s %s: reading the answer: %w", req.Method, req.Path, err)
	}
	if len(raw) > MaxAnswer {
		return agentkit.Response{}, fmt.Errorf("%s %s%s: the answer is longer than %d MiB, the most sifu reads of one answer: check that the gateway answers %s with the protocol's message or stream, not a file or an endless stream",
			req.Method, base, req.Path, MaxAnswer>>20, req.Path)
	}
	out := agentkit.Response{Status: resp.StatusCode(), Header: agentkit.Header(resp.Header()), Body: raw}
	if strings.HasPrefix(resp.Header().Get("Content-Type"), "text/event-stream") {
		out.Stream = splitStream(raw)
	}
	return out, nil
}
