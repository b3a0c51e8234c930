package agentkitref

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Options are what a gateway takes from its host; zero values are sensible.
type Options struct {
	// WorkDir is the base of relative runtime paths (suspend.dir); "" is the
	// process's working directory.
	WorkDir string
	// Now stamps generated session ids (UTC).
	Now func() time.Time
	// Random returns n random bytes for session and turn ids.
	Random func(n int) []byte
	// HTTP calls the model and the tools.
	HTTP *http.Client
	// Faults are planted bugs (see faults.go).
	Faults []Fault
	// Warn takes the warnings of start-up (an optional source skipped);
	// nil drops them.
	Warn io.Writer
}

// Gateway serves the agent-kit HTTP contract for an assembled App.
type Gateway struct {
	// plainAnswers holds, under the remember-plain-answers fault, every
	// approval answer by agent, session and capability.
	plainAnswers sync.Map
	memories     memories // long-term memory by scope
	// workDir is the base of relative runtime paths (Options.WorkDir).
	workDir string
	app     *App
	agents  map[string]*agentRT
	model   *modelClient
	journal *journal
	http    *http.Client
	now     func() time.Time
	random  func(int) []byte
	faults  []Fault
	// sessions are the connections to MCP servers, closed by Close.
	mcpSessions []*mcp.ClientSession

	mu       sync.Mutex
	history  map[string][]message
	running  map[string]*running
	lastTurn map[string]string
	sessions [64]sync.Mutex
	plans    plans   // the todo plans by agent and session
	results  results // the raw texts of digested results
	// trajectory is the trajectory log; nil for none.
	trajectory *trajectory
}

// running is an in-flight turn that control may interrupt or steer.
type running struct {
	cancel      context.CancelFunc
	interrupted bool
	notes       []string
}

// agentRT is an agent ready to run: its prompt and the tools it may call.
type agentRT struct {
	cfg     *Agent
	system  string
	caps    []*capability
	byName  map[string]*capability
	askUser bool
	noTodo  bool // the plan tools are not offered (a planted fault)
	// schema is structured_output's schema compiled; nil for none.
	schema *jsonschema.Schema
}

// New assembles a gateway. It opens the suspend journal when one is set.
func New(app *App, opts Options) (*Gateway, error) {
	g := &Gateway{app: app, agents: map[string]*agentRT{}, history: map[string][]message{}, running: map[string]*running{}, lastTurn: map[string]string{},
		http: opts.HTTP, now: opts.Now, random: opts.Random, faults: opts.Faults, workDir: opts.WorkDir}
	if g.http == nil {
		g.http = &http.Client{Timeout: 60 * time.Second}
	}
	if g.now == nil {
		g.now = time.Now
	}
	if g.random == nil {
		g.random = func(n int) []byte { b := make([]byte, n); _, _ = rand.Read(b); return b }
	}
	var model ModelConfig
	if app.Model != nil {
		model = *app.Model
	}
	g.model = newModelClient(model, g.http)
	g.model.faults = opts.Faults
	if app.Suspend != nil && app.Suspend.Dir != "" {
		dir := app.Suspend.Dir
		if !filepath.IsAbs(dir) && opts.WorkDir != "" {
			dir = filepath.Join(opts.WorkDir, dir)
		}
		if has(opts.Faults, FaultForgetOnRestart) {
			_ = os.RemoveAll(filepath.Join(dir, "pending"))
		}
		j, err := openJournal(dir)
		if err != nil {
			return nil, fmt.Errorf("suspend store: %w", err)
		}
		g.journal = j
	}
	tr, err := openTrajectory(app.Observability.TrajectoryPath, opts.WorkDir)
	if err != nil {
		return nil, err
	}
	g.trajectory = tr
	cat := newCatalog(app.maxRisk, opts.Faults)
	for _, src := range app.sources {
		caps := src.caps
		if src.mcp != nil {
			d := src.mcp
			session, mcaps, err := connectMCP(d, opts.Faults)
			if err != nil {
				if (d.required && !has(opts.Faults, FaultMCPRequiredSkipped)) || has(opts.Faults, FaultMCPOptionalFatal) {
					g.Close()
					return nil, fmt.Errorf("catalog: required source %q is unavailable: %w", d.name, err)
				}
				if opts.Warn != nil {
					fmt.Fprintf(opts.Warn, "agentkit: optional source %q is unavailable, started without its tools: %v\n", d.name, err)
				}
				continue
			}
			g.mcpSessions = append(g.mcpSessions, session)
			caps = mcaps
		}
		if src.a2a != nil || src.vector != nil {
			scaps, ok, err := supplyCaps(src, opts.Faults, opts.Warn)
			if err != nil {
				g.Close()
				return nil, err
			}
			if !ok {
				continue
			}
			caps = scaps
		}
		if has(opts.Faults, FaultHTTPSourceProbed) && !g.reachable(caps) {
			continue
		}
		if err := cat.add(src.name, src.priority, caps); err != nil {
			g.Close()
			return nil, err
		}
	}
	if !has(opts.Faults, FaultNoLocalTool) {
		if err := cat.add("local", 0, localTools(g.now)); err != nil {
			g.Close()
			return nil, err
		}
	}
	all := cat.list()
	for _, c := range all {
		if c.description == "" {
			c.description = c.ref.Name
		}
	}
	for _, a := range app.Agents {
		rt := &agentRT{cfg: a, byName: map[string]*capability{}, askUser: a.Capabilities.AskUser == nil || *a.Capabilities.AskUser}
		g.seedMemories(a)
		system, err := app.resolvePrompt(a.Prompt.System, g.http, opts.Faults)
		if err != nil {
			g.Close()
			return nil, fmt.Errorf("agent %s: %w", a.Name, err)
		}
		rt.system = system
		if rt.schema, err = compileSchema(a.StructuredOutput.Schema); err != nil {
			g.Close()
			return nil, fmt.Errorf("agent %s: %w", a.Name, err)
		}
		if rt.system == "" {
			rt.system = "You are " + a.Name + "."
		}
		for _, c := range all {
			if selected(a, c.ref, opts.Faults) {
				cc := *c
				rt.caps = append(rt.caps, &cc)
			}
		}
		for _, ns := range a.mounts { // a mounted namespace offers all its skills
			for _, s := range ns.skills {
				if !excluded(a, s.ref, opts.Faults) {
					rt.caps = append(rt.caps, &capability{ref: s.ref, description: s.description, risk: s.risk, skill: s})
				}
			}
		}
		if has(opts.Faults, FaultNoToolRename) {
			for _, c := range rt.caps {
				c.name = c.ref.Name
			}
		} else {
			nameTools(rt.caps, has(opts.Faults, FaultRenameUnsanitized))
		}
		first := map[string]*mcpTool{}
		for _, c := range rt.caps {
			if c.mcp != nil && has(opts.Faults, FaultMCPFirstSource) {
				if f, ok := first[c.ref.Name]; ok {
					c.mcp = f
				} else {
					first[c.ref.Name] = c.mcp
				}
			}
			if c.mcp != nil && has(opts.Faults, FaultMCPPrefixedNames) {
				c.name = c.ref.Domain + "_" + c.ref.Name
			}
			if c.ref.Kind == "agent" && has(opts.Faults, FaultA2APrefixedNames) {
				c.name = c.ref.Domain + "_" + c.ref.Name
			}
			rt.byName[c.name] = c
		}
		if has(opts.Faults, FaultNoAskUser) {
			rt.askUser = false
		}
		rt.noTodo = has(opts.Faults, FaultTodoNotOffered) || (a.Todo.Enabled != nil && !*a.Todo.Enabled)
		g.agents[a.Name] = rt
	}
	return g, nil
}

// Close ends the gateway's connections to its MCP servers (an stdio
// server's process ends with its stdin).
func (g *Gateway) Close() {
	for _, s := range g.mcpSessions {
		_ = s.Close()
	}
	g.mcpSessions = nil
	g.trajectory.close()
	g.trajectory = nil
}

func selected(a *Agent, r Ref, faults []Fault) bool {
	in := len(a.Capabilities.Include) == 0 && has(faults, FaultEmptyIncludeAll) // no include: no source's tool
	for _, p := range a.Capabilities.Include {
		if pr, err := ParseRef(p); err == nil && matches(pr, r, faults) {
			in = true
		}
	}
	if in && has(faults, FaultIncludeOverExclude) && len(a.Capabilities.Include) > 0 {
		return true
	}
	return in && !excluded(a, r, faults)
}

func excluded(a *Agent, r Ref, faults []Fault) bool {
	for _, p := range a.Capabilities.Exclude {
		if pr, err := ParseRef(p); err == nil && matches(pr, r, faults) {
			return true
		}
	}
	return false
}

// matches is pattern p's Match of r, weakened by the planted faults.
func matches(p, r Ref, faults []Fault) bool {
	if has(faults, FaultKindUnchecked) {
		p.Kind = r.Kind
	}
	if has(faults, FaultVersionIgnored) {
		p.Version = ""
	}
	return p.Match(r)
}

// reachable reports whether every http tool of caps answers at its URL
// (the probe of FaultHTTPSourceProbed; a gateway does not probe).
func (g *Gateway) reachable(caps []*capability) bool {
	for _, c := range caps {
		if c.tool == nil {
			continue
		}
		resp, err := g.http.Head(strings.SplitN(c.tool.URL, "{", 2)[0])
		if err != nil {
			return false
		}
		resp.Body.Close()
	}
	return true
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// nameTools gives each tool its model-visible name: the short name, or
// domain_name (then kind_domain_name) for all tools whose names collide.
func nameTools(caps []*capability, unsanitized bool) {
	safe := func(s string) string {
		if unsanitized {
			return s
		}
		return unsafeName.ReplaceAllString(s, "_")
	}
	count := func(f func(*capability) string) map[string]int {
		m := map[string]int{}
		for _, c := range caps {
			m[f(c)]++
		}
		return m
	}
	short := count(func(c *capability) string { return c.ref.Name })
	seen := map[string]bool{}
	for _, c := range caps {
		mid := safe(c.ref.Domain + "_" + c.ref.Name)
		switch {
		case short[c.ref.Name] == 1 && c.ref.Name != "ask_user":
			c.name = c.ref.Name
		case !seen[mid]:
			c.name = mid
		default:
			c.name = c.ref.Kind + "_" + c.ref.Domain + "_" + c.ref.Name
		}
		seen[mid] = true
		c.name = unsafeName.ReplaceAllString(c.name, "_")
	}
}

func (a *agentRT) specs() []toolSpec {
	var out []toolSpec
	add := func(name, desc string, params map[string]any) {
		var s toolSpec
		s.Type = "function"
		s.Function.Name, s.Function.Description, s.Function.Parameters = name, desc, params
		out = append(out, s)
	}
	for _, c := range a.caps {
		params := map[string]any{"type": "object", "additionalProperties": true}
		if c.skill != nil {
			props := map[string]any{}
			var required []any
			for _, n := range sortedKeys(c.skill.params) {
				p := c.skill.params[n]
				typ := p.Type
				if typ == "" {
					typ = "string"
				}
				props[n] = map[string]any{"type": typ, "description": p.Desc}
				if p.Required {
					required = append(required, n)
				}
			}
			params = map[string]any{"type": "object", "properties": props}
			if required != nil {
				params["required"] = required
			}
		}
		add(c.name, c.description, params)
	}
	if !a.noTodo {
		todoSpecs(add)
	}
	if a.digestOver() > 0 {
		readResultSpec(add)
	}
	if a.cfg.Memory.ExposeTools {
		memorySpecs(add)
	}
	if a.askUser {
		add("ask_user", "Ask the user a question and wait for the answer.", map[string]any{"type": "object",
			"properties": map[string]any{"question": map[string]any{"type": "string"}}, "required": []any{"question"}})
	}
	return out
}

// Handler routes the contract's endpoints; a wrong method gets 405.
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	route := func(method, path string, h http.HandlerFunc) {
		if has(g.faults, FaultAnyMethod) {
			method = ""
		} else {
			method += " "
		}
		mux.HandleFunc(method+path, h)
	}
	route("GET", "/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		if has(g.faults, FaultHealthzBody) {
			fmt.Fprint(w, "ok")
		}
	})
	route("POST", "/agents/{name}/messages", g.messages)
	route("POST", "/agents/{name}/control", g.control)
	route("GET", "/a2a/agents", g.a2aList)
	route("POST", "/a2a/agents/{name}/tasks", g.a2aTask)
	return mux
}

const (
	badMessage = "bad request: need {session, input}"
	badUser    = "bad request: user must be an identifier (<=128 chars, no newlines)"
)

func (g *Gateway) newID(prefix string) string {
	if has(g.faults, FaultSessionFormat) {
		return "sess-" + hex.EncodeToString(g.random(6))
	}
	return prefix + g.now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(g.random(4))
}

func (g *Gateway) unknownAgent(w http.ResponseWriter) {
	if has(g.faults, FaultUnknownAgent500) {
		http.Error(w, "unknown agent", http.StatusInternalServerError)
		return
	}
	http.Error(w, "unknown agent", http.StatusNotFound)
}

// fail answers a failed turn.
func (g *Gateway) fail(w http.ResponseWriter, session string, err error) {
	if has(g.faults, FaultRunError200) {
		writeJSON200(w, map[string]any{"answer": "", "session": session, "status": "done"})
		return
	}
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

// text is a contract text, or a paraphrase of it with the wrong-error-text
// fault.
func (g *Gateway) text(s string) string {
	if has(g.faults, FaultWrongErrorText) {
		return strings.ReplaceAll(s, "{", "(")
	}
	return s
}

func (g *Gateway) echo(session string) string {
	if has(g.faults, FaultNoSessionEcho) {
		return session + "-x"
	}
	return session
}

func (g *Gateway) messages(w http.ResponseWriter, r *http.Request) {
	agent, ok := g.agents[r.PathValue("name")]
	if !ok {
		g.unknownAgent(w)
		return
	}
	var req struct {
		Session string `json:"session"`
		Input   string `json:"input"`
		User    string `json:"user"`
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	err := json.Unmarshal(raw, &req)
	if err != nil && has(g.faults, FaultCoerceInput) {
		err = coerce(raw, &req.Session, &req.Input, &req.User)
	}
	if err != nil || req.Input == "" {
		msg := badMessage
		if has(g.faults, FaultWrongErrorText) {
			msg = "bad request: input is required"
		}
		http.Error(w, msg, http.StatusBadRequest)
		return
	}
	size := len(req.User) // bytes, not characters
	if has(g.faults, FaultUserRunes) {
		size = utf8.RuneCountInString(req.User)
	}
	if (size > 128 || strings.ContainsAny(req.User, "\r\n")) && !has(g.faults, FaultLongUserAccepted) {
		http.Error(w, badUser, http.StatusBadRequest)
		return
	}
	if req.Session == "" {
		req.Session = g.newID("http-")
	}
	r = r.WithContext(withUser(r.Context(), req.User))
	if accept := r.Header.Get("Accept"); strings.Contains(accept, "text/event-stream") && (accept == "text/event-stream" || !has(g.faults, FaultAcceptExact)) {
		g.stream(w, r.Context(), agent, req.Session, req.Input)
		return
	}
	lock := g.lock(agent.cfg.Name, req.Session)
	lock.Lock()
	defer lock.Unlock()
	if g.journal != nil {
		g.suspendable(w, r.Context(), agent, req.Session, req.Input)
		return
	}
	answer, dels, err := g.plain(r.Context(), agent, req.Session, req.Input, "t"+hex.EncodeToString(g.random(8)), nil)
	if err != nil {
		g.fail(w, req.Session, err)
		return
	}
	writeJSON200(w, doneBody(answer, g.echo(req.Session), dels))
}

func (g *Gateway) lock(agent, session string) sync.Locker {
	if has(g.faults, FaultNoSessionLock) {
		return noLock{}
	}
	var h uint32 = 2166136261
	for _, b := range []byte(agent + "\x1f" + session) {
		h = (h ^ uint32(b)) * 16777619
	}
	return &g.sessions[h%uint32(len(g.sessions))]
}

// plain runs a turn that cannot suspend and records it in the session.
func (g *Gateway) plain(ctx context.Context, agent *agentRT, session, input, turnID string, onDelta func(string) error) (string, []deliverable, error) {
	t := &turn{g: g, agent: agent, session: session, id: turnID, ix: noChannel{}, onDelta: onDelta}
	answer, err := g.runRecorded(ctx, t, input)
	return answer, t.deliverables, err
}

// runRecorded runs a turn under the control registry and appends it to the
// session's history when it finishes.
func (g *Gateway) runRecorded(ctx context.Context, t *turn, input string) (string, error) {
	key := t.agent.cfg.Name + "\x1f" + t.session
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	run := &running{cancel: cancel}
	g.mu.Lock()
	g.running[key] = run
	var history []message
	if t.agent.cfg.Session.Window > 0 || has(g.faults, FaultMemoryWithoutWindow) {
		history = g.window(t.agent, g.storedHistory(t.agent, g.memoryKey(t, key)))
	}
	g.mu.Unlock()
	t.steer = func() []string {
		g.mu.Lock()
		defer g.mu.Unlock()
		n := run.notes
		run.notes = nil
		return n
	}
	answer, err := t.run(ctx, history, input)
	if err == nil {
		answer = t.direct(answer)
	}
	g.mu.Lock()
	if g.running[key] == run {
		delete(g.running, key)
	}
	if err != nil && run.interrupted && !errors.Is(err, ErrSuspended) {
		answer, err = interruptedAnswer, nil
	}
	if err == nil {
		if !has(g.faults, FaultNoSessionMemory) {
			mk := g.memoryKey(t, key)
			g.history[mk] = append(g.storedHistory(t.agent, mk), message{Role: "user", Content: input}, message{Role: "assistant", Content: answer})
			if err := g.storeHistory(t.agent, mk); err != nil {
				g.mu.Unlock()
				return "", err
			}
			g.mu.Unlock()
			if err := g.rollSummary(ctx, t.agent, mk); err != nil {
				return "", err
			}
			return answer, nil
		}
	}
	g.mu.Unlock()
	return answer, err
}

// memoryKey is where a turn's session memory is kept: per agent and session.
func (g *Gateway) memoryKey(t *turn, key string) string {
	if has(g.faults, FaultMemoryAcrossSessions) {
		return t.agent.cfg.Name
	}
	return key
}

func (g *Gateway) window(a *agentRT, h []message) []message {
	h, head := g.sessionView(h)
	if w := a.cfg.Session.Window; w > 0 && len(h)-head > w {
		h = append(append([]message(nil), h[:head]...), h[len(h)-w:]...)
	}
	return append([]message(nil), h...)
}

// suspendable runs the JSON path with the suspend journal: a pending turn of
// the session takes the input as its answer and replays.
func (g *Gateway) suspendable(w http.ResponseWriter, ctx context.Context, agent *agentRT, session, input string) {
	key := "turn\x1f" + agent.cfg.Name + "\x1f" + session
	if has(g.faults, FaultSessionKeyASCII) {
		key = "turn\x1f" + agent.cfg.Name + "\x1f" + strings.Map(func(r rune) rune {
			if r > 127 {
				return '_'
			}
			return r
		}, session)
	}
	if has(g.faults, FaultResumeAnySession) {
		key = "turn\x1f" + agent.cfg.Name
	}
	turnID, original := "t"+hex.EncodeToString(g.random(8)), input
	if has(g.faults, FaultStaleTurn) {
		g.mu.Lock()
		if last, ok := g.lastTurn[key]; ok {
			turnID = last
		}
		g.lastTurn[key] = turnID
		g.mu.Unlock()
	}
	p, err := g.journal.take(key)
	if err != nil && has(g.faults, FaultCorruptPending500) {
		http.Error(w, "suspend store: "+err.Error(), http.StatusInternalServerError)
		return
	}
	if has(g.faults, FaultNoResume) {
		p = nil
	}
	if err == nil && p != nil {
		it, _, _ := g.journal.interaction(p.TurnID, p.WaitingID)
		it.Answer, it.Answered = input, true
		if err := g.journal.putInteraction(p.TurnID, p.WaitingID, it); err != nil {
			_ = g.journal.putPending(key, *p)
		} else {
			turnID, original = p.TurnID, p.Input
		}
	}
	ix := &suspending{j: g.journal, turn: turnID, anyQuestion: has(g.faults, FaultDivergentAnswer), byTool: has(g.faults, FaultApprovalByTool)}
	t := &turn{g: g, agent: agent, session: session, id: turnID, ix: ix, journal: g.journal}
	answer, err := g.runRecorded(ctx, t, original)
	if errors.Is(err, ErrSuspended) {
		if err := g.journal.putPending(key, pending{TurnID: turnID, Input: original, WaitingID: ix.waiting, Session: session}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		body := map[string]any{"question": ix.asked, "session": g.echo(session), "status": "waiting"}
		if has(g.faults, FaultWaitingNoSession) {
			delete(body, "session")
		}
		writeJSON200(w, body)
		return
	}
	if err != nil {
		g.fail(w, session, err)
		return
	}
	if !has(g.faults, FaultStaleTurn) {
		_ = g.journal.dropTurn(turnID)
	}
	writeJSON200(w, doneBody(answer, g.echo(session), t.deliverables))
}

// stream answers as SSE: one delta frame per non-empty chunk, always ended
// by [DONE]. A failure before the first byte is a 500; a failure after it
// just ends the stream.
func (g *Gateway) stream(w http.ResponseWriter, ctx context.Context, agent *agentRT, session, input string) {
	flusher, _ := w.(http.Flusher)
	started := false
	start := func() {
		if !started {
			started = true
			w.Header().Set("Content-Type", "text/event-stream")
			if !has(g.faults, FaultNoCacheHeader) {
				w.Header().Set("Cache-Control", "no-cache")
			}
			w.WriteHeader(http.StatusOK)
		}
	}
	var buffered strings.Builder
	onDelta := func(d string) error {
		if has(g.faults, FaultSSEBuffered) {
			buffered.WriteString(d)
			return nil
		}
		start()
		frame, _ := json.Marshal(map[string]string{"delta": d})
		if _, err := fmt.Fprintf(w, "data: %s\n\n", frame); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	}
	lock := g.lock(agent.cfg.Name, session)
	lock.Lock()
	t := &turn{g: g, agent: agent, session: session, id: "t" + hex.EncodeToString(g.random(8)), ix: noChannel{}, onDelta: onDelta}
	if has(g.faults, FaultSSEAskFails) {
		t.ix = failing{}
	}
	_, err := g.runRecorded(ctx, t, input)
	lock.Unlock()
	if err != nil && !started && !has(g.faults, FaultSSEFirstErrorEvent) {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	start()
	if err != nil && has(g.faults, FaultSSEFirstErrorEvent) {
		fmt.Fprintf(w, "event: error\ndata: %s\n\n", strings.ReplaceAll(err.Error(), "\n", " "))
	}
	if buffered.Len() > 0 {
		frame, _ := json.Marshal(map[string]string{"delta": buffered.String()})
		fmt.Fprintf(w, "data: %s\n\n", frame)
	}
	if err != nil && has(g.faults, FaultErrorEvent) {
		fmt.Fprintf(w, "event: error\ndata: %s\n\n", strings.ReplaceAll(err.Error(), "\n", " "))
	}
	if !has(g.faults, FaultSSENoDone) {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
	if flusher != nil {
		flusher.Flush()
	}
}

func (g *Gateway) control(w http.ResponseWriter, r *http.Request) {
	agent, ok := g.agents[r.PathValue("name")]
	if !ok {
		g.unknownAgent(w)
		return
	}
	var req struct {
		Session string `json:"session"`
		Action  string `json:"action"`
		Message string `json:"message"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Session == "" {
		http.Error(w, g.text("bad request: need {session, action}"), http.StatusBadRequest)
		return
	}
	key := agent.cfg.Name + "\x1f" + req.Session
	if has(g.faults, FaultIgnoreInterrupt) {
		key = ""
	}
	switch req.Action {
	case "interrupt":
		g.mu.Lock()
		if run := g.running[key]; run != nil {
			run.interrupted = true
			run.cancel()
		}
		g.mu.Unlock()
	case "steer":
		if req.Message == "" {
			http.Error(w, g.text("steer needs {message}"), http.StatusBadRequest)
			return
		}
		g.mu.Lock()
		if run := g.running[key]; run != nil {
			run.notes = append(run.notes, req.Message)
		}
		g.mu.Unlock()
	default:
		http.Error(w, g.text("bad action: want interrupt|steer"), http.StatusBadRequest)
		return
	}
	if has(g.faults, FaultControl200) {
		writeJSON200(w, map[string]any{"ok": true})
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

func (g *Gateway) a2aList(w http.ResponseWriter, _ *http.Request) {
	out := []map[string]string{}
	for name, a := range g.agents { // map order: callers compare as a set
		entry := map[string]string{"name": name, "description": a.cfg.Description}
		if has(g.faults, FaultA2ANoDescription) {
			delete(entry, "description")
		}
		out = append(out, entry)
	}
	writeJSON200(w, out)
}

func (g *Gateway) a2aTask(w http.ResponseWriter, r *http.Request) {
	agent, ok := g.agents[r.PathValue("name")]
	if !ok {
		g.unknownAgent(w)
		return
	}
	var req struct {
		Task string `json:"task"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Task == "" {
		http.Error(w, g.text("bad request: need {task}"), http.StatusBadRequest)
		return
	}
	id := "t" + hex.EncodeToString(g.random(8))
	session := "a2a-" + id
	if has(g.faults, FaultA2ASharedSession) {
		session = "a2a-shared"
	}
	answer, _, err := g.plain(r.Context(), agent, session, req.Task, id, nil)
	if err != nil {
		if has(g.faults, FaultA2AErrorStatus) {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON200(w, map[string]any{"error": err.Error()})
		return
	}
	if has(g.faults, FaultA2AResultKey) {
		writeJSON200(w, map[string]any{"answer": answer})
		return
	}
	writeJSON200(w, map[string]any{"result": answer})
}

// coerce reads a message body leniently, any JSON value taken as its text
// (the coerce-input fault).
func coerce(raw []byte, fields ...*string) error {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	for i, k := range []string{"session", "input", "user"} {
		if v, ok := m[k]; ok && v != nil {
			*fields[i] = fmt.Sprint(v)
		}
	}
	return nil
}

// noLock lets turns of one session run at once (the no-session-lock fault).
type noLock struct{}

func (noLock) Lock()   {}
func (noLock) Unlock() {}

func writeJSON200(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v)
}
