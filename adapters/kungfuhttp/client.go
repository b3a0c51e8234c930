package kungfuhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/netmsg"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// ClientOptions configure the HTTP adapter.
type ClientOptions struct {
	// ControlToken is sent with control requests. It is never printed.
	ControlToken string
	// Timeout bounds one request (default 10s).
	Timeout time.Duration
	// MaxResponse caps a response body in bytes (default 4 MiB).
	MaxResponse int
	// Retries is how often a request that failed in transit is repeated
	// (default 2). Only reads and actions with an idempotency key are
	// repeated, and always with the same key.
	Retries int
	// Reset, when set, cuts connections as a faulty network would (see
	// attack/faultproxy); only repeatable requests are cut, and the client
	// repeats them. Give Retries room for the attempts Reset may cut.
	Reset ResetFunc
}

// BindingSchema is the schema file every message is validated against.
const BindingSchema = "kungfu-binding.schema.json"

// Client is a kungfu.Target that speaks the binding over HTTP.
type Client struct {
	once    *resty.Client // never repeats a request
	retried *resty.Client // repeats requests that are safe to repeat
	base    string        // the server's base URL, for messages
	max     int           // the longest answer body read
	token   string
	timeout time.Duration
	schemas *schema.Set
	cuts    bool // a ResetFunc may cut requests: name each repeatable one

	mu    sync.Mutex
	creds map[string]string // agent id → credential; never leaves the adapter
}

// NewClient returns an HTTP adapter for the server at baseURL.
func NewClient(baseURL string, opts ClientOptions) *Client {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MaxResponse <= 0 {
		opts.MaxResponse = 4 << 20
	}
	if opts.Retries < 0 {
		opts.Retries = 0
	} else if opts.Retries == 0 {
		opts.Retries = 2
	}
	// One pool of connections for both clients, large enough that checks
	// running at once reuse connections instead of opening new ones.
	var transport http.RoundTripper = &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // answers are small JSON; no gzip negotiation on every request
	}
	if opts.Reset != nil {
		transport = &resetTransport{base: transport, decide: opts.Reset}
	}
	mk := func(retries int) *resty.Client {
		c := resty.New().SetTransport(transport).SetBaseURL(strings.TrimRight(baseURL, "/")).SetTimeout(opts.Timeout).
			SetResponseBodyLimit(opts.MaxResponse).SetHeader("Content-Type", "application/json").
			SetHeader("Accept", "application/json").SetRetryCount(retries).
			SetRetryWaitTime(20 * time.Millisecond).SetRetryMaxWaitTime(200 * time.Millisecond)
		c.SetLogger(quietLogger{})
		// Repeat only what never reached an answer: a transport error (an
		// answer too long to read was one, and would be again).
		c.AddRetryCondition(func(r *resty.Response, err error) bool {
			return err != nil && !errors.Is(err, resty.ErrResponseBodyTooLarge)
		})
		return c
	}
	return &Client{once: mk(0), retried: mk(opts.Retries), base: strings.TrimRight(baseURL, "/"), max: opts.MaxResponse, token: opts.ControlToken, timeout: opts.Timeout, cuts: opts.Reset != nil,
		schemas: schema.Bundled(), creds: map[string]string{}}
}

// Hello asks the server who it is.
func (c *Client) Hello(ctx context.Context) (kungfu.Hello, error) {
	var h kungfu.Hello
	raw, _, err := c.send(ctx, c.retried, http.MethodGet, "/kungfu/v1/hello", "", nil, "hello")
	if err != nil && ctx.Err() != nil {
		return h, fmt.Errorf("the server at %s gave no answer to GET /kungfu/v1/hello in time: %w", c.once.BaseURL, err)
	}
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return h, &engine.AdapterError{Step: "hello", Err: err}
	}
	return h, nil
}

func (c *Client) credential(agent string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cred, ok := c.creds[agent]
	if !ok {
		return "", &engine.AdapterError{Step: "credential", Err: fmt.Errorf("no credential for agent %q: it was not provisioned through this adapter", agent)}
	}
	return cred, nil
}

// Act performs an action as an agent.
func (c *Client) Act(ctx context.Context, a kungfu.Action) (kungfu.Response, error) {
	cred, err := c.credential(a.Agent)
	if err != nil {
		return kungfu.Response{}, err
	}
	rc := c.once
	body := actBody{Action: a.Name, Key: a.Key, Params: a.Params}
	if a.Key != "" {
		rc = c.retried // a repeat carries the same key, so it cannot double an effect
		if c.cuts {
			ctx = repeatable(ctx, "/kungfu/v1/act", body)
		}
	}
	return c.exchange(ctx, rc, "/kungfu/v1/act", cred, body)
}

// Read answers a view for an agent.
func (c *Client) Read(ctx context.Context, r kungfu.Read) (kungfu.Response, error) {
	cred, err := c.credential(r.Agent)
	if err != nil {
		return kungfu.Response{}, err
	}
	body := readBody{View: r.View, Params: r.Params}
	if c.cuts {
		ctx = repeatable(ctx, "/kungfu/v1/read", body)
	}
	return c.exchange(ctx, c.retried, "/kungfu/v1/read", cred, body)
}

// Control runs a control-plane operation. A provisioned agent's credential
// is kept by the adapter and removed from the result.
func (c *Client) Control(ctx context.Context, ctl kungfu.Control) (kungfu.Response, error) {
	resp, err := c.exchange(ctx, c.once, "/kungfu/v1/control", c.token, controlBody{Control: ctl.Name, Params: ctl.Params})
	if err != nil || !resp.OK || ctl.Name != kungfu.ControlProvision {
		return resp, err
	}
	id, _ := resp.Result["agent"].(string)
	cred, _ := resp.Result["credential"].(string)
	if id == "" || cred == "" {
		return resp, &engine.AdapterError{Step: "provision", Err: errors.New("the answer lacks /result/agent or /result/credential")}
	}
	delete(resp.Result, "credential")
	c.mu.Lock()
	c.creds[id] = cred
	c.mu.Unlock()
	return resp, nil
}

func (c *Client) exchange(ctx context.Context, rc *resty.Client, path, cred string, body any) (kungfu.Response, error) {
	_, doc, err := c.send(ctx, rc, http.MethodPost, path, cred, body, "response")
	if err != nil {
		return kungfu.Response{}, err
	}
	return responseOf(doc), nil
}

// responseOf reads a decoded answer that the binding schema accepted as a
// response: the schema has checked every type read here.
func responseOf(doc any) kungfu.Response {
	m, _ := doc.(map[string]any)
	resp := kungfu.Response{}
	resp.OK, _ = m["ok"].(bool)
	resp.Result, _ = m["result"].(map[string]any)
	if r, ok := m["rejection"].(map[string]any); ok {
		resp.Rejection = &kungfu.Rejection{}
		resp.Rejection.Reason, _ = r["reason"].(string)
		resp.Rejection.NextStep, _ = r["next_step"].(string)
		resp.Rejection.Message, _ = r["message"].(string)
	}
	return resp
}

// send performs one request and validates the answer against the binding
// schema definition def, returning it raw and decoded. Any answer that is
// not a binding message is an AdapterError naming what was wrong, whatever
// the HTTP status.
func (c *Client) send(ctx context.Context, rc *resty.Client, method, path, cred string, body any, def string) ([]byte, any, error) {
	req := rc.R().SetContext(ctx)
	if cred != "" {
		req.SetAuthToken(cred)
	}
	if body != nil {
		req.SetBody(body)
	}
	res, err := req.Execute(method, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if errors.Is(err, resty.ErrResponseBodyTooLarge) {
			return nil, nil, &engine.AdapterError{Step: method + " " + path, Err: fmt.Errorf(
				"%s %s%s: the answer is longer than %s, the most sifu reads of one binding answer: a binding answer is one small JSON document; check that --url is the binding's base URL and that the server answers %s with a binding message, not a file or a stream",
				method, c.base, path, sizeLabel(c.max), path)}
		}
		if timedOut(err) {
			// A hang is a timeout, not a broken harness: keep the deadline
			// in the chain (the message is redacted, the cause is not).
			return nil, nil, fmt.Errorf("%s %s: no complete answer within the request timeout of %s: %w", method, path, c.timeout, context.DeadlineExceeded)
		}
		return nil, nil, &engine.AdapterError{Step: method + " " + path, Err: redact(err, cred, c.token)}
	}
	raw := res.Body()
	name := BindingSchema + "#/$defs/" + def
	what := fmt.Sprintf("%s %s answer (HTTP %d)", method, path, res.StatusCode())
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		// Not JSON this client can hold: let the schema set describe it.
		why := c.schemas.Validate(name, what, raw)
		if why == nil {
			why = fmt.Errorf("%s: %w", what, err)
		}
		return nil, nil, &engine.AdapterError{Step: method + " " + path, Err: why}
	}
	if err := c.schemas.ValidateValue(name, what, doc); err != nil {
		return nil, nil, &engine.AdapterError{Step: method + " " + path, Err: err}
	}
	return raw, doc, nil
}

// sizeLabel says n bytes in MiB when it is a whole number of them.
func sizeLabel(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// timedOut reports whether a request failed because its time ran out.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// redact removes secrets from an error message.
func redact(err error, secrets ...string) error {
	msg := netmsg.Clean(err).Error()
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
		}
	}
	return errors.New(msg)
}

type quietLogger struct{}

func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Warnf(string, ...any)  {}
func (quietLogger) Debugf(string, ...any) {}
