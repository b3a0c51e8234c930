package kungfuref

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// world drives one reference service with random, mostly valid actions and
// remembers enough to check its invariants after every step.
type world struct {
	s      *Service
	clock  *ManualClock
	store  *MemoryStore
	agents []string
	ids    map[string][]string // pools of ids by parameter name
	maxEnt map[string]int      // entries per thread
	done   []keyed             // successful keyed requests, to replay
	// terminal records the first terminal state seen per assignment, and
	// ended the first ending seen per response.
	terminal map[string]string
	ended    map[string]string
	n        int
}

type keyed struct {
	req     Request
	receipt map[string]any
}

func newWorld(t *rapid.T) *world {
	clock := NewManualClock(Epoch)
	store := &MemoryStore{}
	s, err := New(WithClock(clock), WithStore(store), WithLimits(Limits{ActionsPerMinute: 0, MaxContentBytes: 1 << 10}))
	if err != nil {
		t.Fatal(err)
	}
	w := &world{s: s, clock: clock, store: store, ids: map[string][]string{}, maxEnt: map[string]int{},
		terminal: map[string]string{}, ended: map[string]string{}}
	for _, name := range []string{"ann", "ben", "cat"} {
		id, err := s.Provision(name)
		if err != nil {
			t.Fatal(err)
		}
		w.agents = append(w.agents, id)
	}
	return w
}

func (w *world) pick(t *rapid.T, pool string) string {
	ids := w.ids[pool]
	if len(ids) == 0 {
		return "none-0"
	}
	return rapid.SampledFrom(ids).Draw(t, pool)
}

func (w *world) agent(t *rapid.T) string { return rapid.SampledFrom(w.agents).Draw(t, "agent") }

// act performs a request with a fresh key and records what it created.
func (w *world) act(t *rapid.T, agent, action string, params map[string]any) Response {
	w.n++
	req := Request{Agent: agent, Action: action, Key: fmt.Sprintf("k%d", w.n), Params: params}
	resp := w.s.Act(req)
	if resp.Rejection != nil {
		if !slices.Contains(NextSteps, resp.Rejection.NextStep) || resp.Rejection.Reason == "" {
			t.Fatalf("%s: rejection outside the closed set: %+v", action, resp.Rejection)
		}
		return resp
	}
	// A replay returns the first receipt less the bearer secret (§6.1, L3).
	receipt := cloneMap(resp.Result)
	delete(receipt, "secret")
	w.done = append(w.done, keyed{req: req, receipt: receipt})
	for _, pool := range []string{"memory", "thread", "assignment", "secret"} {
		if id, ok := resp.Result[pool].(string); ok && !slices.Contains(w.ids[pool], id) {
			w.ids[pool] = append(w.ids[pool], id)
		}
	}
	if action == "thread.post" {
		th := resp.Result["thread"].(string)
		w.maxEnt[th]++
	}
	return resp
}

func (w *world) entry(t *rapid.T, thread string) float64 {
	return float64(rapid.IntRange(1, max(1, w.maxEnt[thread])).Draw(t, "entry"))
}

func (w *world) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"memory.create": func(t *rapid.T) {
			w.act(t, w.agent(t), "memory.create", map[string]any{"content": rapid.StringMatching(`[a-z{}":]{1,12}`).Draw(t, "content")})
		},
		"memory.update": func(t *rapid.T) {
			w.act(t, w.agent(t), "memory.update", map[string]any{"memory": w.pick(t, "memory"), "content": "v"})
		},
		"memory.visibility": func(t *rapid.T) {
			action := rapid.SampledFrom([]string{"memory.publish", "memory.unpublish", "memory.withdraw"}).Draw(t, "action")
			w.act(t, w.agent(t), action, map[string]any{"memory": w.pick(t, "memory")})
		},
		"thread.create": func(t *rapid.T) { w.act(t, w.agent(t), "thread.create", map[string]any{}) },
		"thread.admit": func(t *rapid.T) {
			role := rapid.SampledFrom([]string{"observer", "speaker", "governor"}).Draw(t, "role")
			w.act(t, w.agent(t), "thread.admit", map[string]any{"thread": w.pick(t, "thread"), "role": role})
		},
		"thread.join": func(t *rapid.T) {
			w.act(t, w.agent(t), "thread.join", map[string]any{"secret": w.pick(t, "secret")})
		},
		"thread.post": func(t *rapid.T) {
			th := w.pick(t, "thread")
			p := map[string]any{"thread": th, "memory": w.pick(t, "memory")}
			if rapid.Bool().Draw(t, "reply") {
				p["reply_to"] = w.entry(t, th)
			}
			if rapid.Bool().Draw(t, "ask") {
				p["ask"] = []any{w.agent(t)}
			}
			if rapid.Bool().Draw(t, "assign") {
				p["assign"] = map[string]any{"to": w.agent(t), "criteria": "c", "delivery_due": 120.0, "judgment_due": 120.0}
			}
			w.act(t, w.agent(t), "thread.post", p)
		},
		"thread.end_response": func(t *rapid.T) {
			th := w.pick(t, "thread")
			action := rapid.SampledFrom([]string{"thread.handle", "thread.retract"}).Draw(t, "action")
			w.act(t, w.agent(t), action, map[string]any{"thread": th, "entry": w.entry(t, th), "note": "n"})
		},
		"thread.membership": func(t *rapid.T) {
			th := w.pick(t, "thread")
			switch rapid.IntRange(0, 3).Draw(t, "which") {
			case 0:
				w.act(t, w.agent(t), "thread.leave", map[string]any{"thread": th})
			case 1:
				w.act(t, w.agent(t), "thread.remove", map[string]any{"thread": th, "member": w.agent(t)})
			case 2:
				role := rapid.SampledFrom([]string{"observer", "speaker", "governor"}).Draw(t, "role")
				w.act(t, w.agent(t), "thread.set_role", map[string]any{"thread": th, "member": w.agent(t), "role": role})
			default:
				w.act(t, w.agent(t), "thread.close", map[string]any{"thread": th})
			}
		},
		"assignment": func(t *rapid.T) {
			a := w.pick(t, "assignment")
			action := rapid.SampledFrom([]string{"assignment.take", "assignment.deliver", "assignment.judge",
				"assignment.drop", "assignment.void"}).Draw(t, "action")
			p := map[string]any{"assignment": a, "payload": "out", "verdict": rapid.SampledFrom([]string{"adopt", "reject"}).Draw(t, "verdict"), "reason": "r"}
			w.act(t, w.agent(t), action, p)
		},
		"clock": func(t *rapid.T) {
			w.clock.Advance(time.Duration(rapid.IntRange(1, 200).Draw(t, "seconds")) * time.Second)
		},
		"replay": func(t *rapid.T) {
			if len(w.done) == 0 {
				t.Skip("nothing to replay yet")
			}
			k := rapid.SampledFrom(w.done).Draw(t, "request")
			got := w.s.Act(k.req)
			if got.Rejection != nil || !reflect.DeepEqual(normal(got.Result), normal(k.receipt)) {
				t.Fatalf("replay of %s drifted:\nfirst  %v\nreplay %v %v", k.req.Action, k.receipt, got.Result, got.Rejection)
			}
		},
	}
}

func normal(v any) any {
	raw, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

// check asserts the invariants after every step.
func (w *world) check(t *rapid.T) {
	w.s.mu.Lock()
	for id, a := range w.s.threads.assignments {
		if first, seen := w.terminal[id]; seen && a.state != first {
			w.s.mu.Unlock()
			t.Fatalf("assignment %s left terminal state %s for %s", id, first, a.state)
		}
		if a.terminal() {
			w.terminal[id] = a.state
		}
	}
	for tid, th := range w.s.threads.byID {
		for _, e := range th.entries {
			for _, r := range e.responses {
				key := fmt.Sprintf("%s/%d/%s", tid, e.seq, r.responder)
				if first, seen := w.ended[key]; seen && (!r.ended || r.endedBy != first) {
					w.s.mu.Unlock()
					t.Fatalf("response %s ended twice: %s then %v/%s", key, first, r.ended, r.endedBy)
				}
				if r.ended {
					w.ended[key] = r.endedBy
				}
			}
		}
	}
	w.s.mu.Unlock()
	w.checkRebuild(t)
}

// checkRebuild rebuilds a service from the fact log and compares every read.
func (w *world) checkRebuild(t *rapid.T) {
	facts, _ := w.store.Facts()
	copied := &MemoryStore{}
	for _, f := range facts {
		copied.Append(f)
	}
	rebuilt, err := New(WithClock(w.clock), WithStore(copied))
	if err != nil {
		t.Fatalf("rebuild from the fact log: %v", err)
	}
	for _, agent := range w.agents {
		reads := []struct {
			view   string
			params map[string]any
		}{{"turn", nil}, {"threads", nil}, {"memories", map[string]any{"scope": "own"}}, {"opportunities", nil}}
		for _, id := range w.ids["memory"] {
			reads = append(reads, struct {
				view   string
				params map[string]any
			}{"memory", map[string]any{"memory": id}})
		}
		for _, id := range w.ids["thread"] {
			reads = append(reads, struct {
				view   string
				params map[string]any
			}{"thread", map[string]any{"thread": id}})
		}
		for _, id := range w.ids["assignment"] {
			reads = append(reads, struct {
				view   string
				params map[string]any
			}{"assignment", map[string]any{"assignment": id}})
		}
		for _, r := range reads {
			live, again := w.s.Read(agent, r.view, r.params), rebuilt.Read(agent, r.view, r.params)
			if !reflect.DeepEqual(normal(live), normal(again)) {
				t.Fatalf("%s reading %s %v: live and rebuilt state differ:\nlive    %v\nrebuilt %v", agent, r.view, r.params, normal(live), normal(again))
			}
		}
	}
}

// TestRandomActionSequences checks, after every step of random action
// sequences, that terminal states never change, every response ends at most
// once, replays return their first receipt, and state rebuilt from the fact
// log answers every read as the live service does.
func TestRandomActionSequences(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := newWorld(t)
		actions := w.actions()
		actions[""] = w.check
		t.Repeat(actions)
	})
}
