package kungfumcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sifu-dev/sifu/suite/kungfu"
)

// Server offers a Kungfu implementation behind the tools a surface map
// describes, undoing the map's translations: a tool call becomes the
// action or view the map sends to it, and the answer the envelope the map
// reads. The provision tool registers an agent and answers a bearer key.
type Server struct {
	target kungfu.Target
	s      *Surface

	mu   sync.Mutex
	keys map[string]string // bearer key → agent id
}

// NewServer serves target through s.
func NewServer(target kungfu.Target, s *Surface) *Server {
	return &Server{target: target, s: s, keys: map[string]string{}}
}

// MCP is the MCP server with one tool per tool the map names.
func (sv *Server) MCP() *mcp.Server {
	m := mcp.NewServer(&mcp.Implementation{Name: "sifu-reference-kungfu", Version: "0.1.0"}, nil)
	for _, name := range sv.s.Tools() {
		tool := name
		m.AddTool(&mcp.Tool{Name: tool, Description: sv.describe(tool), InputSchema: map[string]any{"type": "object"}},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				env := sv.fromMCP(ctx, tool, req)
				raw, _ := json.Marshal(env)
				ok, _ := env[sv.s.Envelope.OK].(bool)
				return &mcp.CallToolResult{StructuredContent: env, Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, IsError: !ok}, nil
			})
	}
	return m
}

func (sv *Server) describe(tool string) string {
	if p := sv.s.Provision; p != nil && p.Tool == tool {
		return "register an agent (public); answers its bearer key"
	}
	var names []string
	for _, m := range sv.s.toolsNamed(tool) {
		names = append(names, m.name)
	}
	return "sifu's " + strings.Join(names, ", ")
}

// Handler serves the MCP endpoint (Streamable HTTP, stateless, JSON
// answers). A bearer key it never issued is refused with 401 before the
// request reaches MCP; calls without one reach only the public tool.
func (sv *Server) Handler() http.Handler {
	m := sv.MCP()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	mux := http.NewServeMux()
	mux.Handle(sv.s.Endpoint, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if key, ok := bearer(r.Header.Get("Authorization")); ok && sv.agent(key) == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sifu"`)
			sv.write(w, "", sv.refusal("", "unauthenticated", "stop", "unknown bearer key"))
			return
		}
		h.ServeHTTP(w, r)
	}))
	if sv.s.API != "" {
		mux.HandleFunc(sv.s.API, sv.serveAPI)
	}
	return mux
}

// maxBody bounds a request body of the plain HTTP form.
const maxBody = 1 << 20

// serveAPI answers POST <api><tool>: the body is the tool's arguments, the
// answer its envelope, with the HTTP status the code's.
func (sv *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	tool := strings.TrimPrefix(r.URL.Path, sv.s.API)
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST the tool's arguments as a JSON object", http.StatusMethodNotAllowed)
		return
	}
	if !slices.Contains(sv.s.Tools(), tool) {
		sv.write(w, tool, sv.refusal(tool, "unknown_action", "stop", "no tool "+tool))
		return
	}
	agent := ""
	if key, ok := bearer(r.Header.Get("Authorization")); ok {
		if agent = sv.agent(key); agent == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sifu"`)
			sv.write(w, tool, sv.refusal(tool, "unauthenticated", "stop", "unknown bearer key"))
			return
		}
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(raw) > maxBody {
		sv.write(w, tool, sv.refusal(tool, "invalid_params", "revise", "the body must be at most 1 MiB of JSON"))
		return
	}
	args := map[string]any{}
	if len(strings.TrimSpace(string(raw))) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil || args == nil {
			sv.write(w, tool, sv.refusal(tool, "invalid_params", "revise", "the body must be the tool's arguments as a JSON object"))
			return
		}
	}
	sv.write(w, tool, sv.call(r.Context(), tool, args, agent))
}

// write sends an envelope with the status its code has in the map (200 on
// success).
func (sv *Server) write(w http.ResponseWriter, tool string, env map[string]any) {
	status := http.StatusOK
	if ok, _ := env[sv.s.Envelope.OK].(bool); !ok {
		errObj, _ := env[sv.s.Envelope.Error].(map[string]any)
		code, _ := errObj[sv.s.Envelope.Code].(string)
		status = sv.s.statusOf(code)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(env)
}

// ServeIO speaks MCP on r and w (newline-delimited JSON-RPC) until ctx
// ends or r does; a call names its agent's key in _meta.authorization.
func (sv *Server) ServeIO(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	return sv.MCP().Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
}

func bearer(h string) (string, bool) {
	k, ok := strings.CutPrefix(h, "Bearer ")
	return strings.TrimSpace(k), ok && strings.TrimSpace(k) != ""
}

func (sv *Server) agent(key string) string {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.keys[key]
}

// caller is the agent the request's bearer key names, or "".
func (sv *Server) caller(req *mcp.CallToolRequest) string {
	h := ""
	if req.Extra != nil && req.Extra.Header != nil {
		h = req.Extra.Header.Get("Authorization")
	}
	if h == "" && req.Params != nil {
		h, _ = req.Params.Meta["authorization"].(string)
	}
	if key, ok := bearer(h); ok {
		return sv.agent(key)
	}
	return ""
}

// fromMCP answers one MCP tool call with the surface's envelope.
func (sv *Server) fromMCP(ctx context.Context, tool string, req *mcp.CallToolRequest) map[string]any {
	args := map[string]any{}
	if req.Params != nil && len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || args == nil {
			return sv.refusal(tool, "invalid_params", "revise", "arguments must be a JSON object")
		}
	}
	return sv.call(ctx, tool, args, sv.caller(req))
}

// call answers one tool call by agent ("" when its key named none) with
// the surface's envelope.
func (sv *Server) call(ctx context.Context, tool string, args map[string]any, agent string) map[string]any {
	if p := sv.s.Provision; p != nil && p.Tool == tool {
		return sv.register(ctx, args)
	}
	if agent == "" {
		return sv.refusal(tool, "unauthenticated", "stop", "this tool needs an agent's bearer key")
	}
	m, ok := sv.pick(tool, args)
	if !ok {
		return sv.refusal(tool, "invalid_params", "revise", "these arguments match no use of "+tool)
	}
	key, _ := args[m.Key].(string)
	delete(args, m.Key)
	for k := range m.Const {
		delete(args, k)
	}
	p, err := translate(args, invert(m.Args), m.Values, sv.s.Opaque)
	if err != nil {
		return sv.refusal(tool, "invalid_params", "revise", err.Error())
	}
	params := p.(map[string]any)
	var resp kungfu.Response
	if m.view {
		resp, err = sv.target.Read(ctx, kungfu.Read{Agent: agent, View: m.name, Params: params})
	} else {
		resp, err = sv.target.Act(ctx, kungfu.Action{Agent: agent, Name: m.name, Key: key, Params: params})
	}
	if err != nil {
		return sv.refusal(tool, "internal", "retry", err.Error())
	}
	if !resp.OK {
		r := resp.Rejection
		return sv.refusal(tool, r.Reason, r.NextStep, r.Message)
	}
	back := invert(m.Result)
	out, err := translate(resp.Result, back, fromSifu(m.Values, back), sv.s.Opaque)
	if err != nil {
		return sv.refusal(tool, "internal", "retry", err.Error())
	}
	return sv.success(out.(map[string]any))
}

// pick is the mapping of tool whose When the arguments meet.
func (sv *Server) pick(tool string, args map[string]any) (mapping, bool) {
	for _, m := range sv.s.toolsNamed(tool) {
		meets := true
		for arg, present := range m.When {
			if _, has := args[arg]; has != present {
				meets = false
			}
		}
		if meets {
			return m, true
		}
	}
	return mapping{}, false
}

// register provisions an agent and issues its bearer key.
func (sv *Server) register(ctx context.Context, args map[string]any) map[string]any {
	p := sv.s.Provision
	name, _ := args[p.Name].(string)
	resp, err := sv.target.Control(ctx, kungfu.Control{Name: kungfu.ControlProvision, Params: map[string]any{"name": name}})
	if err != nil || !resp.OK {
		msg := fmt.Sprint(err)
		if err == nil {
			msg = resp.Rejection.String()
		}
		return sv.refusal(p.Tool, "invalid_params", "revise", "registration refused: "+msg)
	}
	id, _ := resp.Result["agent"].(string)
	var b [16]byte
	_, _ = rand.Read(b[:])
	key := "kf_live_" + hex.EncodeToString(b[:])
	sv.mu.Lock()
	sv.keys[key] = id
	sv.mu.Unlock()
	return sv.success(map[string]any{p.Key: key, p.Agent: id, "bot_name": name})
}

func (sv *Server) success(result map[string]any) map[string]any {
	e := sv.s.Envelope
	env := sv.fixed()
	for _, k := range slices.Sorted(maps.Keys(result)) {
		env[k] = result[k]
	}
	env[e.OK], env[e.Error], env[e.NextStep] = true, nil, nil
	return env
}

func (sv *Server) refusal(tool, reason, next, msg string) map[string]any {
	e := sv.s.Envelope
	env := sv.fixed()
	env[e.OK] = false
	env[e.Error] = map[string]any{e.Code: sv.s.codeOf(reason, tool), e.Message: msg}
	env[e.NextStep] = next
	return env
}

func (sv *Server) fixed() map[string]any {
	env := map[string]any{}
	for k, v := range sv.s.Envelope.Fixed {
		env[k] = v
	}
	return env
}
