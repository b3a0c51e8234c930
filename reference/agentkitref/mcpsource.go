package agentkitref

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSource is the config of a source of type mcp: an MCP server reached
// over stdio (a command), SSE or streamable HTTP (a URL), whose tools become
// cap://tool/<source>/<name>.
type mcpSource struct {
	Transport string            `json:"transport"` // stdio (default), sse, http
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers"`
	// Tools is the allow-list; empty takes every tool the server lists.
	Tools   []string `json:"tools"`
	Version string   `json:"version"`
	// Risk is the level of every tool (default readonly); RiskOverrides
	// sets it per tool name.
	Risk          string            `json:"risk"`
	RiskOverrides map[string]string `json:"risk_overrides"`
}

// mcpDecl is an mcp source as configured, connected when the gateway is
// built.
type mcpDecl struct {
	name     string
	required bool
	cfg      mcpSource
}

// mcpConnectLimit bounds how long a server may take to start and list its
// tools.
const mcpConnectLimit = 10 * time.Second

// mcpProtocolVersion is the protocol version the gateway asks for.
const mcpProtocolVersion = "2025-11-25"

// readMCP reads and checks an mcp source's config.
func (s Source) readMCP() (*mcpDecl, error) {
	raw, err := json.Marshal(s.Config)
	if err != nil {
		return nil, err
	}
	var cfg mcpSource
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("decode config: %w", err)
	}
	switch cfg.Transport {
	case "", "stdio":
		if cfg.Command == "" {
			return nil, errors.New("mcp stdio: command is required")
		}
	case "sse", "http", "streamable":
		if cfg.URL == "" {
			return nil, fmt.Errorf("mcp %s: url is required", cfg.Transport)
		}
	default:
		return nil, fmt.Errorf("mcp: unknown transport %q (stdio, sse or http)", cfg.Transport)
	}
	if _, err := parseRisk(cfg.Risk); err != nil {
		return nil, err
	}
	for tool, r := range cfg.RiskOverrides {
		if _, err := parseRisk(r); err != nil {
			return nil, fmt.Errorf("risk_overrides %s: %w", tool, err)
		}
	}
	return &mcpDecl{name: s.Name, required: s.Required != nil && *s.Required, cfg: cfg}, nil
}

// headerClient is an HTTP client that adds fixed headers to every request
// (nil, the default client, for none).
func headerClient(headers map[string]string) *http.Client {
	if len(headers) == 0 {
		return nil
	}
	return &http.Client{Transport: headerTransport{headers: headers, base: http.DefaultTransport}}
}

type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}

// connectMCP starts or reaches the server, initializes a session and lists
// its tools as capabilities.
// The session lives as long as the gateway (an SSE stream is tied to the
// context it was opened with), so only the wait for it is bounded.
func connectMCP(d *mcpDecl, faults []Fault) (*mcp.ClientSession, []*capability, error) {
	ctx := context.Background()
	limit, cancel := context.WithTimeout(ctx, mcpConnectLimit)
	defer cancel()
	var transport mcp.Transport
	switch d.cfg.Transport {
	case "", "stdio":
		cmd := exec.Command(d.cfg.Command, d.cfg.Args...)
		cmd.Env = os.Environ()
		for _, k := range sortedKeys(d.cfg.Env) {
			cmd.Env = append(cmd.Env, k+"="+d.cfg.Env[k])
		}
		cmd.Stderr = io.Discard
		transport = &mcp.CommandTransport{Command: cmd}
	case "sse":
		transport = &mcp.SSEClientTransport{Endpoint: d.cfg.URL, HTTPClient: headerClient(d.cfg.Headers)}
	default:
		transport = &mcp.StreamableClientTransport{Endpoint: d.cfg.URL, HTTPClient: headerClient(d.cfg.Headers), DisableStandaloneSSE: true}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "sifu-reference-agentkit", Version: "0.1.0"}, nil)
	type connected struct {
		s   *mcp.ClientSession
		err error
	}
	done := make(chan connected, 1)
	go func() {
		// the initialize handshake, as servers of the 2025 protocol versions know it
		s, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: mcpProtocolVersion})
		done <- connected{s, err}
	}()
	var session *mcp.ClientSession
	select {
	case c := <-done:
		if c.err != nil {
			return nil, nil, fmt.Errorf("mcp start: %w", c.err)
		}
		session = c.s
	case <-limit.Done():
		go func() {
			if c := <-done; c.s != nil {
				_ = c.s.Close()
			}
		}()
		return nil, nil, fmt.Errorf("mcp start: the server did not answer initialize within %s", mcpConnectLimit)
	}
	ctx = limit
	def, _ := parseRisk(d.cfg.Risk)
	if d.cfg.Risk == "" && has(faults, FaultMCPRiskMutating) {
		def = 1
	}
	var caps []*capability
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			_ = session.Close()
			return nil, nil, fmt.Errorf("mcp list tools: %w", err)
		}
		if len(d.cfg.Tools) > 0 && !slices.Contains(d.cfg.Tools, tool.Name) && !has(faults, FaultMCPIgnoreAllowList) {
			continue
		}
		risk := def
		if r, ok := d.cfg.RiskOverrides[tool.Name]; ok {
			risk, _ = parseRisk(r)
		}
		if risk == 2 && has(faults, FaultMCPDangerousDropped) {
			continue
		}
		caps = append(caps, &capability{ref: Ref{Kind: "tool", Domain: d.name, Name: tool.Name, Version: d.cfg.Version},
			description: tool.Description, risk: risk, mcp: &mcpTool{session: session, name: tool.Name, schema: tool.InputSchema}})
	}
	return session, caps, nil
}

// mcpTool is a tool of a connected MCP server.
type mcpTool struct {
	session *mcp.ClientSession
	name    string
	schema  any // the input schema the server listed
}

// callMCP sends a tools/call with the model's arguments as they are, and
// gives the model the result object as JSON. A failed call (a protocol
// error or a result with isError) is a result the model sees.
func (g *Gateway) callMCP(ctx context.Context, c *capability, args string) (string, bool) {
	var arguments any = json.RawMessage("{}")
	if strings.TrimSpace(args) != "" {
		if !json.Valid([]byte(args)) {
			return "工具调用失败:parse args: the arguments are not JSON", true
		}
		arguments = json.RawMessage(args)
		if has(g.faults, FaultMCPDeclaredArgs) {
			arguments = declaredOnly(args, c.mcp.schema)
		}
	}
	res, err := c.mcp.session.CallTool(ctx, &mcp.CallToolParams{Name: c.mcp.name, Arguments: arguments})
	if err != nil || (res.IsError && has(g.faults, FaultMCPErrorHidden)) {
		if has(g.faults, FaultMCPErrorHidden) {
			return "工具调用失败", true
		}
		return fmt.Sprintf("tool %s failed: %v", c.ref.Name, err), true
	}
	if has(g.faults, FaultMCPBareText) {
		var parts []string
		for _, content := range res.Content {
			if t, ok := content.(*mcp.TextContent); ok {
				parts = append(parts, t.Text)
			}
		}
		return strings.Join(parts, "\n"), true
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return fmt.Sprintf("tool %s failed: %v", c.ref.Name, err), true
	}
	if res.IsError {
		return fmt.Sprintf("tool %s failed: the MCP server answered an error: %s", c.ref.Name, raw), true
	}
	return string(raw), true
}

// declaredOnly keeps of the arguments those the schema's properties name
// (the planted fault FaultMCPDeclaredArgs).
func declaredOnly(args string, schema any) map[string]any {
	var given map[string]any
	_ = json.Unmarshal([]byte(args), &given)
	raw, _ := json.Marshal(schema)
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	_ = json.Unmarshal(raw, &s)
	out := map[string]any{}
	for k, v := range given {
		if _, ok := s.Properties[k]; ok {
			out[k] = v
		}
	}
	return out
}
