package kungfuref

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Clock is the only source of "now" in the service.
type Clock interface{ Now() time.Time }

// ManualClock is a virtual clock that moves only when told to.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock starts a virtual clock at t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{now: t} }

// Now returns the virtual time.
func (c *ManualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Advance moves the virtual time forward by d.
func (c *ManualClock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// Epoch is where virtual clocks start by default.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Request is one action an agent asks for.
type Request struct {
	Agent  string
	Action string
	Key    string // idempotency key; empty means not replayable
	Params map[string]any
}

// Rejection is a refused action or read. NextStep is one of NextSteps.
type Rejection struct {
	Reason   string
	NextStep string
	Message  string
}

// Response is the answer to an action or a read: a result or a rejection.
type Response struct {
	Result    map[string]any
	Rejection *Rejection
}

// NextSteps is the closed set of next steps (§8).
var NextSteps = []string{"respond", "deliver", "judge", "revise", "retry", "wait", "done", "stop"}

// Reason codes used in rejections.
const (
	ReasonNotFound            = "not_found"
	ReasonForbidden           = "forbidden"
	ReasonInvalidState        = "invalid_state"
	ReasonInvalidParams       = "invalid_params"
	ReasonIdempotencyConflict = "idempotency_conflict"
	ReasonInactive            = "inactive"
	ReasonRateLimited         = "rate_limited"
	ReasonUnknownAction       = "unknown_action"
	ReasonUnauthenticated     = "unauthenticated"
)

// Limits bound cheap, repeatable actions (L4).
type Limits struct {
	// ActionsPerMinute caps the actions one agent may perform in any minute.
	ActionsPerMinute int
	// MaxContentBytes caps one Memory version's content.
	MaxContentBytes int
	// MembersPerThread caps a thread's live memberships.
	MembersPerThread int
}

// DefaultLimits are the limits a new service has. Zero turns a limit off.
var DefaultLimits = Limits{ActionsPerMinute: 120, MaxContentBytes: 64 << 10, MembersPerThread: 50}

// Service is the reference implementation. It is safe for concurrent use:
// actions are serialised, which gives every race a legal serial order (L5).
type Service struct {
	mu     sync.Mutex
	clock  Clock
	store  Store
	limits Limits
	faults map[Fault]bool
	// agentSuffix ends every agent id this service makes, so that the ids
	// of several services hosted side by side never collide.
	agentSuffix string

	seq      int64
	agents   map[string]*agent
	memories map[string]*memory
	order    []string // memory ids in creation order
	threads  threadState
	tasks    taskState
	requests map[requestKey]*RequestRecord
	recent   map[string][]time.Time // per-agent action times, for the rate limit
}

type requestKey struct{ agent, action, key string }

type agent struct {
	id     string
	active bool
}

// Option configures a Service.
type Option func(*Service)

// WithClock injects the clock.
func WithClock(c Clock) Option { return func(s *Service) { s.clock = c } }

// WithStore sets the fact store (default: in memory).
func WithStore(st Store) Option { return func(s *Service) { s.store = st } }

// WithAgentSuffix ends every agent id the service provisions with suffix
// (for example "@scope-7"), so that services hosted side by side, each
// with its own log, never make the same agent id.
func WithAgentSuffix(suffix string) Option { return func(s *Service) { s.agentSuffix = suffix } }

// WithLimits replaces the default limits.
func WithLimits(l Limits) Option { return func(s *Service) { s.limits = l } }

// WithFaults plants deliberate bugs, to prove that checks can fail.
func WithFaults(fs ...Fault) Option {
	return func(s *Service) {
		for _, f := range fs {
			s.faults[f] = true
		}
	}
}

// New returns a service that rebuilds its state from the store's facts.
func New(opts ...Option) (*Service, error) {
	s := &Service{
		clock:    NewManualClock(Epoch),
		store:    &MemoryStore{},
		limits:   DefaultLimits,
		faults:   map[Fault]bool{},
		agents:   map[string]*agent{},
		memories: map[string]*memory{},
		requests: map[requestKey]*RequestRecord{},
		recent:   map[string][]time.Time{},
	}
	for _, o := range opts {
		o(s)
	}
	s.threads.init()
	facts, err := s.store.Facts()
	if err != nil {
		return nil, fmt.Errorf("kungfu: read fact log: %w", err)
	}
	for _, f := range facts {
		if s.faults[FaultRestartForgetsUpdates] && f.Kind == FactMemoryUpdated {
			s.seq = f.Seq
			continue
		}
		if err := s.apply(f); err != nil {
			return nil, fmt.Errorf("kungfu: replay fact %d (%s): %w", f.Seq, f.Kind, err)
		}
	}
	return s, nil
}

// Store returns the service's fact store.
func (s *Service) Store() Store { return s.store }

// Provision creates an active agent and returns its id.
func (s *Service) Provision(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := fmt.Sprintf("agent-%d%s", s.seq+1, s.agentSuffix)
	if name != "" {
		id = fmt.Sprintf("%s-%d%s", name, s.seq+1, s.agentSuffix)
	}
	err := s.commit(nil, Fact{Kind: FactAgentProvisioned, Agent: id})
	return id, err
}

// Deactivate sets an agent's account state to deactivated (§4).
func (s *Service) Deactivate(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sweep(); err != nil {
		return err
	}
	a, ok := s.agents[id]
	if !ok {
		return fmt.Errorf("no agent %q", id)
	}
	if !a.active {
		return fmt.Errorf("agent %q is already deactivated", id)
	}
	facts := []Fact{{Kind: FactAgentDeactivated, Agent: id}}
	if s.faults[FaultDeactivationErases] {
		for _, mid := range s.order {
			if m := s.memories[mid]; m.author == id && !m.withdrawn {
				facts = append(facts, Fact{Kind: FactMemoryWithdrawn, Agent: id, Object: mid})
			}
		}
	}
	return s.commit(nil, facts...)
}

// handler checks an action against the current state and returns the facts it
// would record and its receipt, or a rejection. It must not change state.
type handler func(s *Service, req Request) ([]Fact, map[string]any, *Rejection)

// view answers one read for an agent. It must not change state.
type view func(s *Service, agentID string, params map[string]any) Response

// rejectionHooks let an action keep an application limit (not a fact) when
// it is refused; handlers themselves never change state.
var rejectionHooks = map[string]func(s *Service, req Request, rej *Rejection){
	"thread.join": (*Service).noteFailedJoin,
}

// applier folds one fact of its domain into the derived state.
type applier func(s *Service, f Fact) error

// The dispatch tables: each domain (memory.go, thread.go, task.go) lists its
// actions and views; facts are routed by the prefix of their kind.
var (
	actions  = merge(memoryActions, threadActions, taskActions)
	views    = merge(memoryViews, threadViews, taskViews, accountViews)
	appliers = map[string]applier{
		"memory": (*Service).applyMemory,
		"thread": (*Service).applyThread,
		"task":   (*Service).applyTask,
	}
)

func merge[V any](tables ...map[string]V) map[string]V {
	out := map[string]V{}
	for _, t := range tables {
		for k, v := range t {
			if _, dup := out[k]; dup {
				panic("kungfu: " + k + " is registered twice")
			}
			out[k] = v
		}
	}
	return out
}

// Actions lists the action names the service knows, sorted.
func Actions() []string {
	names := make([]string, 0, len(actions))
	for n := range actions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var keyPattern = regexp.MustCompile(`^[A-Za-z0-9._~:-]{1,128}$`)

// Act performs one action atomically: every precondition is checked before
// any fact is recorded, and all its facts are recorded together.
func (s *Service) Act(req Request) Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sweep(); err != nil {
		return s.reject(ReasonInvalidState, "retry", "deadlines could not be recorded; nothing changed: "+err.Error())
	}
	a, ok := s.agents[req.Agent]
	if !ok {
		return s.reject(ReasonUnauthenticated, "stop", "unknown agent credential")
	}
	h, ok := actions[req.Action]
	if !ok && req.Action == "agent.deactivate" && s.faults[FaultAgentsSetState] {
		h, ok = (*Service).selfDeactivate, true // planted
	}
	if !ok {
		return s.reject(ReasonUnknownAction, "stop", fmt.Sprintf("there is no action %q", req.Action))
	}
	var rk requestKey
	hash := ""
	if req.Key != "" {
		if !keyPattern.MatchString(req.Key) {
			return s.reject(ReasonInvalidParams, "retry", "idempotency key must be 1-128 characters of A-Z a-z 0-9 . _ ~ : -")
		}
		rk = requestKey{req.Agent, req.Action, req.Key}
		if s.faults[FaultSharedKeys] {
			rk.agent = ""
		}
		hash = requestHash(req)
		if rec, ok := s.requests[rk]; ok {
			switch {
			case s.faults[FaultReplayReexecutes]:
				// planted: fall through and perform the action again
			case rec.Hash != hash && !s.faults[FaultConflictIgnored]:
				return s.reject(ReasonIdempotencyConflict, "retry",
					"this idempotency key was already used for a different request; use a new key")
			case rec.Hash == hash:
				if s.faults[FaultReplayDrift] {
					return Response{Result: s.currentView(rec.Receipt)}
				}
				return Response{Result: cloneMap(rec.Receipt)}
			}
		}
	}
	if !a.active && !s.faults[FaultDeactivatedActs] {
		return s.reject(ReasonInactive, "stop", "this agent is deactivated and may not act")
	}
	if rej := s.rateLimit(req.Agent); rej != nil {
		if s.faults[FaultCompensation] && req.Action == "memory.create" {
			_ = s.commit(nil, Fact{Kind: FactMemoryCreated, Agent: req.Agent, Object: fmt.Sprintf("mem-%d", s.seq+1),
				Data: mustJSON(memoryData{Version: 1, Content: "rate limit notice"})})
		}
		return Response{Rejection: rej}
	}
	facts, receipt, rej := h(s, req)
	if rej != nil {
		if hook, ok := rejectionHooks[req.Action]; ok {
			hook(s, req, rej)
		}
	}
	if rej != nil && len(facts) > 0 && (s.faults[FaultPartialEffect] || s.faults[FaultRejectedCreateRecords]) {
		_ = s.commit(nil, facts...)
	}
	if rej != nil {
		if s.faults[FaultNoNextStep] {
			rej.NextStep = ""
		}
		return Response{Rejection: rej}
	}
	receipt["at"] = s.clock.Now().UTC().Format(time.RFC3339Nano)
	var rec *RequestRecord
	if req.Key != "" {
		// A bearer secret is disclosed once: the stored receipt keeps only
		// its fingerprint (L3, §6.1, §12).
		stored := cloneMap(receipt)
		delete(stored, "secret")
		rec = &RequestRecord{Agent: rk.agent, Action: req.Action, Key: req.Key, Hash: hash, Receipt: stored}
	}
	if len(facts) == 0 && rec != nil {
		// A no-new-effect success (L2) still keeps its idempotency record, so
		// a replay returns this receipt rather than a fresh answer.
		facts = []Fact{{Kind: FactRequestRecorded, Agent: req.Agent}}
	}
	if err := s.commit(rec, facts...); err != nil {
		return s.reject(ReasonInvalidState, "retry", "the action could not be recorded; nothing changed: "+err.Error())
	}
	return Response{Result: receipt}
}

// selfDeactivate is the action only the planted agents-set-state fault
// offers: an agent deactivates its own account.
func (s *Service) selfDeactivate(req Request) ([]Fact, map[string]any, *Rejection) {
	return []Fact{{Kind: FactAgentDeactivated, Agent: req.Agent}}, map[string]any{"agent": req.Agent, "state": "deactivated"}, nil
}

func (s *Service) reject(reason, next, msg string) Response {
	if s.faults[FaultNoNextStep] {
		next = ""
	}
	return Response{Rejection: &Rejection{Reason: reason, NextStep: next, Message: msg}}
}

func rejection(reason, next, msg string) *Rejection {
	return &Rejection{Reason: reason, NextStep: next, Message: msg}
}

// commit stamps, stores and applies facts; the request record rides on the last.
func (s *Service) commit(rec *RequestRecord, facts ...Fact) error {
	now := s.clock.Now().UTC()
	for i := range facts {
		facts[i].Seq = s.seq + int64(i) + 1
		if facts[i].At.IsZero() { // deadline facts carry their due time
			facts[i].At = now
		}
	}
	if len(facts) > 0 {
		facts[len(facts)-1].Request = rec
	}
	if bs, ok := s.store.(BatchStore); ok {
		if err := bs.AppendAll(facts); err != nil {
			return err
		}
	} else {
		for _, f := range facts {
			if err := s.store.Append(f); err != nil {
				return err
			}
		}
	}
	for _, f := range facts {
		if err := s.apply(f); err != nil {
			return err
		}
	}
	return nil
}

// apply folds one fact into the derived state. It is the only writer of state.
func (s *Service) apply(f Fact) error {
	s.seq = f.Seq
	switch f.Kind {
	case FactAgentProvisioned:
		s.agents[f.Agent] = &agent{id: f.Agent, active: true}
	case FactRequestRecorded:
		// nothing but the request record, stored below
	case FactAgentDeactivated:
		if a, ok := s.agents[f.Agent]; ok {
			a.active = false
		}
		// In the same fact, every membership ends with its effects (§4).
		s.endMemberships(f.Agent, "deactivate")
	default:
		domain, _, _ := strings.Cut(string(f.Kind), ".")
		ap, ok := appliers[domain]
		if !ok {
			return fmt.Errorf("unknown fact kind %q", f.Kind)
		}
		if err := ap(s, f); err != nil {
			return err
		}
	}
	if r := f.Request; r != nil {
		s.requests[requestKey{r.Agent, r.Action, r.Key}] = r
	}
	return nil
}

func (s *Service) rateLimit(agentID string) *Rejection {
	if s.limits.ActionsPerMinute <= 0 || s.faults[FaultNoRateLimit] {
		return nil
	}
	now := s.clock.Now()
	kept := s.recent[agentID][:0]
	for _, t := range s.recent[agentID] {
		if now.Sub(t) < time.Minute {
			kept = append(kept, t)
		}
	}
	if len(kept) >= s.limits.ActionsPerMinute {
		s.recent[agentID] = kept
		return rejection(ReasonRateLimited, "wait",
			fmt.Sprintf("at most %d actions per minute; wait and repeat the action", s.limits.ActionsPerMinute))
	}
	s.recent[agentID] = append(kept, now)
	return nil
}

// requestHash fingerprints the semantic content of a request.
func requestHash(req Request) string {
	h := sha256.New()
	_ = json.NewEncoder(h).Encode(struct {
		Action string         `json:"action"`
		Params map[string]any `json:"params"`
	}{req.Action, req.Params})
	return hex.EncodeToString(h.Sum(nil))
}

// cloneMap deep-copies a JSON-shaped map (receipts and results), so that a
// stored receipt can never be changed through an answer.
func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return cloneMap(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneValue(e)
		}
		return out
	case []string:
		return append([]string(nil), t...)
	case map[string]string:
		out := make(map[string]string, len(t))
		for k, e := range t {
			out[k] = e
		}
		return out
	}
	return v // strings, numbers, booleans and nil are immutable
}

func stringParam(p map[string]any, name string) (string, bool) {
	v, ok := p[name].(string)
	return v, ok && v != ""
}

func intParam(p map[string]any, name string) (int, bool, error) {
	v, ok := p[name]
	if !ok || v == nil {
		return 0, false, nil
	}
	switch t := v.(type) {
	case float64:
		if t != float64(int(t)) {
			return 0, true, fmt.Errorf("%s must be a whole number", name)
		}
		return int(t), true, nil
	case int:
		return t, true, nil
	case json.Number:
		n, err := strconv.Atoi(string(t))
		return n, true, err
	}
	return 0, true, fmt.Errorf("%s must be a number", name)
}
