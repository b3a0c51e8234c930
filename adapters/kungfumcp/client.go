package kungfumcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/proc"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// Client is a Kungfu implementation reached over MCP (Streamable HTTP)
// through a surface map: it implements kungfu.Target. One MCP session
// carries every agent's calls; each call's HTTP request carries the bearer
// key of the agent making it.
type Client struct {
	endpoint string
	s        *Surface
	timeout  time.Duration
	mcp      *mcp.Client
	// api, when set, is the URL prefix of the plain HTTP form, which
	// carries the calls instead of MCP.
	api string
	hc  *http.Client
	// command, when set, is a command line speaking MCP on its standard
	// input and output, started once; a call's key travels in its _meta.
	command string
	cmd     *exec.Cmd

	mu       sync.Mutex
	session  *mcp.ClientSession
	keys     map[string]string // agent id → bearer key
	verified bool              // a provisioned key has been seen to work
}

// NewClient reaches the MCP endpoint below base (the map's endpoint).
func NewClient(base string, s *Surface, timeout time.Duration) *Client {
	return &Client{endpoint: strings.TrimSuffix(base, "/") + s.Endpoint, s: s, timeout: timeout,
		mcp:  mcp.NewClient(&mcp.Implementation{Name: "sifu", Version: "0.1.0"}, nil),
		keys: map[string]string{}}
}

// NewAPIClient reaches the same tools in their plain HTTP form: POST
// <base><api><tool>, the arguments as the body.
func NewAPIClient(base string, s *Surface, timeout time.Duration) *Client {
	c := NewClient(base, s, timeout)
	c.api = strings.TrimSuffix(base, "/") + s.API
	c.hc = &http.Client{Timeout: timeout}
	return c
}

// NewCommandClient starts command (through sh -c) on first use and speaks
// MCP with it over its standard input and output.
func NewCommandClient(command string, s *Surface, timeout time.Duration) *Client {
	c := NewClient("", s, timeout)
	c.endpoint, c.command = "the command "+strconv.Quote(command), command
	return c
}

// Close ends the session.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil {
		_ = c.session.Close()
		c.session = nil
	}
	if c.cmd != nil && c.cmd.Process != nil {
		proc.Kill(c.cmd)
		c.cmd = nil
	}
}

type keyOf struct{}

// keyed sets the bearer key the request's context carries.
type keyed struct{ base http.RoundTripper }

func (k keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	if key, _ := r.Context().Value(keyOf{}).(string); key != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+key)
	}
	return k.base.RoundTrip(r)
}

// connected is the one session, opened on first use.
func (c *Client) connected(ctx context.Context) (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil {
		return c.session, nil
	}
	var t mcp.Transport
	if c.command != "" {
		c.cmd = exec.Command("sh", "-c", c.command)
		proc.Isolate(c.cmd) // its own process group, ended whole on Close
		t = &mcp.CommandTransport{Command: c.cmd}
	} else {
		hc := &http.Client{Timeout: c.timeout, Transport: keyed{base: http.DefaultTransport}}
		t = &mcp.StreamableClientTransport{Endpoint: c.endpoint, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}
	}
	s, err := c.mcp.Connect(ctx, t, nil)
	if err != nil {
		return nil, err
	}
	c.session = s
	return s, nil
}

// Hello connects without a key, lists the server's tools and says what the
// map offers. A server that is not MCP, or that lacks a tool the map
// names, is an error before any check.
func (c *Client) Hello(ctx context.Context) (kungfu.Hello, error) {
	if c.api != "" {
		return c.hello(), nil // the plain form lists nothing: provisioning finds a server that is not the map's
	}
	s, err := c.connected(ctx)
	if err != nil {
		return kungfu.Hello{}, fmt.Errorf("%s does not answer as an MCP server (Streamable HTTP): %w", c.endpoint, err)
	}
	listed := map[string]bool{}
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return kungfu.Hello{}, fmt.Errorf("list the tools of %s: %w", c.endpoint, err)
		}
		listed[t.Name] = true
	}
	var missing []string
	for _, t := range c.s.Tools() {
		if !listed[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return kungfu.Hello{}, fmt.Errorf("the map %s names tools that %s does not list: %s", c.s.Surface, c.endpoint, strings.Join(missing, ", "))
	}
	return c.hello(), nil
}

func (c *Client) hello() kungfu.Hello {
	var controls []string
	if c.s.Provision != nil {
		controls = []string{kungfu.ControlProvision}
	}
	return kungfu.Hello{Implementation: c.s.Implementation, Version: c.s.Version, Spec: c.s.Spec, Profiles: c.s.Profiles, Controls: controls}
}

// Lacking is the map's Lacking.
func (c *Client) Lacking(ch engine.Check) string { return c.s.Lacking(ch) }

var notName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// Control provisions an agent through the map's provision tool; the map
// offers no other control.
func (c *Client) Control(ctx context.Context, ctl kungfu.Control) (kungfu.Response, error) {
	p := c.s.Provision
	if ctl.Name != kungfu.ControlProvision || p == nil {
		return kungfu.Response{}, fmt.Errorf("the %s surface has no %q control: %w", c.s.Surface, ctl.Name, engine.ErrUnsupported)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	hint, _ := ctl.Params["name"].(string)
	hint = notName.ReplaceAllString(hint, "")
	if len(hint) > 16 {
		hint = hint[:16]
	}
	name := hint + "-" + hex.EncodeToString(b[:])
	_, _ = rand.Read(b[:])
	env, err := c.call(ctx, "", p.Tool, map[string]any{p.Name: name, p.Password: "pw-" + hex.EncodeToString(b[:])})
	if err != nil {
		return kungfu.Response{}, err
	}
	if ok, _ := env[c.s.Envelope.OK].(bool); !ok {
		return c.rejection(env), nil
	}
	key, _ := env[p.Key].(string)
	agent := fmt.Sprint(env[p.Agent])
	if key == "" || env[p.Agent] == nil {
		return kungfu.Response{}, fmt.Errorf("%s answered no %s or no %s", p.Tool, p.Key, p.Agent)
	}
	c.mu.Lock()
	c.keys[agent] = key
	verified := c.verified
	c.mu.Unlock()
	if _, ok := c.s.Views["agent"]; ok && !verified {
		// The new key must open the agent's own account: a node that
		// refuses it would refuse every call of every check.
		r, err := c.Read(ctx, kungfu.Read{Agent: agent, View: "agent"})
		if err != nil {
			return kungfu.Response{}, fmt.Errorf("the key %s answered does not work: %w", p.Tool, err)
		}
		if !r.OK {
			return kungfu.Response{}, fmt.Errorf("the key %s answered is refused: %s", p.Tool, r.Rejection)
		}
		c.mu.Lock()
		c.verified = true
		c.mu.Unlock()
	}
	return kungfu.Response{OK: true, Result: map[string]any{"agent": agent}}, nil
}

// Act performs an action through its tool; an action the map has no tool
// for is unsupported (the check is untestable).
func (c *Client) Act(ctx context.Context, a kungfu.Action) (kungfu.Response, error) {
	t, ok := c.s.Actions[a.Name]
	if !ok && slices.Contains(c.s.Absent, a.Name) {
		return c.absent(ctx, a.Agent, a.Name, a.Params)
	}
	if !ok {
		return kungfu.Response{}, fmt.Errorf("the %s surface has no tool for the action %s: %w", c.s.Surface, a.Name, engine.ErrUnsupported)
	}
	return c.use(ctx, a.Agent, t, a.Key, a.Params)
}

// Read answers a view through its tool.
func (c *Client) Read(ctx context.Context, r kungfu.Read) (kungfu.Response, error) {
	t, ok := c.s.Views[r.View]
	if !ok && slices.Contains(c.s.Absent, r.View) {
		return c.absent(ctx, r.Agent, r.View, r.Params)
	}
	if !ok {
		return kungfu.Response{}, fmt.Errorf("the %s surface has no tool for the view %s: %w", c.s.Surface, r.View, engine.ErrUnsupported)
	}
	return c.use(ctx, r.Agent, t, "", r.Params)
}

func (c *Client) use(ctx context.Context, agent string, t Tool, key string, params map[string]any) (kungfu.Response, error) {
	if params == nil {
		params = map[string]any{}
	}
	a, err := translate(params, t.Args, fromSifu(t.Values, t.Args), c.s.Opaque)
	if err != nil {
		return kungfu.Response{}, fmt.Errorf("translate the parameters for %s: %w", t.Tool, err)
	}
	args := a.(map[string]any)
	for k, v := range t.Const {
		args[k] = v
	}
	if key != "" && t.Key != "" {
		args[t.Key] = key
	}
	env, err := c.call(ctx, agent, t.Tool, args)
	if err != nil {
		return kungfu.Response{}, err
	}
	if ok, _ := env[c.s.Envelope.OK].(bool); !ok {
		return c.rejection(env), nil
	}
	e := c.s.Envelope
	for _, k := range append([]string{e.OK, e.Error, e.NextStep}, e.Meta...) {
		delete(env, k)
	}
	for k := range e.Fixed {
		delete(env, k)
	}
	res, err := translate(env, t.Result, t.Values, c.s.Opaque)
	if err != nil {
		return kungfu.Response{}, fmt.Errorf("translate the answer of %s: %w", t.Tool, err)
	}
	return kungfu.Response{OK: true, Result: res.(map[string]any)}, nil
}

// absent calls the tool an absent name would be: the server's "no such
// tool" (an MCP invalid-params error, or the unknown_action code of the
// plain form) is an unknown_action rejection; any other answer is judged
// as it is.
func (c *Client) absent(ctx context.Context, agent, name string, params map[string]any) (kungfu.Response, error) {
	tool := absentTool(name)
	if params == nil {
		params = map[string]any{}
	}
	env, err := c.call(ctx, agent, tool, params)
	var werr *jsonrpc.Error
	if errors.As(err, &werr) && werr.Code == jsonrpc.CodeInvalidParams {
		return kungfu.Response{Rejection: &kungfu.Rejection{Reason: "unknown_action", NextStep: "stop", Message: werr.Message}}, nil
	}
	if err != nil {
		return kungfu.Response{}, err
	}
	if ok, _ := env[c.s.Envelope.OK].(bool); !ok {
		return c.rejection(env), nil
	}
	return kungfu.Response{OK: true, Result: env}, nil
}

// rejection reads a refusal: the code's reason, the answer's next step and
// the message. A refusal without a next step keeps none: the protocol asks
// every rejection for one (KF-L2-04), so the check judges it, and no table
// of the map fills it in.
func (c *Client) rejection(env map[string]any) kungfu.Response {
	e := c.s.Envelope
	errObj, _ := env[e.Error].(map[string]any)
	code, _ := errObj[e.Code].(string)
	msg, _ := errObj[e.Message].(string)
	reason := c.s.reasonOf(code)
	next, _ := env[e.NextStep].(string)
	return kungfu.Response{Rejection: &kungfu.Rejection{Reason: reason, NextStep: next, Message: msg}}
}

// call calls a tool as an agent and returns its envelope.
func (c *Client) call(ctx context.Context, agent, tool string, args map[string]any) (map[string]any, error) {
	if agent != "" {
		c.mu.Lock()
		key, ok := c.keys[agent]
		c.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("agent %q was not provisioned through this client", agent)
		}
		ctx = context.WithValue(ctx, keyOf{}, key)
	}
	if c.api != "" {
		return c.post(ctx, tool, args)
	}
	s, err := c.connected(ctx)
	if err != nil {
		return nil, err
	}
	params := &mcp.CallToolParams{Name: tool, Arguments: args}
	if key, _ := ctx.Value(keyOf{}).(string); key != "" && c.command != "" {
		params.Meta = mcp.Meta{"authorization": "Bearer " + key}
	}
	res, err := s.CallTool(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", tool, err)
	}
	var env map[string]any
	switch sc := res.StructuredContent.(type) {
	case map[string]any:
		env = sc
	case nil:
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				if err := json.Unmarshal([]byte(tc.Text), &env); err == nil {
					break
				}
			}
		}
	default:
		raw, _ := json.Marshal(sc)
		_ = json.Unmarshal(raw, &env)
	}
	if env == nil {
		return nil, fmt.Errorf("%s answered no envelope (neither structured content nor a JSON text)", tool)
	}
	if _, ok := env[c.s.Envelope.OK].(bool); !ok {
		return nil, fmt.Errorf("%s answered an envelope without a boolean %q", tool, c.s.Envelope.OK)
	}
	if ok := env[c.s.Envelope.OK].(bool); ok == res.IsError {
		return nil, fmt.Errorf("%s answered %s=%v with isError=%v", tool, c.s.Envelope.OK, ok, res.IsError)
	}
	return env, nil
}

// maxAnswer bounds an answer of the plain HTTP form.
const maxAnswer = 4 << 20

// post calls a tool in the plain HTTP form; the body is read whatever the
// status, as the envelope says the outcome.
func (c *Client) post(ctx context.Context, tool string, args map[string]any) (map[string]any, error) {
	body, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.api+tool, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if key, _ := ctx.Value(keyOf{}).(string); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", c.api+tool, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", c.api+tool, err)
	}
	var env map[string]any
	if len(raw) > maxAnswer || json.Unmarshal(raw, &env) != nil || env == nil {
		return nil, fmt.Errorf("POST %s answered %s with no JSON envelope", c.api+tool, resp.Status)
	}
	ok, isBool := env[c.s.Envelope.OK].(bool)
	if !isBool {
		return nil, fmt.Errorf("POST %s answered an envelope without a boolean %q", c.api+tool, c.s.Envelope.OK)
	}
	if ok != (resp.StatusCode/100 == 2) {
		return nil, fmt.Errorf("POST %s answered %s=%v with status %s", c.api+tool, c.s.Envelope.OK, ok, resp.Status)
	}
	return env, nil
}

var _ kungfu.Target = (*Client)(nil)
