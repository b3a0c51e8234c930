package kcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
)

// MCPServer is a target that serves kcp-agent's MCP tools (kcp_plan,
// kcp_trace, kcp_load, kcp_validate, kcp_replay); the mcp checks call them.
type MCPServer interface {
	// ListTools returns the tools the server lists, each as JSON data
	// (name, description, inputSchema…), in the server's order.
	ListTools(ctx context.Context) ([]any, error)
	// CallTool calls one tool and returns its result as JSON data
	// (content, structuredContent, isError). Before the call the
	// request's files are written to a new directory, and DirPlaceholder
	// in any string of the arguments stands for it; in the result it is
	// written back as DirPlaceholder. A JSON-RPC error is a *RPCError.
	CallTool(ctx context.Context, call ToolCall) (map[string]any, error)
}

// ToolCall is one tools/call request.
type ToolCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	// Files are written under the call's directory: relative path → text.
	Files map[string]string `json:"files,omitempty"`
	// Server, when given, is started for the call (LoopbackServer); its
	// base URL replaces ServerPlaceholder in the arguments and files.
	Server *LoopbackServer `json:"server,omitempty"`
}

// WithServer is the call with base in place of ServerPlaceholder in its
// arguments and files.
func (c ToolCall) WithServer(base string) ToolCall {
	if base == "" {
		return c
	}
	c.Arguments, _ = replaceStrings(map[string]any(c.Arguments), ServerPlaceholder, base).(map[string]any)
	files := make(map[string]string, len(c.Files))
	for k, v := range c.Files {
		files[k] = strings.ReplaceAll(v, ServerPlaceholder, base)
	}
	c.Files = files
	return c
}

// UnplaceServerIn writes a LoopbackServer's base URL back as
// ServerPlaceholder in every string of a result.
func UnplaceServerIn(v any, base string) any {
	if base == "" {
		return v
	}
	return replaceStrings(replaceStrings(v, jsonEscaped(base), ServerPlaceholder), base, ServerPlaceholder)
}

// RPCError is a tools/call the server answered with a JSON-RPC error
// instead of a result.
type RPCError struct {
	Code    int64
	Message string
}

func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// MCPProfile is the profile of the checks on kcp-agent's MCP server.
const MCPProfile = "mcp"

// Materialize writes the call's files to a new temporary directory and
// returns the arguments with its path in place of DirPlaceholder; remove
// dir when the call is done.
func (c ToolCall) Materialize() (dir string, args map[string]any, err error) {
	if dir, err = tempFiles("sifu-kcp-mcp-", "call", c.Files); err != nil {
		return "", nil, err
	}
	placed, _ := replaceStrings(map[string]any(c.Arguments), DirPlaceholder, dir).(map[string]any)
	if placed == nil {
		placed = map[string]any{}
	}
	return dir, placed, nil
}

// UnplaceDir writes dir back as DirPlaceholder in every string of a
// result, where it appears as is or JSON-escaped (inside a text that
// holds JSON).
func UnplaceDir(v any, dir string) any {
	quoted, _ := json.Marshal(dir)
	escaped := strings.Trim(string(quoted), `"`)
	v = replaceStrings(v, escaped, DirPlaceholder)
	return replaceStrings(v, dir, DirPlaceholder)
}

// tempFiles writes files (slash-separated relative path → text) into a new
// temporary directory named with prefix; a path outside it, or a failed
// write, removes the directory again. what names whose directory it is.
func tempFiles(prefix, what string, files map[string]string) (string, error) {
	dir, err := fixedWidthTemp(prefix)
	if err != nil {
		return "", err
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			os.RemoveAll(dir)
			return "", fmt.Errorf("file %q lies outside the %s's directory", name, what)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// fixedWidthTemp makes a new directory named prefix and 16 random hex
// digits: its path has the same length on every run, so an answer that
// says how long it is (a Content-Length over a body naming the path) is the
// same from run to run.
func fixedWidthTemp(prefix string) (string, error) {
	for range 100 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		dir := filepath.Join(os.TempDir(), prefix+hex.EncodeToString(b[:]))
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("no free temporary directory named %s…", prefix)
}

func replaceStrings(v any, old, repl string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, old, repl)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = replaceStrings(e, old, repl)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = replaceStrings(e, old, repl)
		}
		return out
	}
	return v
}

// executeMCP performs an mcp_tools or mcp_call step. mcp_tools gives the
// tools, their names and the tools by name; mcp_call gives the result with, beside content,
// structuredContent and isError, the first content's text, that text
// parsed when it is JSON, and refused: whether the server turned the call
// down, by a result with isError or by a JSON-RPC error (then error holds
// its code and message).
func (e *Executor) executeMCP(ctx context.Context, step engine.Step) (map[string]any, error) {
	srv, ok := e.target.(MCPServer)
	if e.serve != nil {
		srv, ok = e.serve, true // the server's /mcp
	}
	if !ok {
		return nil, fmt.Errorf("the target serves no MCP tools: %w", engine.ErrUnsupported)
	}
	if step.Name == "mcp_tools" {
		tools, err := srv.ListTools(ctx)
		if err != nil {
			return nil, err
		}
		out := toolIndex(tools)
		out["tools"] = tools
		return out, nil
	}
	raw, _ := json.Marshal(step.Params)
	var call ToolCall
	if err := json.Unmarshal(raw, &call); err != nil {
		return nil, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("the mcp_call step's parameters: %v", err)}
	}
	res, err := srv.CallTool(ctx, call)
	if rpc, ok := err.(*RPCError); ok {
		return map[string]any{"refused": true, "isError": false, "error": map[string]any{"code": float64(rpc.Code), "message": rpc.Message}}, nil
	}
	if err != nil {
		return nil, err
	}
	return ToolResult(res), nil
}

// deriveMCP is what an MCP step's result holds that follows from the rest of
// it (engine.Vocabulary.Derived): a tool call's text and parsed JSON from
// its content, refused from its isError; a tool list's names and byName from its
// tools. A transcript records the server's answer once; a replay rebuilds
// these with the executor's own code.
func deriveMCP(ex engine.Exchange) map[string]any {
	if ex.Outcome == nil {
		return nil
	}
	r, ok := engine.Normalize(ex.Outcome.Result).(map[string]any)
	if !ok {
		return nil
	}
	switch ex.Name {
	case "mcp_tools":
		tools, _ := r["tools"].([]any)
		return toolIndex(tools)
	case "mcp_call":
		if _, rpc := r["error"]; rpc {
			return nil // a JSON-RPC error: nothing follows from anything
		}
		answer := map[string]any{}
		for k, v := range r {
			if k != "text" && k != "json" && k != "refused" {
				answer[k] = v
			}
		}
		d := ToolResult(answer)
		for k := range answer {
			delete(d, k)
		}
		return d
	}
	return nil
}

// toolIndex is what checks read of a tool list: the tools' names in order,
// and the tools by name.
func toolIndex(tools []any) map[string]any {
	names, byName := []any{}, map[string]any{}
	for _, t := range tools {
		m, _ := t.(map[string]any)
		names = append(names, m["name"])
		if n, ok := m["name"].(string); ok {
			byName[n] = m
		}
	}
	return map[string]any{"names": names, "byName": byName}
}

// ToolResult adds to a tools/call result what checks read: text (the
// first content's text), json (that text parsed, when it is JSON) and
// refused (isError).
func ToolResult(res map[string]any) map[string]any {
	out := make(map[string]any, len(res)+3)
	for k, v := range res {
		out[k] = v
	}
	isError, _ := res["isError"].(bool)
	out["isError"] = isError
	out["refused"] = isError
	if content, _ := res["content"].([]any); len(content) > 0 {
		if first, _ := content[0].(map[string]any); first != nil {
			if text, ok := first["text"].(string); ok {
				out["text"] = text
				var parsed any
				if json.Unmarshal([]byte(text), &parsed) == nil {
					out["json"] = parsed
				}
			}
		}
	}
	return out
}
