package agentkithttp

// This file is the stub MCP server a gateway's `type: mcp` sources talk to,
// built on the MCP Go SDK. It serves SSE and streamable HTTP on the stub's
// own listener (/mcp/<check>/<source>/sse and .../http); over stdio the
// generated configuration launches the running binary itself with
// MCPStubEnv set (see mcpstdio.go), and that process relays what it
// receives to the stub (/mcp-relay/<check>/<source>). Either way the stub
// records every request per check and source, counts each tool call as a
// tool call of its ref argument, and answers as the check's script says.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// mcpTool is one tool of the stub MCP server.
type mcpTool struct {
	name, description string
	schema            map[string]any
}

// mcpTools are what the stub MCP server lists: none shares a name with an
// http stub tool, so the model sees them under their own names.
var mcpTools = []mcpTool{
	{"find", "Find records matching a query", map[string]any{"type": "object",
		"properties": map[string]any{"query": map[string]any{"type": "string"}}, "required": []any{"query"}}},
	{"charge", "Charge an account", map[string]any{"type": "object",
		"properties": map[string]any{"account": map[string]any{"type": "string"}, "amount": map[string]any{"type": "number"}}}},
	{"wipe", "Wipe an account", map[string]any{"type": "object",
		"properties": map[string]any{"account": map[string]any{"type": "string"}}}},
	{"secret", "Read a secret", map[string]any{"type": "object", "properties": map[string]any{}}},
}

// mcpCallAnswer is how the stub answers one tools/call: the script's mode
// for the tool and the call's number.
type mcpCallAnswer struct {
	Mode string `json:"mode"`
	N    int    `json:"n"`
}

// mcpRecorder takes what a stub MCP server received; for a tools/call it
// says how to answer.
type mcpRecorder interface {
	record(ctx context.Context, req agentkit.MCPRequest) (mcpCallAnswer, error)
}

// newMCPServer is a stub MCP server that reports to rec.
func newMCPServer(rec mcpRecorder) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sifu-stub-mcp", Version: "0.1.0"}, nil)
	for _, t := range mcpTools {
		name := t.name
		srv.AddTool(&mcp.Tool{Name: t.name, Description: t.description, InputSchema: t.schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			if len(req.Params.Arguments) > 0 {
				_ = json.Unmarshal(req.Params.Arguments, &args)
			}
			ans, err := rec.record(ctx, agentkit.MCPRequest{Method: "tools/call", Tool: name, Args: args})
			if err != nil {
				return nil, err
			}
			return mcpAnswer(ctx, name, ans)
		})
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				if _, err := rec.record(ctx, agentkit.MCPRequest{Method: method}); err != nil {
					return nil, err
				}
			}
			return next(ctx, method, req)
		}
	})
	return srv
}

// mcpAnswer is the result of a tool call: a numbered receipt as text
// content, or what the script's mode asks for.
func mcpAnswer(ctx context.Context, tool string, ans mcpCallAnswer) (*mcp.CallToolResult, error) {
	mode := ans.Mode
	if d, ok := strings.CutPrefix(mode, "slow:"); ok {
		wait, err := time.ParseDuration(d)
		if err != nil {
			return nil, fmt.Errorf("sifu stub: bad slow mode %q", mode)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		mode = ""
	}
	switch mode {
	case "fail":
		return nil, fmt.Errorf("sifu stub: scripted MCP failure of %s", tool)
	case "iserror":
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "sifu stub: scripted tool error of " + tool}}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s-mcp-receipt-%d", tool, ans.N)}}}, nil
}

// stubRecorder records into the stub for one check and source.
type stubRecorder struct {
	s           *Stub
	key, source string
}

func (r stubRecorder) record(_ context.Context, req agentkit.MCPRequest) (mcpCallAnswer, error) {
	return r.s.recordMCP(r.key, r.source, req), nil
}

// recordMCP keeps one MCP request; a tools/call is also a tool call of its
// ref argument, and is answered by that script's mode for the tool.
func (s *Stub) recordMCP(key, source string, req agentkit.MCPRequest) mcpCallAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key + "\x1f" + source
	s.mcp[k] = append(s.mcp[k], req)
	if req.Method != "tools/call" {
		return mcpCallAnswer{}
	}
	ref, _ := req.Args["ref"].(string)
	body := map[string]any{}
	for a, v := range req.Args {
		body[a] = v
	}
	rk := ref + "\x1f" + req.Tool
	s.calls[rk]++
	s.records[rk] = append(s.records[rk], agentkit.ToolCall{Method: "MCP", Path: source, Query: map[string]any{}, Body: body})
	return mcpCallAnswer{Mode: s.scripts[ref].Tools[req.Tool], N: s.calls[rk]}
}

// MCPRequests returns what the stub MCP server of source received for key.
func (s *Stub) MCPRequests(key, source string) []agentkit.MCPRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]agentkit.MCPRequest(nil), s.mcp[key+"\x1f"+source]...)
}

// serveMCP adds the MCP endpoints to the stub's mux.
func (s *Stub) serveMCP(mux *http.ServeMux) {
	server := func(r *http.Request) *mcp.Server {
		return newMCPServer(stubRecorder{s: s, key: r.PathValue("key"), source: r.PathValue("source")})
	}
	sse := mcp.NewSSEHandler(server, nil)
	streamable := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{})
	mux.Handle("/mcp/{key}/{source}/sse", sse)
	mux.Handle("/mcp/{key}/{source}/http", streamable)
	mux.HandleFunc("/mcp-down/{key}/{source}/{transport}", func(w http.ResponseWriter, r *http.Request) {
		s.recordMCP(r.PathValue("key"), r.PathValue("source"), agentkit.MCPRequest{Method: "refused"})
		http.Error(w, "sifu stub: this MCP server refuses to start (scripted)", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("POST /mcp-relay/{key}/{source}", func(w http.ResponseWriter, r *http.Request) {
		var req agentkit.MCPRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "sifu stub: the relay takes an MCP request as JSON", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.recordMCP(r.PathValue("key"), r.PathValue("source"), req))
	})
}

// MCPURL is the base of the stub MCP endpoints.
func (s *Stub) MCPURL() string { return s.URL() }

// mcpConfig is the `config:` of an MCP source as the generated
// configuration gives it: the stub's endpoint for the check, or for stdio
// the running binary with the relay address in its environment.
func (s *Stub) mcpConfig(key string, src agentkit.MCPSource) (map[string]any, error) {
	cfg := map[string]any{"transport": src.Transport}
	base := s.URL() + "/mcp/"
	if src.Down {
		base = s.URL() + "/mcp-down/"
	}
	switch src.Transport {
	case "stdio":
		exe, err := stubCommand()
		if err != nil {
			return nil, err
		}
		env := map[string]string{MCPStubEnv: s.URL() + "/mcp-relay/" + key + "/" + src.Name}
		if src.Down {
			env[MCPStubEnv] = "refuse"
		}
		cfg["command"], cfg["env"] = exe, env
	case "sse", "http":
		cfg["url"] = base + key + "/" + src.Name + "/" + src.Transport
		if src.Absent {
			nowhere, err := Nowhere()
			if err != nil {
				return nil, err
			}
			cfg["url"] = nowhere + "/mcp/" + src.Name
		}
	default:
		return nil, fmt.Errorf("MCP source %s: transport %q (sifu's stub serves stdio, sse and http)", src.Name, src.Transport)
	}
	if len(src.Tools) > 0 {
		cfg["tools"] = src.Tools
	}
	if src.Risk != "" {
		cfg["risk"] = src.Risk
	}
	if len(src.RiskOverrides) > 0 {
		cfg["risk_overrides"] = src.RiskOverrides
	}
	if src.Version != "" {
		cfg["version"] = src.Version
	}
	return cfg, nil
}
