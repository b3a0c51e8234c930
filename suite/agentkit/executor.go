package agentkit

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
)

// holdWait bounds the wait for a turn's model call to be held.
const holdWait = 10 * time.Second

// Executor runs compiled agent-kit steps against a Target. Each check gets
// its own nonce: script keys and session ids are prefixed with it, so checks
// sharing one stub (or one remote gateway) never see each other.
type Executor struct {
	target Target
	nonce  string
	// settings are what the check configured so far: each configure step
	// changes them and starts the gateway again.
	settings *Settings
}

// NewExecutor returns an executor for one check.
func NewExecutor(t Target) *Executor {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &Executor{target: t, nonce: "k" + hex.EncodeToString(b)}
}

func (e *Executor) key(script string) string { return e.nonce + "-" + script }

// Execute performs one step.
func (e *Executor) Execute(ctx context.Context, step engine.Step) (engine.Outcome, error) {
	result, err := e.execute(ctx, step)
	if err != nil {
		switch {
		case errors.Is(err, engine.ErrUnsupported), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
			return engine.Outcome{}, err
		case errors.As(err, new(*engine.Violation)):
			return engine.Outcome{}, err
		}
		return engine.Outcome{}, &engine.AdapterError{Step: step.Name, Err: err}
	}
	return engine.Outcome{OK: true, Result: engine.Normalize(result)}, nil
}

// configPlaceholder is how a check writes a configuration's ${NAME} or
// ${secret:NAME} placeholder, since ${...} in a step is sifu's own
// variable: $[NAME], $[secret:NAME].
var configPlaceholder = regexp.MustCompile(`\$\[((?:secret:)?\w+)\]`)

// placeholders turns the $[...] of settings into the configuration's
// ${...}.
func placeholders(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(configPlaceholder.ReplaceAll(raw, []byte("$${$1}")), &out) != nil {
		return v
	}
	return out
}

func recode(from, to any) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, to)
}

// recodeSettings is recode refusing a key Settings does not have, so a
// misspelt setting fails the check's compilation target instead of being
// ignored.
func recodeSettings(from any, to *Settings) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(to)
}

func (e *Executor) execute(ctx context.Context, step engine.Step) (any, error) {
	p := step.Params
	str := func(k string) string { s, _ := p[k].(string); return s }
	switch {
	case step.Op == engine.OpControl && step.Name == "configure":
		s := DefaultSettings()
		if e.settings != nil {
			s = *e.settings
		}
		if err := recodeSettings(placeholders(p), &s); err != nil {
			return nil, fmt.Errorf("configure: %w", err)
		}
		s.MCPKey = e.nonce
		e.settings = &s
		return map[string]any{}, e.target.Configure(ctx, s)
	case step.Op == engine.OpControl && step.Name == "corrupt-store":
		n, err := e.target.CorruptStore(ctx)
		return map[string]any{"files": n}, err
	case step.Op == engine.OpControl && step.Name == "restart":
		return map[string]any{}, e.target.Restart(ctx)
	case step.Op == engine.OpControl && step.Name == "startup" && p["settings"] != nil:
		s := DefaultSettings()
		if err := recodeSettings(placeholders(p["settings"]), &s); err != nil {
			return nil, fmt.Errorf("startup: settings: %w", err)
		}
		s.MCPKey = e.nonce
		return e.target.TryConfigure(ctx, s)
	case step.Op == engine.OpControl && step.Name == "startup":
		files := map[string]string{}
		if err := recode(p["files"], &files); err != nil || len(files) == 0 {
			return nil, fmt.Errorf("startup needs files: {path: text}")
		}
		r, err := e.target.TryStart(ctx, files)
		return r, err
	case step.Op == engine.OpAct && step.Name == "script":
		var sc Script
		if err := recode(p, &sc); err != nil {
			return nil, fmt.Errorf("script: %w", err)
		}
		e.target.Stub().SetScript(e.key(str("name")), sc)
		return map[string]any{"script": str("name"), "key": e.key(str("name"))}, nil
	case step.Op == engine.OpAct && step.Name == "request":
		return e.request(ctx, p)
	case step.Op == engine.OpRead && step.Name == "summary":
		wctx, cancel := context.WithTimeout(ctx, holdWait)
		err := e.target.Stub().WaitSummary(wctx, e.key(str("script")))
		cancel()
		if err != nil && ctx.Err() == nil {
			return nil, &engine.Violation{Msg: fmt.Sprintf("the gateway asked the model for no summary under script %s within %s", str("script"), holdWait)}
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"summarised": true}, nil
	case step.Op == engine.OpRead && step.Name == "model_requests":
		return modelRequests(e.target.Stub().Requests(e.key(str("script")))), nil
	case step.Op == engine.OpRead && step.Name == "mcp_requests":
		return mcpRequests(e.target.Stub().MCPRequests(e.nonce, str("source"))), nil
	case step.Op == engine.OpRead && step.Name == "trajectory":
		raw, err := e.target.WorkFile(ctx, TrajectoryFile)
		if err != nil {
			return nil, err
		}
		return jsonLines(raw), nil
	case step.Op == engine.OpRead && step.Name == "supply_requests":
		return supplyRequests(e.target.Stub().SupplyRequests(e.nonce, str("source"))), nil
	case step.Op == engine.OpRead && step.Name == "tool_calls":
		calls := e.target.Stub().ToolCallRecords(e.key(str("script")), str("tool"))
		out := map[string]any{"count": e.target.Stub().ToolCalls(e.key(str("script")), str("tool")), "calls": calls}
		if len(calls) > 0 {
			out["last"] = calls[len(calls)-1]
		}
		return out, nil
	}
	return nil, fmt.Errorf("the agentkit suite cannot execute %s %q", step.Op, step.Name)
}

// request sends one HTTP request. A JSON body's "session" is made local to
// the check, and with "script" set the marker of that script is appended to
// its "input" or "task". With "after_held" the request waits until the stub
// holds a model call of that script (so a turn is surely running); with
// "release" the held calls of that script answer once the request is done.
func (e *Executor) request(ctx context.Context, p map[string]any) (any, error) {
	req := Request{Method: "POST", Path: "/"}
	if m, _ := p["method"].(string); m != "" {
		req.Method = m
	}
	if path, _ := p["path"].(string); path != "" {
		req.Path = path
	}
	req.Accept, _ = p["accept"].(string)
	var sent any
	switch {
	case p["raw"] != nil:
		raw, _ := p["raw"].(string)
		req.Body, sent = []byte(raw), raw
	case p["json"] != nil:
		body, _ := engine.Normalize(p["json"]).(map[string]any)
		if body == nil {
			return nil, fmt.Errorf("request json must be an object")
		}
		if s, ok := body["session"].(string); ok && s != "" {
			body["session"] = e.nonce + "-" + s
		}
		if script, _ := p["script"].(string); script != "" {
			for _, f := range []string{"input", "task"} {
				if s, ok := body[f].(string); ok {
					body[f] = s + " " + Marker(e.key(script))
				}
			}
		}
		req.Body, _ = json.Marshal(body)
		sent = body
	}
	if held, _ := p["after_held"].(string); held != "" {
		wctx, cancel := context.WithTimeout(ctx, holdWait)
		err := e.target.Stub().WaitHeld(wctx, e.key(held))
		cancel()
		if err != nil && ctx.Err() == nil {
			return nil, &engine.Violation{Msg: fmt.Sprintf("the gateway made no model call for script %s within %s, so the turn never ran", held, holdWait)}
		}
		if err != nil {
			return nil, err
		}
	}
	resp, err := e.target.Do(ctx, req)
	if released, _ := p["release"].(string); released != "" {
		e.target.Stub().Release(e.key(released))
	}
	if err != nil {
		return nil, err
	}
	return Describe(resp, sent), nil
}

// Describe is the outcome document of an HTTP answer that checks judge.
func Describe(resp Response, sent any) map[string]any {
	text := strings.TrimSuffix(string(resp.Body), "\n")
	out := map[string]any{
		"status":        resp.Status,
		"content_type":  resp.Header.Get("Content-Type"),
		"allow":         resp.Header.Get("Allow"),
		"cache_control": resp.Header.Get("Cache-Control"),
		"text":          text,
		"body_len":      len(resp.Body),
	}
	if sent != nil {
		out["sent"] = sent
	}
	var js any
	if len(bytes.TrimSpace(resp.Body)) > 0 && json.Unmarshal(resp.Body, &js) == nil {
		out["json"] = js
	}
	if resp.Stream != nil {
		out["sse"] = events(*resp.Stream)
	}
	return out
}

// events reads an event stream's frames as the contract has them: the
// delta texts, the frames that are neither deltas nor [DONE], and whether
// [DONE] came last.
func events(st Stream) map[string]any {
	frames, deltas, other := []any{}, []any{}, []any{}
	var joined strings.Builder
	doneCount, emptyDeltas := 0, 0
	for _, it := range st.Items {
		if it.IsLine {
			other = append(other, it.Line) // event:, id:, retry: or garbage
			continue
		}
		f := it.Frame
		frames = append(frames, f)
		if f == "[DONE]" {
			doneCount++
			continue
		}
		var d map[string]any
		if json.Unmarshal([]byte(f), &d) == nil && len(d) == 1 {
			if s, ok := d["delta"].(string); ok {
				deltas = append(deltas, s)
				joined.WriteString(s)
				if s == "" {
					emptyDeltas++
				}
				continue
			}
		}
		other = append(other, f)
	}
	last := ""
	if len(frames) > 0 {
		last, _ = frames[len(frames)-1].(string)
	}
	return map[string]any{"frames": frames, "deltas": deltas, "joined": joined.String(), "other": other,
		"done_last": last == "[DONE]", "done_count": doneCount, "empty_deltas": emptyDeltas,
		"ends_with_blank_line": st.EndsWithBlankLine}
}

// modelRequests summarises what the model received for one script: every
// request (with its message texts joined), the tools first offered, and of
// the last request the tool results (in order, and joined by " | ") and
// every message text (seen), and per request how many tool results came
// without their call (orphans). Summary calls (Script.Summary) are apart,
// in summaries, and counted in none of the rest.
func modelRequests(all []ModelRequest) map[string]any {
	var reqs []ModelRequest
	summaries := []any{}
	for _, r := range all {
		if !r.Summary {
			reqs = append(reqs, r)
			continue
		}
		var text []string
		for _, m := range r.Messages {
			c, _ := m["content"].(string)
			text = append(text, c)
		}
		summaries = append(summaries, map[string]any{"messages": len(r.Messages), "text": strings.Join(text, "\n")})
	}
	list := make([]any, len(reqs))
	orphans := []any{}
	var toolText, seen []string
	results := []any{}
	tools := []any{}
	for i, r := range reqs {
		msgs := make([]any, len(r.Messages))
		var text []string
		for j, m := range r.Messages {
			msgs[j] = m
			c, _ := m["content"].(string)
			text = append(text, c)
			if i == len(reqs)-1 && m["role"] == "tool" {
				toolText = append(toolText, c)
				results = append(results, c)
			}
			if i == len(reqs)-1 {
				seen = append(seen, c)
			}
		}
		names := make([]any, len(r.Tools))
		for j, n := range r.Tools {
			names[j] = n
		}
		if i == 0 {
			tools = names
		}
		during := make([]any, len(r.During))
		for j, k := range r.During {
			during[j] = k
		}
		list[i] = map[string]any{"stream": r.Stream, "tools": names, "messages": msgs, "during": during, "text": strings.Join(text, "\n")}
		orphans = append(orphans, orphanResults(r.Messages))
	}
	parsed := make([]any, len(results))
	for i, r := range results {
		parsed[i] = r
		var v any
		if s, _ := r.(string); json.Unmarshal([]byte(s), &v) == nil {
			parsed[i] = v
		}
	}
	return map[string]any{"count": len(reqs), "requests": list, "tools": tools, "tool_text": strings.Join(toolText, " | "),
		"tool_results": results, "tool_results_json": parsed, "seen": strings.Join(seen, "\n"), "summaries": summaries,
		"orphans": orphans}
}

// orphanResults counts the tool results of a request whose call (an
// assistant message's tool call with that id) is not before them in it.
func orphanResults(msgs []map[string]any) int {
	called := map[string]bool{}
	n := 0
	for _, m := range msgs {
		if calls, _ := m["tool_calls"].([]any); m["role"] == "assistant" {
			for _, c := range calls {
				if c, ok := c.(map[string]any); ok {
					id, _ := c["id"].(string)
					called[id] = true
				}
			}
		}
		if id, _ := m["tool_call_id"].(string); m["role"] == "tool" && !called[id] {
			n++
		}
	}
	return n
}

// mcpRequests summarises what a stub MCP server received for a check:
// every request in order, their methods, how often each came, the
// tools/calls with their arguments, and the handshakes (initialize, or
// server/discover of the stateless protocol versions).
func mcpRequests(reqs []MCPRequest) map[string]any {
	methods, calls := []any{}, []any{}
	count := map[string]any{}
	for _, r := range reqs {
		methods = append(methods, r.Method)
		n, _ := count[r.Method].(int)
		count[r.Method] = n + 1
		if r.Method == "tools/call" {
			args := map[string]any{}
			for k, v := range r.Args {
				args[k] = v
			}
			calls = append(calls, map[string]any{"tool": r.Tool, "args": args})
		}
	}
	handshakes := 0
	for _, m := range []string{"initialize", "server/discover"} {
		n, _ := count[m].(int)
		handshakes += n
	}
	return map[string]any{"methods": methods, "count": count, "calls": calls, "handshakes": handshakes}
}

// supplyRequests summarises what a stub remote agent service or the stub
// prompt platform received for a check: every request in order, the
// listings (GETs) and the tasks (POSTs) apart.
func supplyRequests(reqs []SupplyRequest) map[string]any {
	all, gets, posts := []any{}, []any{}, []any{}
	for _, r := range reqs {
		query, headers := map[string]any{}, map[string]any{}
		for k, v := range r.Query {
			query[k] = v
		}
		for k, v := range r.Headers {
			headers[k] = v
		}
		d := map[string]any{"method": r.Method, "path": r.Path, "query": query, "headers": headers}
		if r.Body != nil {
			d["body"] = r.Body
		}
		all = append(all, d)
		if r.Method == "POST" {
			posts = append(posts, d)
		} else {
			gets = append(gets, d)
		}
	}
	return map[string]any{"requests": all, "gets": gets, "posts": posts}
}

// jsonLines reads a JSON Lines file: whether it exists, its records (a line
// that is not JSON is kept as its text), how many lines were not JSON, and
// "<name>:<phase>" of each record that has both, in order, and how many
// records lack each of the fields a trajectory record has (without).
func jsonLines(raw []byte) map[string]any {
	records, named, bad := []any{}, []any{}, 0
	without := map[string]any{"ts": 0, "component": 0, "phase": 0, "agent": 0, "session": 0}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var v any
		if json.Unmarshal([]byte(line), &v) != nil {
			bad++
			v = line
		}
		if m, ok := v.(map[string]any); ok {
			name, _ := m["name"].(string)
			phase, _ := m["phase"].(string)
			if name != "" && phase != "" {
				named = append(named, name+":"+phase)
			}
			for k, n := range without {
				if _, ok := m[k]; !ok {
					without[k] = n.(int) + 1
				}
			}
		}
		records = append(records, v)
	}
	return map[string]any{"exists": raw != nil, "records": records, "count": len(records), "not_json": bad, "named": named, "without": without}
}
