package kungfuinproc

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// Logs keeps one fact log per scope: the default scope "" and any number
// of named ones. sqlitestore.Store is one; MemoryLogs another.
type Logs interface {
	Scope(name string) kungfuref.Store
	HasScope(name string) (bool, error)
}

// MemoryLogs keeps every scope's log in memory.
type MemoryLogs struct {
	mu   sync.Mutex
	logs map[string]*kungfuref.MemoryStore
}

// Scope returns the named scope's log, creating it.
func (m *MemoryLogs) Scope(name string) kungfuref.Store {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.logs == nil {
		m.logs = map[string]*kungfuref.MemoryStore{}
	}
	l, ok := m.logs[name]
	if !ok {
		l = &kungfuref.MemoryStore{}
		m.logs[name] = l
	}
	return l
}

// HasScope reports whether the scope's log exists.
func (m *MemoryLogs) HasScope(name string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.logs[name]
	return ok, nil
}

// Scopes serves the reference as sifu serve does: one reference
// service per scope, each with its own fact log, virtual clock and
// restart. Agents provisioned without a scope live in the default one, so
// a client that knows nothing of scopes sees one implementation. A scope's
// agents carry it in their id ("alice-3@s1f2e-7"), which routes their
// actions and reads; nothing is shared between scopes, so moving one
// scope's clock or restarting it leaves every other scope as it was.
type Scopes struct {
	logs Logs
	opts []kungfuref.Option

	mu     sync.Mutex
	worlds map[string]*Reference
	moved  time.Duration // how far unscoped clock controls moved every scope
}

// ScopeName is what a scope may be called: it ends agent ids, so it holds
// no character that a credential or an id separator uses.
var ScopeName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// NewScopes serves one reference per scope over logs; opts (planted
// faults, limits) apply to every scope. The default scope starts at once,
// rebuilding from its log.
func NewScopes(logs Logs, opts ...kungfuref.Option) (*Scopes, error) {
	h := &Scopes{logs: logs, opts: opts, worlds: map[string]*Reference{}}
	if _, err := h.world("", true); err != nil {
		return nil, err
	}
	return h, nil
}

// world returns a scope's service, starting it from its log when it is not
// running yet; with create false, a scope that never recorded a fact is
// not started (nil, nil).
func (h *Scopes) world(scope string, create bool) (*Reference, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w, ok := h.worlds[scope]; ok {
		return w, nil
	}
	if !create {
		has, err := h.logs.HasScope(scope)
		if err != nil || !has {
			return nil, err
		}
	}
	opts := append([]kungfuref.Option{kungfuref.WithStore(h.logs.Scope(scope))}, h.opts...)
	if scope != "" {
		opts = append(opts, kungfuref.WithAgentSuffix("@"+scope))
	}
	w, err := newAt(kungfuref.Epoch.Add(h.moved), opts...)
	if err != nil {
		return nil, fmt.Errorf("scope %q: %w", scope, err)
	}
	h.worlds[scope] = w
	return w, nil
}

// scopeOf is the scope an agent id names: what follows its last "@".
func scopeOf(agent string) string {
	if i := strings.LastIndexByte(agent, '@'); i >= 0 {
		return agent[i+1:]
	}
	return ""
}

var unknownAgent = kungfu.Response{Rejection: &kungfu.Rejection{Reason: "unauthenticated", NextStep: "stop", Message: "unknown agent credential"}}

func (h *Scopes) agentWorld(agent string) (*Reference, error) {
	return h.world(scopeOf(agent), false)
}

// Hello describes the reference, with clock and restart confined to a scope.
func (h *Scopes) Hello(ctx context.Context) (kungfu.Hello, error) {
	w, err := h.world("", true)
	if err != nil {
		return kungfu.Hello{}, err
	}
	hello, err := w.Hello(ctx)
	hello.Scoped = []string{kungfu.ControlClock, kungfu.ControlRestart}
	return hello, err
}

// Act performs an action in the agent's scope.
func (h *Scopes) Act(ctx context.Context, a kungfu.Action) (kungfu.Response, error) {
	w, err := h.agentWorld(a.Agent)
	if err != nil || w == nil {
		return unknownAgent, err
	}
	return w.Act(ctx, a)
}

// Read answers a view in the agent's scope.
func (h *Scopes) Read(ctx context.Context, r kungfu.Read) (kungfu.Response, error) {
	w, err := h.agentWorld(r.Agent)
	if err != nil || w == nil {
		return unknownAgent, err
	}
	return w.Read(ctx, r)
}

// Control runs a control: provision into the scope it names, deactivate in
// the agent's scope, and clock and restart in the scope they name, or in
// every scope when they name none.
func (h *Scopes) Control(ctx context.Context, c kungfu.Control) (kungfu.Response, error) {
	scope, named := c.Params[kungfu.ScopeParam].(string)
	if _, given := c.Params[kungfu.ScopeParam]; given && (!named || !ScopeName.MatchString(scope)) {
		return refused("invalid_params", "scope must be 1-64 characters of A-Z a-z 0-9 _ -"), nil
	}
	inner := kungfu.Control{Name: c.Name, Params: map[string]any{}}
	for k, v := range c.Params {
		if k != kungfu.ScopeParam {
			inner.Params[k] = v
		}
	}
	switch c.Name {
	case kungfu.ControlProvision:
		w, err := h.world(scope, true)
		if err != nil {
			return kungfu.Response{}, err
		}
		return w.Control(ctx, inner)
	case kungfu.ControlDeactivate:
		agent, _ := c.Params["agent"].(string)
		w, err := h.agentWorld(agent)
		if err != nil {
			return kungfu.Response{}, err
		}
		if w == nil {
			return refused("invalid_params", fmt.Sprintf("no agent %q", agent)), nil
		}
		return w.Control(ctx, inner)
	case kungfu.ControlClock, kungfu.ControlRestart:
		if named {
			w, err := h.world(scope, true)
			if err != nil {
				return kungfu.Response{}, err
			}
			return w.Control(ctx, inner)
		}
		return h.everywhere(ctx, inner)
	}
	return refused("unknown_action", fmt.Sprintf("no control %q", c.Name)), nil
}

// everywhere runs an unscoped clock or restart in every running scope; a
// clock move also holds for scopes that start later.
func (h *Scopes) everywhere(ctx context.Context, c kungfu.Control) (kungfu.Response, error) {
	if c.Name == kungfu.ControlClock {
		d, err := duration(c.Params["advance"])
		if err != nil {
			return refused("invalid_params", err.Error()), nil
		}
		h.mu.Lock()
		h.moved += d
		h.mu.Unlock()
	}
	h.mu.Lock()
	names := make([]string, 0, len(h.worlds))
	for n := range h.worlds {
		names = append(names, n)
	}
	h.mu.Unlock()
	sort.Strings(names)
	var last kungfu.Response
	for _, n := range names {
		w, _ := h.world(n, true)
		resp, err := w.Control(ctx, c)
		if err != nil || !resp.OK {
			return resp, err
		}
		if n == "" {
			last = resp
		}
	}
	return last, nil
}
