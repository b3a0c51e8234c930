package agentkithttp

// This file is sifu's stand-in for the world around a gateway under test
// (agentkit.Stub): an OpenAI-compatible model server (POST
// /v1/chat/completions, plain JSON and SSE) whose replies are scripted per
// check, and HTTP tool endpoints that count their calls. Both record what
// they received, so checks assert what the gateway sent and how often an
// effect ran.
//
// One server serves many checks at once: each conversation carries a marker
// ([sifu:KEY]) in its user input, and KEY selects the script and the
// records. The stub is harness-side: it holds no gateway logic.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// Stub is a running stub model and tools server.
type Stub struct {
	// MaxHold bounds how long a held call waits for its release (default
	// 20s); set it before use.
	MaxHold time.Duration

	ln  net.Listener
	srv *http.Server

	mu       sync.Mutex
	scripts  map[string]agentkit.Script
	requests map[string][]agentkit.ModelRequest
	calls    map[string]int // key \x1f tool → calls
	records  map[string][]agentkit.ToolCall
	holds    map[string]*hold
	served   map[string]int                      // key \x1f reply index → times served
	active   map[string]int                      // key → model calls being held now
	mcp      map[string][]agentkit.MCPRequest    // check \x1f source → requests
	supply   map[string][]agentkit.SupplyRequest // check \x1f source → requests
	prompts  map[string]map[string]string        // check → prompt name → text
	nth      map[string]int                      // key → model calls served (Script.InOrder)
	summed   map[string]chan struct{}            // key → closed once a summary call is answered
	seq      int
}

// hold is the state of the held model calls of one script.
type hold struct {
	held     chan struct{} // closed when a call is held
	release  chan struct{} // closed by Release
	isHeld   bool
	released bool
}

// maxHold bounds how long a call is held without a release.
const maxHold = 20 * time.Second

func (s *Stub) hold(key string) *hold {
	h := s.holds[key]
	if h == nil {
		h = &hold{held: make(chan struct{}), release: make(chan struct{})}
		s.holds[key] = h
	}
	return h
}

// WaitHeld blocks until a model call of key is being held, or ctx ends.
func (s *Stub) WaitHeld(ctx context.Context, key string) error {
	s.mu.Lock()
	h := s.hold(key)
	s.mu.Unlock()
	select {
	case <-h.held:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("no model call of the script was held: %w", ctx.Err())
	}
}

// summaryDone is the channel closed once a summary call of key has been
// answered. s.mu is held.
func (s *Stub) summaryDone(key string) chan struct{} {
	c := s.summed[key]
	if c == nil {
		c = make(chan struct{})
		s.summed[key] = c
	}
	return c
}

// summarised marks a summary call of key as answered.
func (s *Stub) summarised(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.summaryDone(key)
	select {
	case <-c:
	default:
		close(c)
	}
}

// WaitSummary blocks until a summary call of key has been answered, or ctx
// ends.
func (s *Stub) WaitSummary(ctx context.Context, key string) error {
	s.mu.Lock()
	c := s.summaryDone(key)
	s.mu.Unlock()
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("no summary call of the script was answered: %w", ctx.Err())
	}
}

// Release lets the held model calls of key answer.
func (s *Stub) Release(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hold(key)
	if !h.released {
		h.released = true
		close(h.release)
	}
}

var markerRE = regexp.MustCompile(`\[sifu:([A-Za-z0-9_.-]+)\]`)

// StartStub listens on addr (for example "127.0.0.1:0") and serves the stub.
func StartStub(addr string) (*Stub, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("stub model: listen on %s: %w", addr, err)
	}
	s := &Stub{ln: ln, scripts: map[string]agentkit.Script{}, requests: map[string][]agentkit.ModelRequest{}, calls: map[string]int{}, records: map[string][]agentkit.ToolCall{}, holds: map[string]*hold{}, served: map[string]int{}, active: map[string]int{}, mcp: map[string][]agentkit.MCPRequest{},
		supply: map[string][]agentkit.SupplyRequest{}, prompts: map[string]map[string]string{}, nth: map[string]int{}, summed: map[string]chan struct{}{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("/tools/{name}", s.tool)
	mux.HandleFunc("/tools/{name}/{rest...}", s.tool)
	s.serveMCP(mux)
	s.serveSupply(mux)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the stub's base URL.
func (s *Stub) URL() string { return "http://" + s.ln.Addr().String() }

// ModelURL is the base_url to give an OpenAI-compatible client.
func (s *Stub) ModelURL() string { return s.URL() + "/v1" }

// ToolsURL is the base of the tool endpoints: ToolsURL()+"/deduct".
func (s *Stub) ToolsURL() string { return s.URL() + "/tools" }

// Close stops the stub.
func (s *Stub) Close() error { return s.srv.Close() }

// SetScript installs the script for conversations marked with key.
func (s *Stub) SetScript(key string, sc agentkit.Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[key] = sc
}

// Requests returns the model calls received for key, oldest first.
func (s *Stub) Requests(key string) []agentkit.ModelRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]agentkit.ModelRequest(nil), s.requests[key]...)
}

// ToolCallRecords returns the calls of tool for key, oldest first.
func (s *Stub) ToolCallRecords(key, tool string) []agentkit.ToolCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]agentkit.ToolCall(nil), s.records[key+"\x1f"+tool]...)
}

// ToolCalls returns how often tool was called for key.
func (s *Stub) ToolCalls(key, tool string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[key+"\x1f"+tool]
}

type chatRequest struct {
	Model    string           `json:"model"`
	Stream   bool             `json:"stream"`
	Messages []map[string]any `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// turnOf finds the script key and the position of the message that opened
// the current turn: the first marked user message after the last final
// answer (an assistant message without tool calls). Later user messages
// that repeat the input (a focus restatement at the tail) and earlier turns
// in the session history do not move it. A turn opened by an unmarked
// message has no script.
func turnOf(msgs []map[string]any) (key string, at int) {
	start := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i]["role"] == "assistant" {
			if calls, _ := msgs[i]["tool_calls"].([]any); len(calls) == 0 {
				start = i + 1
				break
			}
		}
	}
	marked := func(i int) string {
		if msgs[i]["role"] != "user" {
			return ""
		}
		content, _ := msgs[i]["content"].(string)
		if m := markerRE.FindStringSubmatch(content); m != nil {
			return m[1]
		}
		return ""
	}
	for i := start; i < len(msgs); i++ {
		if k := marked(i); k != "" {
			return k, i
		}
	}
	return "", -1
}

func (s *Stub) chat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"sifu stub: body is not a chat completion request"}}`, http.StatusBadRequest)
		return
	}
	key, at := turnOf(req.Messages)
	rec := agentkit.ModelRequest{Stream: req.Stream, Messages: req.Messages, Tools: []string{}}
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Function.Name)
	}
	var toolResults []string
	assistants := 0
	if at >= 0 {
		for _, m := range req.Messages[at+1:] {
			switch m["role"] {
			case "assistant":
				assistants++
			case "tool":
				c, _ := m["content"].(string)
				toolResults = append(toolResults, c)
			}
		}
	}
	s.mu.Lock()
	if sc, ok := s.scripts[key]; ok && sc.Summary != "" && len(req.Tools) == 0 {
		rec.Summary, rec.During = true, []string{}
		s.requests[key] = append(s.requests[key], rec)
		s.seq++
		id := fmt.Sprintf("chatcmpl-sifu-%d", s.seq)
		s.mu.Unlock()
		defer s.summarised(key)
		if req.Stream {
			s.streamReply(w, id, req.Model, sc.Summary, agentkit.Reply{Text: sc.Summary}, nil)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": req.Model,
			"usage":   map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": sc.Summary}, "finish_reason": "stop"}}})
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		return
	}
	rec.During = []string{}
	for k, n := range s.active {
		if n > 0 && k != key {
			rec.During = append(rec.During, k)
		}
	}
	slices.Sort(rec.During)
	s.requests[key] = append(s.requests[key], rec)
	sc, scripted := s.scripts[key]
	if scripted && sc.InOrder {
		assistants = s.nth[key]
		s.nth[key]++
	}
	s.seq++
	id := fmt.Sprintf("chatcmpl-sifu-%d", s.seq)
	servedKey := fmt.Sprintf("%s\x1f%d", key, assistants)
	times := s.served[servedKey]
	s.served[servedKey]++
	s.mu.Unlock()

	reply := agentkit.Reply{Text: "sifu stub: no script for this conversation"}
	if scripted {
		switch {
		case assistants < len(sc.Replies):
			reply = sc.Replies[assistants]
			if times > 0 && len(reply.Again) > 0 {
				reply = reply.Again[min(times-1, len(reply.Again)-1)]
			}
		case len(sc.Replies) > 0 && sc.Replies[len(sc.Replies)-1].Tool == "" && len(sc.Replies[len(sc.Replies)-1].Calls) == 0 && sc.Replies[len(sc.Replies)-1].Status == 0:
			reply = sc.Replies[len(sc.Replies)-1]
		default:
			reply = agentkit.Reply{Text: "sifu stub: script exhausted"}
		}
	}
	if reply.Hold {
		s.mu.Lock()
		h := s.hold(key)
		if !h.isHeld {
			h.isHeld = true
			close(h.held)
		}
		s.active[key]++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.active[key]--
			s.mu.Unlock()
		}()
		limit := s.MaxHold
		if limit <= 0 {
			limit = maxHold
		}
		if d, err := time.ParseDuration(reply.HoldFor); err == nil && d > 0 && d < limit {
			limit = d
		}
		timer := time.NewTimer(limit)
		defer timer.Stop()
		select {
		case <-h.release:
		case <-r.Context().Done():
			return // the gateway gave up on the call
		case <-timer.C:
		}
	}
	if reply.Status != 0 {
		http.Error(w, `{"error":{"message":"sifu stub: scripted model failure"}}`, reply.Status)
		return
	}
	text := strings.ReplaceAll(reply.Text, "{{tools}}", strings.Join(toolResults, " | "))
	text = strings.ReplaceAll(text, "{{marker}}", agentkit.Marker(key))
	var calls []map[string]any
	single := []agentkit.Reply{reply}
	if len(reply.Calls) > 0 {
		single = reply.Calls
	}
	for i, c := range single {
		if c.Tool == "" {
			continue
		}
		raw := strings.ReplaceAll(c.RawArgs, "{{ref}}", key)
		if c.RawArgs == "" {
			args := map[string]any{}
			for k, v := range c.Args {
				args[k] = v
			}
			if _, ok := args["ref"]; !ok && c.Tool != "ask_user" && key != "" {
				args["ref"] = key
			}
			b, _ := json.Marshal(args)
			raw = string(b)
		}
		calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%d", assistants, i), "type": "function",
			"function": map[string]any{"name": c.Tool, "arguments": raw}})
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": text}
		finish := "stop"
		if len(calls) > 0 {
			// as OpenAI does, a message of tool calls has no content
			msg["content"], msg["tool_calls"], finish = nil, calls, "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": req.Model,
			"system_fingerprint": "fp_sifu", "usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}}})
		return
	}
	s.streamReply(w, id, req.Model, text, reply, calls)
}

// streamReply streams a reply as chat.completion.chunk frames, shaped as
// real OpenAI-compatible servers send them: a keep-alive comment first, the
// arguments of each tool call in several fragments (the first fragment with
// the call's id and name), and a last chunk with usage and no choices
// before [DONE].
func (s *Stub) streamReply(w http.ResponseWriter, id, model, text string, reply agentkit.Reply, calls []map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	chunk := func(choices []any, extra map[string]any) {
		body := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": choices}
		for k, v := range extra {
			body[k] = v
		}
		raw, _ := json.Marshal(body)
		fmt.Fprintf(w, "data: %s\n\n", raw)
		flush()
	}
	frame := func(delta map[string]any, finish any) {
		chunk([]any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}, nil)
	}
	fmt.Fprint(w, ": keep-alive\n\n")
	frame(map[string]any{"role": "assistant", "content": ""}, nil)
	if len(calls) > 0 {
		for i, call := range calls {
			fn, _ := call["function"].(map[string]any)
			args, _ := fn["arguments"].(string)
			pieces := splitArgs(args)
			frame(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": call["id"], "type": "function",
				"function": map[string]any{"name": fn["name"], "arguments": pieces[0]}}}}, nil)
			for _, p := range pieces[1:] {
				frame(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil)
			}
		}
		frame(map[string]any{}, "tool_calls")
	} else {
		chunks := reply.Chunks
		if len(chunks) == 0 {
			chunks = splitWords(text)
		}
		for _, c := range chunks {
			frame(map[string]any{"content": c}, nil)
		}
		if reply.Break {
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
				}
			}
			return
		}
		frame(map[string]any{}, "stop")
	}
	chunk([]any{}, map[string]any{"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush()
}

// splitArgs cuts an arguments text into three pieces that join back to it,
// the first one empty when the text is short: a streamed tool call's
// arguments arrive in fragments that are not JSON on their own.
func splitArgs(args string) []string {
	if len(args) < 3 {
		return []string{"", args}
	}
	a, b := len(args)/3, 2*len(args)/3
	return []string{args[:a], args[a:b], args[b:]}
}

// splitWords cuts text after each space, so the pieces join back to text.
func splitWords(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

func (s *Stub) tool(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	rec := agentkit.ToolCall{Method: r.Method, Path: r.PathValue("rest"), Query: map[string]any{}, Body: map[string]any{},
		RawPath: strings.TrimPrefix(strings.TrimPrefix(r.URL.EscapedPath(), "/tools/"+name), "/")}
	for k, v := range r.URL.Query() {
		rec.Query[k] = v[0]
	}
	_ = json.NewDecoder(r.Body).Decode(&rec.Body)
	ref, _ := rec.Query["ref"].(string)
	if ref == "" {
		ref, _ = rec.Body["ref"].(string)
	}
	s.mu.Lock()
	s.calls[ref+"\x1f"+name]++
	n := s.calls[ref+"\x1f"+name]
	s.records[ref+"\x1f"+name] = append(s.records[ref+"\x1f"+name], rec)
	mode := s.scripts[ref].Tools[name]
	s.mu.Unlock()
	if d, ok := strings.CutPrefix(mode, "slow:"); ok {
		wait, err := time.ParseDuration(d)
		if err != nil {
			http.Error(w, fmt.Sprintf("sifu stub: bad slow mode %q", mode), http.StatusInternalServerError)
			return
		}
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
			return
		}
		mode = ""
	}
	switch {
	case mode == "fail":
		http.Error(w, `{"error":"sifu stub: scripted tool failure"}`, http.StatusInternalServerError)
		return
	case len(mode) == 3 && mode[0] >= '1' && mode[0] <= '5':
		code := 0
		fmt.Sscanf(mode, "%d", &code)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":"sifu stub: scripted status %d for %s"}`, code, name)
		return
	case strings.HasPrefix(mode, "body:"):
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, strings.TrimPrefix(mode, "body:"))
		return
	case mode == "same":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "tool": name, "receipt": name + "-receipt"})
		return
	case mode == "drop":
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "tool": name, "call": n, "receipt": fmt.Sprintf("%s-receipt-%d", name, n)})
}

var _ agentkit.Stub = (*Stub)(nil)

// The stubs of this process, by requested address: runs in one process
// share them (checks never collide: every check has its own script keys),
// and a fixed address stays bound until the process ends.
var (
	stubsMu sync.Mutex
	stubs   = map[string]*Stub{}
)

// SharedStub starts, or finds already started in this process, the stub
// at addr ("" for a free loopback port).
func SharedStub(addr string) (*Stub, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	stubsMu.Lock()
	defer stubsMu.Unlock()
	if s, ok := stubs[addr]; ok {
		return s, nil
	}
	s, err := StartStub(addr)
	if err != nil {
		return nil, err
	}
	stubs[addr] = s
	return s, nil
}
