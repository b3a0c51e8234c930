// Package kcpmcp drives a KCP planner that is an MCP server over stdio,
// as kcp-agent's `mcp` command is: one long-lived process, started once,
// spoken to with the MCP Go SDK's client. The planner corpus goes through
// its kcp_plan tool; the mcp checks call any tool.
package kcpmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sifu-dev/sifu/adapters/kcploopback"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/proc"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// Server is a kcp.Target and kcp.MCPServer over one MCP server process.
type Server struct {
	command string
	timeout time.Duration
	cmd     *exec.Cmd
	session *mcp.ClientSession
	stderr  *tailBuffer
	info    mcp.Implementation
	tools   []any
}

// Start runs the command through sh -c (in a process group of its own,
// TZ=UTC), initializes an MCP session over its stdin and stdout and lists
// its tools: the start-up probe. A command that is no MCP server is said
// so in one sentence naming the command. Timeout, when positive, bounds
// the probe and every later request.
func Start(ctx context.Context, command string, timeout time.Duration) (*Server, error) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	proc.Isolate(cmd)
	s := &Server{command: command, timeout: timeout, cmd: cmd, stderr: &tailBuffer{}}
	cmd.Stderr = s.stderr
	return s.connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second})
}

// Connect opens a session over a transport to a server sifu holds (the
// reference's, in process) and lists its tools.
func Connect(ctx context.Context, t mcp.Transport, name string) (*Server, error) {
	return (&Server{command: name, stderr: &tailBuffer{}}).connect(ctx, t)
}

func (s *Server) connect(ctx context.Context, t mcp.Transport) (*Server, error) {
	command := s.command
	client := mcp.NewClient(&mcp.Implementation{Name: "sifu", Version: "kcp-mcp"}, nil)
	pctx, cancel := s.bound(ctx)
	defer cancel()
	session, err := client.Connect(pctx, t, nil)
	if err != nil {
		s.kill()
		return nil, s.notServer("did not complete MCP's initialize handshake", err)
	}
	s.session = session
	if ir := session.InitializeResult(); ir != nil && ir.ServerInfo != nil {
		s.info = *ir.ServerInfo
	}
	tools, err := s.listTools(pctx)
	if err != nil {
		s.Close()
		return nil, s.notServer("initialized but did not answer tools/list", err)
	}
	if len(tools) == 0 {
		s.Close()
		return nil, fmt.Errorf("the command %q is an MCP server but lists no tools, where a KCP planner lists kcp_plan and its siblings", command)
	}
	s.tools = tools
	return s, nil
}

func (s *Server) notServer(what string, err error) error {
	msg := fmt.Sprintf("the command %q is not an MCP server over stdio: it %s (%v)", s.command, what, err)
	if tail := strings.TrimSpace(s.stderr.String()); tail != "" {
		msg += fmt.Sprintf("; it wrote %q on standard error", firstLine(tail))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		msg += fmt.Sprintf("; --request-timeout (%s) bounds the start-up", s.timeout)
	}
	return errors.New(msg)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 300 {
		line = strings.ToValidUTF8(line[:300], "") + "…"
	}
	return line
}

func (s *Server) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.timeout > 0 {
		return context.WithTimeout(ctx, s.timeout)
	}
	return context.WithCancel(ctx)
}

// Close ends the session (closing the server's stdin) and then the
// server's process group.
func (s *Server) Close() {
	if s.session != nil {
		_ = s.session.Close()
	}
	s.kill()
}

func (s *Server) kill() {
	if s.cmd != nil {
		proc.Kill(s.cmd)
	}
}

// Hello names the server as its initialize result did.
func (s *Server) Hello(context.Context) (kcp.Hello, error) {
	name, version := s.info.Name, s.info.Version
	if name == "" {
		name = s.command
	}
	return kcp.Hello{Implementation: name, Version: version}, nil
}

// Profiles are what an MCP planner is checked for: the planner corpus
// (through kcp_plan), the MCP surface, and signatures and the network
// guard over the tools.
func Profiles() []string {
	return []string{"planner", kcp.MCPProfile, kcp.SignaturesProfile, kcp.NetworkProfile}
}

// ListTools returns the tools the probe listed.
func (s *Server) ListTools(ctx context.Context) ([]any, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return s.listTools(ctx)
}

func (s *Server) listTools(ctx context.Context) ([]any, error) {
	var tools []any
	for t, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		data, err := asData(t)
		if err != nil {
			return nil, err
		}
		tools = append(tools, data)
	}
	return tools, nil
}

// CallTool writes the call's files, calls the tool and returns its result
// as JSON data with the directory written back as kcp.DirPlaceholder.
func (s *Server) CallTool(ctx context.Context, call kcp.ToolCall) (map[string]any, error) {
	base, stop, err := kcploopback.Start(call.Server)
	if err != nil {
		return nil, err
	}
	defer stop()
	dir, args, err := call.WithServer(base).Materialize()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := s.bound(ctx)
	defer cancel()
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: call.Tool, Arguments: args})
	var wire *jsonrpc.Error
	switch {
	case errors.As(err, &wire):
		return nil, &kcp.RPCError{Code: wire.Code, Message: wire.Message}
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("%s gave no answer in time: %w", call.Tool, ctx.Err())
	case err != nil:
		return nil, &engine.AdapterError{Step: call.Tool, Err: fmt.Errorf("tools/call: %v%s", err, s.said())}
	}
	data, err := asData(res)
	if err != nil {
		return nil, err
	}
	m, _ := kcp.UnplaceServerIn(kcp.UnplaceDir(data, dir), base).(map[string]any)
	return m, nil
}

func (s *Server) said() string {
	if tail := strings.TrimSpace(s.stderr.String()); tail != "" {
		return fmt.Sprintf(" (its standard error: %q)", firstLine(tail))
	}
	return ""
}

// asData turns an SDK value into JSON data.
func asData(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// PerProcess is false: one process serves every call.
func (*Server) PerProcess() bool { return false }

// Assess has no MCP tool.
func (*Server) Assess(context.Context, kcp.AssessRequest) (map[string]any, error) {
	return nil, fmt.Errorf("the confidence gate has no MCP tool: %w", engine.ErrUnsupported)
}

// Plan plans through kcp_plan: the manifest is written to a file the
// call's arguments name, and the plan is the tree's plan. A result with
// isError is a refusal; options kcp_plan has no argument for make the
// check untestable.
func (s *Server) Plan(ctx context.Context, req kcp.PlanRequest) (map[string]any, error) {
	args, err := Arguments(req.Task, req.Options)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, engine.ErrUnsupported)
	}
	file := req.Name + ".yaml"
	args["manifest"] = kcp.DirPlaceholder + "/" + file
	res, err := s.CallTool(ctx, kcp.ToolCall{Tool: "kcp_plan", Arguments: args, Files: map[string]string{file: req.Manifest}})
	var rpc *kcp.RPCError
	if errors.As(err, &rpc) {
		return nil, &engine.AdapterError{Step: "plan", Err: fmt.Errorf("kcp_plan answered with a JSON-RPC error where a plan or a refusal was due: %v", rpc)}
	}
	if err != nil {
		return nil, err
	}
	r := kcp.ToolResult(res)
	text, _ := r["text"].(string)
	if r["isError"] == true {
		return nil, &kcp.Refusal{Message: text}
	}
	tree, _ := r["json"].(map[string]any)
	plan, _ := tree["plan"].(map[string]any)
	if plan == nil {
		return nil, &engine.AdapterError{Step: "plan", Err: fmt.Errorf("kcp_plan's text is not a plan tree (an object with a plan): %.300q", text)}
	}
	return plan, nil
}

// Arguments maps vector options to kcp_plan's arguments, or says which
// option has none.
func Arguments(task string, opts map[string]any) (map[string]any, error) {
	args := map[string]any{"task": task}
	for k, v := range opts {
		switch k {
		case "env":
			args["env"] = fmt.Sprint(v)
		case "asOf":
			args["as_of"] = fmt.Sprint(v)
		case "maxUnits":
			args["max_units"] = v
		case "strict":
			args["strict"] = v
		case "contextBudget":
			args["context_budget"] = v
		case "budget":
			b, _ := v.(map[string]any)
			for bk, bv := range b {
				switch bk {
				case "amount":
					args["budget"] = bv
				case "currency":
					args["currency"] = fmt.Sprint(bv)
				default:
					return nil, fmt.Errorf("budget.%s has no kcp_plan argument", bk)
				}
			}
		case "capabilities":
			c, _ := v.(map[string]any)
			for ck, cv := range c {
				switch ck {
				case "role", "attestationProvider":
					s := fmt.Sprint(cv)
					if s == "" {
						return nil, fmt.Errorf("an empty capabilities.%s has no kcp_plan argument (an empty string is taken for none)", ck)
					}
					if ck == "role" {
						args["role"] = s
					} else {
						args["attest"] = s
					}
				case "paymentMethods", "credentials":
					list, _ := cv.([]any)
					items := []any{}
					for _, it := range list {
						items = append(items, fmt.Sprint(it))
					}
					if ck == "paymentMethods" {
						args["methods"] = items
					} else {
						args["credentials"] = items
					}
				default:
					return nil, fmt.Errorf("capabilities.%s has no kcp_plan argument", ck)
				}
			}
		default:
			return nil, fmt.Errorf("option %s has no kcp_plan argument", k)
		}
	}
	return args, nil
}

// tailBuffer keeps the last 4 KiB a process wrote.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if t.buf.Len() > 4096 {
		rest := t.buf.Bytes()[t.buf.Len()-4096:]
		t.buf = *bytes.NewBuffer(append([]byte(nil), rest...))
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
