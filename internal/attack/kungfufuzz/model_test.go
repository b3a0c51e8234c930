package kungfufuzz

import (
	"testing"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// accept runs a step through the model as the case runner does when the
// oracle accepts it: what it captures, then what it learns.
func accept(g *model, vars map[string]any, s engine.Step, result map[string]any) map[string]string {
	o := engine.Outcome{OK: true, Result: result}
	c := g.captures(s, o)
	s.Capture = c
	for name, ptr := range c {
		vars[name] = result[ptr[len("/result/"):]]
	}
	g.learn(s, o)
	return c
}

// TestTheModelKnowsAReplayByItsRequest: a keyed admission accepted once
// and sent again is a replay, answered with a fingerprint instead of the
// secret (KF-L3-06): the model expects no secret from it. The same key from another
// agent is a new request, with a secret of its own (KF-L3-01).
func TestTheModelKnowsAReplayByItsRequest(t *testing.T) {
	g := newModel(kungfu.Hello{}, kungfu.Hello{})
	vars := map[string]any{}
	g.vo = func() map[string]any { return vars }
	accept(g, vars, act("alice", "thread.create", map[string]any{"subject": "s"}), map[string]any{"thread": "thr-1"})
	th := g.threads[0]
	admit := act("alice", "thread.admit", map[string]any{"thread": ref(th.v), "role": "speaker"})
	admit.Key = "key-1"
	first := map[string]any{"thread": "thr-1", "admission": "adm-2", "secret": "kfs_1", "secret_fingerprint": "ab"}
	if c := accept(g, vars, admit, first); len(c) != 2 || len(th.secrets) != 1 {
		t.Fatalf("the first admission captures %v and gives %d secrets, want the secret and the admission", c, len(th.secrets))
	}
	replay := map[string]any{"thread": "thr-1", "admission": "adm-2", "secret_fingerprint": "ab"}
	if c := accept(g, vars, admit, replay); c != nil || len(th.secrets) != 1 {
		t.Errorf("the replay captures %v (%d secrets): a replay discloses no secret and creates nothing", c, len(th.secrets))
	}
	other := admit
	other.Agent = "bob"
	if c := accept(g, vars, other, map[string]any{"thread": "thr-1", "admission": "adm-3", "secret": "kfs_2"}); len(c) != 2 || len(th.secrets) != 2 {
		t.Errorf("the same key from bob captures %v: it is a new request, with its own secret", c)
	}
	// A keyed request the oracle refused left no receipt: sent again and
	// accepted, it is new.
	refused := act("carol", "thread.admit", map[string]any{"thread": ref(th.v)})
	refused.Key = "key-2"
	if c := accept(g, vars, refused, map[string]any{"thread": "thr-1", "admission": "adm-4", "secret": "kfs_3"}); len(c) != 2 {
		t.Errorf("a keyed request accepted for the first time captures %v, want the secret and the admission", c)
	}
}

// TestATakeOfAnOpenEngagementNamesNothingNew: taking a Task again while
// holding an open engagement returns that engagement (L2), not a second.
func TestATakeOfAnOpenEngagementNamesNothingNew(t *testing.T) {
	g := newModel(kungfu.Hello{}, kungfu.Hello{})
	vars := map[string]any{}
	g.vo = func() map[string]any { return vars }
	take := act("bob", "task.take", map[string]any{"task": "${k1}"})
	accept(g, vars, take, map[string]any{"engagement": "eng-2", "state": "confirmed"})
	accept(g, vars, take, map[string]any{"engagement": "eng-2", "state": "confirmed"})
	if len(g.engagements) != 1 {
		t.Errorf("the model holds %d engagements after taking one Task twice, want 1", len(g.engagements))
	}
}
