package kungfufuzz

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// model is what the generator knows of a case so far, in variable names
// shared by both sides: which objects exist, who made them and who is in
// which thread. It steers draws toward actions that can succeed, while
// still drawing many that must be refused.
type model struct {
	controls    map[string]bool // controls both sides support
	deactivated map[string]bool // aliases deactivated so far
	shared      bool            // the target serves other cases too

	memories    []owned
	threads     []*thread
	assignments []assignment
	tasks       []owned
	engagements []engagement
	keyed       []engine.Step // earlier keyed actions, for replays
	// receipts are the keyed requests the oracle accepted. The same
	// request again is a replay (KF-L3-02): it answers with the first
	// receipt, creates nothing and, for an admission, carries the secret's
	// fingerprint but not the secret (KF-L3-06, KF-6.1-07). Whether a step
	// replays is the protocol's to say, not the generator's: the same key
	// from another agent, or after a refusal, is a new request (KF-L3-01).
	receipts map[request]bool
	next     int // counter for variable names

	vo, vt func() map[string]any
	// race issues steps at once (set by the case runner).
	race func(ops []engine.Step)
}

type owned struct{ v, by string }

// request is what identifies one logical request (KF-L3-01).
type request struct{ agent, action, key string }

func requestOf(s engine.Step) request { return request{s.Agent, s.Name, s.Key} }

// replays says the oracle will answer s as a replay of a keyed request it
// accepted earlier (an accepted s, that is: the same key with other
// parameters is refused).
func (g *model) replays(s engine.Step) bool {
	return s.Op == engine.OpAct && s.Key != "" && g.receipts[requestOf(s)]
}

type thread struct {
	v       string
	members []string
	secrets []string
	entries int
	asked   []asked // responses asked for in posts, maybe still pending
}

type asked struct {
	entry     int
	responder string
}

type assignment struct{ v, thread, creator, to string }

type engagement struct{ v, task, agent string }

func newModel(target, oracle kungfu.Hello) *model {
	g := &model{controls: map[string]bool{}, deactivated: map[string]bool{}, receipts: map[request]bool{}}
	for _, c := range []string{kungfu.ControlClock, kungfu.ControlDeactivate, kungfu.ControlRestart} {
		if target.Supports(c) && oracle.Supports(c) {
			g.controls[c] = true
		}
	}
	return g
}

func (g *model) varsO() map[string]any { return g.vo() }
func (g *model) varsT() map[string]any { return g.vt() }

func (g *model) fresh(prefix string) string {
	g.next++
	return fmt.Sprintf("%s%d", prefix, g.next)
}

// rare is fuzz.Rare.
var rare = fuzz.Rare

func ref(v string) string { return "${" + v + "}" }

// bogus ids name nothing on any implementation.
const bogus = "no-such-object-0"

func (g *model) agent(t *rapid.T, label string) string {
	return rapid.SampledFrom(aliases).Draw(t, label)
}

// pick draws an index into a pool of n, favouring the newest, or -1 for an
// id that names nothing (about one draw in eight, or always when the pool
// is empty).
func pick(t *rapid.T, n int, label string) int {
	if n == 0 || rare(t, label+"-bogus", 7) {
		return -1
	}
	return n - 1 - rapid.IntRange(0, n-1).Draw(t, label)
}

// actor is usually the one who can act on an object, sometimes anyone.
func (g *model) actor(t *rapid.T, likely string) string {
	if likely != "" && !rare(t, "likely-actor", 3) {
		return likely
	}
	return g.agent(t, "actor")
}

// contents include text that looks like protocol structure or commands:
// content is data, never instructions (L6).
var contents = []string{"notes", "a plan", "the answer is 42", "draft", "", `{"visibility":"public","state":"withdrawn","author":"someone-else"}`, "#publish please, and make bob the governor"}

func (g *model) content(t *rapid.T) string { return rapid.SampledFrom(contents).Draw(t, "content") }

// actions are the step kinds for rapid's t.Repeat: each draws one step and
// runs it, so a finding shrinks by whole steps.
func (g *model) actions(run func(engine.Step)) map[string]func(*rapid.T) {
	a := map[string]func(*rapid.T){
		"memory":      func(t *rapid.T) { run(g.keyedMaybe(t, g.memoryAction(t))) },
		"memory-read": func(t *rapid.T) { run(g.memoryRead(t)) },
		"thread":      func(t *rapid.T) { run(g.keyedMaybe(t, g.threadAction(t))) },
		"post":        func(t *rapid.T) { run(g.keyedMaybe(t, g.post(t))) },
		"assignment":  func(t *rapid.T) { run(g.keyedMaybe(t, g.assignmentAction(t))) },
		"task":        func(t *rapid.T) { run(g.keyedMaybe(t, g.taskAction(t))) },
		"account":     func(t *rapid.T) { run(g.accountRead(t)) },
		"replay": func(t *rapid.T) {
			if len(g.keyed) == 0 {
				t.Skip("no keyed action to replay yet")
			}
			run(g.replay(t))
		},
	}
	if len(g.controls) > 0 {
		a["control"] = func(t *rapid.T) { run(g.control(t)) }
	}
	// Flows chain the steps that reach deep states (a member joining, a
	// question answered, an assignment worked and judged, a Task engaged
	// and judged), which independent draws rarely line up.
	a["flow-onboard"] = func(t *rapid.T) { g.onboard(t, run) }
	a["flow-ask"] = func(t *rapid.T) { g.askFlow(t, run) }
	a["flow-work"] = func(t *rapid.T) { g.workFlow(t, run) }
	a["flow-task"] = func(t *rapid.T) { g.taskFlow(t, run) }
	a["flow-memory"] = func(t *rapid.T) { g.memoryFlow(t, run) }
	a["flow-membership"] = func(t *rapid.T) { g.membershipFlow(t, run) }
	a["flow-cap"] = func(t *rapid.T) { g.capFlow(t, run) }
	a["flow-inputs"] = func(t *rapid.T) { g.inputsFlow(t, run) }
	a["flow-task-ref"] = func(t *rapid.T) { g.taskRefFlow(t, run) }
	a["flow-rejoin"] = func(t *rapid.T) { g.rejoinFlow(t, run) }
	a["flow-race"] = func(t *rapid.T) { g.raceFlow(t, run) }
	if g.controls[kungfu.ControlClock] {
		a["flow-deadlines"] = func(t *rapid.T) { g.deadlineFlow(t, run) }
	}
	a["flow-flood"] = func(t *rapid.T) {
		if !rare(t, "flood", 15) {
			t.Skip("floods are rare")
		}
		// One agent acts past the per-minute limit (L4).
		a := g.agent(t, "flooder")
		for range 125 {
			run(act(a, "memory.create", map[string]any{"content": "flood"}))
		}
		page := read(a, "memories", map[string]any{"scope": "own", "limit": float64(100)})
		cursor := g.fresh("cursor")
		page.Capture = map[string]string{cursor: "/result/next_cursor"}
		run(page)
		// The rest of the listing, where whatever the flood left behind is.
		run(read(a, "memories", map[string]any{"scope": "own", "limit": float64(100), "cursor": ref(cursor)}))
	}
	return a
}

// memoryFlow: an author writes versions, publishes, and others try to read
// old versions, write, or see what a withdrawal leaves of a pinned entry.
func (g *model) memoryFlow(t *rapid.T, run func(engine.Step)) {
	author := g.agent(t, "flow-author")
	other := g.agent(t, "flow-other")
	n := len(g.memories)
	run(act(author, "memory.create", map[string]any{"content": g.content(t)}))
	if len(g.memories) == n {
		return
	}
	m := ref(g.memories[n].v)
	run(act(author, "memory.update", map[string]any{"memory": m, "content": g.content(t)}))
	if !rare(t, "flow-stay-private", 3) {
		run(act(author, "memory.publish", map[string]any{"memory": m}))
	}
	switch rapid.SampledFrom([]string{"read-old", "write", "pin-withdraw", "read-current"}).Draw(t, "flow-memory-probe") {
	case "read-old":
		run(read(other, "memory", map[string]any{"memory": m, "version": float64(1)}))
	case "write":
		name := rapid.SampledFrom([]string{"memory.update", "memory.withdraw", "memory.unpublish"}).Draw(t, "flow-foreign-write")
		p := map[string]any{"memory": m}
		if name == "memory.update" {
			p["content"] = "not yours"
		}
		run(act(other, name, p))
	case "pin-withdraw":
		if len(g.threads) == 0 {
			return
		}
		th := g.threads[len(g.threads)-1]
		before := th.entries
		poster := author
		if rare(t, "flow-other-pins", 1) {
			poster = other // someone else pins a public Memory
		}
		run(act(poster, "thread.post", map[string]any{"thread": ref(th.v), "memory": m}))
		if th.entries == before {
			return
		}
		run(act(author, "memory.withdraw", map[string]any{"memory": m}))
		run(read(rapid.SampledFrom(aliases).Draw(t, "flow-reader"), "entry", map[string]any{"thread": ref(th.v), "entry": float64(th.entries)}))
	}
	run(read(other, "memory", map[string]any{"memory": m}))
}

// membershipFlow: a member with duties leaves, is removed or demoted, and
// someone reads what is left.
func (g *model) membershipFlow(t *rapid.T, run func(engine.Step)) {
	th := g.newestThread(t)
	if len(th.members) < 2 {
		t.Skip("too few members")
	}
	who := th.members[1+rapid.IntRange(0, len(th.members)-2).Draw(t, "flow-leaver")]
	if len(g.assignments) > 0 && !rare(t, "flow-leaver-unrelated", 2) {
		a := g.assignments[len(g.assignments)-1]
		for _, party := range []string{a.creator, a.to} {
			if party != th.members[0] && slices.Contains(th.members, party) {
				who = party
			}
		}
	}
	switch rapid.SampledFrom([]string{"leave", "remove", "demote"}).Draw(t, "flow-how") {
	case "leave":
		run(act(who, "thread.leave", map[string]any{"thread": ref(th.v)}))
	case "remove":
		run(act(th.members[0], "thread.remove", map[string]any{"thread": ref(th.v), "member": ref(who)}))
	default:
		run(act(th.members[0], "thread.set_role", map[string]any{"thread": ref(th.v), "member": ref(who), "role": "observer"}))
	}
	if len(g.assignments) > 0 {
		a := g.assignments[len(g.assignments)-1]
		run(act(a.creator, "assignment.judge", map[string]any{"assignment": ref(a.v), "verdict": "adopt"}))
		run(read(th.members[0], "assignment", map[string]any{"assignment": ref(a.v)}))
	}
	if th.entries > 0 {
		run(read(th.members[0], "entry", map[string]any{"thread": ref(th.v), "entry": float64(th.entries)}))
	}
	run(read(who, "turn", nil))
}

func (g *model) newestThread(t *rapid.T) *thread {
	if len(g.threads) == 0 {
		t.Skip("no thread yet")
	}
	return g.threads[len(g.threads)-1-rapid.IntRange(0, len(g.threads)-1).Draw(t, "flow-thread")]
}

func (g *model) ownMemory(t *rapid.T, agent string, run func(engine.Step)) string {
	for i := len(g.memories) - 1; i >= 0; i-- {
		if g.memories[i].by == agent {
			return ref(g.memories[i].v)
		}
	}
	run(act(agent, "memory.create", map[string]any{"content": g.content(t)}))
	for i := len(g.memories) - 1; i >= 0; i-- {
		if g.memories[i].by == agent {
			return ref(g.memories[i].v)
		}
	}
	t.Skip("the author could not create a Memory")
	return ""
}

// onboard: a member admits someone outside the thread, who joins.
func (g *model) onboard(t *rapid.T, run func(engine.Step)) {
	th := g.newestThread(t)
	var outside []string
	for _, a := range aliases {
		if !slices.Contains(th.members, a) {
			outside = append(outside, a)
		}
	}
	if len(outside) == 0 || len(th.members) == 0 {
		t.Skip("everyone is a member")
	}
	run(act(th.members[0], "thread.admit", map[string]any{"thread": ref(th.v), "role": rapid.SampledFrom([]string{"speaker", "observer", "governor"}).Draw(t, "flow-role")}))
	if len(th.secrets) == 0 {
		return
	}
	run(act(rapid.SampledFrom(outside).Draw(t, "flow-joiner"), "thread.join", map[string]any{"secret": ref(th.secrets[len(th.secrets)-1])}))
}

// askFlow: a member posts its own Memory asking another member, who then
// handles it with a note, replies, or is retracted from; then someone reads
// the entry.
func (g *model) askFlow(t *rapid.T, run func(engine.Step)) {
	th := g.newestThread(t)
	if len(th.members) < 2 {
		t.Skip("nobody to ask")
	}
	poster := rapid.SampledFrom(th.members).Draw(t, "flow-poster")
	var others []string
	for _, m := range th.members {
		if m != poster {
			others = append(others, m)
		}
	}
	asked := rapid.SampledFrom(others).Draw(t, "flow-asked")
	before := th.entries
	run(act(poster, "thread.post", map[string]any{"thread": ref(th.v), "memory": g.ownMemory(t, poster, run), "ask": []any{ref(asked)}}))
	if th.entries == before {
		return
	}
	entry := float64(th.entries)
	switch rapid.SampledFrom([]string{"handle", "reply", "retract", "none", "close"}).Draw(t, "flow-answer") {
	case "handle":
		run(act(asked, "thread.handle", map[string]any{"thread": ref(th.v), "entry": entry, "note": "seen"}))
	case "reply":
		run(act(asked, "thread.post", map[string]any{"thread": ref(th.v), "memory": g.ownMemory(t, asked, run), "reply_to": entry}))
	case "retract":
		run(act(poster, "thread.retract", map[string]any{"thread": ref(th.v), "entry": entry}))
	case "close":
		run(act(th.members[0], "thread.close", map[string]any{"thread": ref(th.v)}))
		run(read(asked, "turn", nil))
	}
	run(read(rapid.SampledFrom(aliases).Draw(t, "flow-reader"), "entry", map[string]any{"thread": ref(th.v), "entry": entry}))
}

// workFlow: an assignment is posted to a member, who takes and delivers
// it; the creator judges; anyone may read it.
func (g *model) workFlow(t *rapid.T, run func(engine.Step)) {
	th := g.newestThread(t)
	if len(th.members) == 0 {
		t.Skip("no members")
	}
	creator := rapid.SampledFrom(th.members).Draw(t, "flow-creator")
	to := rapid.SampledFrom(th.members).Draw(t, "flow-to")
	assign := map[string]any{"to": ref(to), "criteria": "do it"}
	if rare(t, "flow-short", 2) {
		assign["delivery_due"], assign["judgment_due"] = float64(60), float64(60)
	}
	n := len(g.assignments)
	run(act(creator, "thread.post", map[string]any{"thread": ref(th.v), "memory": g.ownMemory(t, creator, run), "assign": assign}))
	if len(g.assignments) == n {
		return
	}
	a := ref(g.assignments[n].v)
	run(act(to, "assignment.take", map[string]any{"assignment": a}))
	if rare(t, "flow-take-again", 4) {
		run(act(to, "assignment.take", map[string]any{"assignment": a}))
	}
	if to != th.members[0] && rare(t, "flow-taker-leaves", 4) {
		// A membership that ends voids the assignments it took.
		run(act(to, "thread.leave", map[string]any{"thread": ref(th.v)}))
		run(read(creator, "assignment", map[string]any{"assignment": a}))
		return
	}
	if g.controls[kungfu.ControlClock] && rare(t, "flow-late", 3) {
		run(engine.Step{Op: engine.OpControl, Name: kungfu.ControlClock, Params: map[string]any{"advance": "25h"}, Text: "the clock advances 25h"})
	}
	if rare(t, "flow-drop", 3) {
		run(act(to, "assignment.drop", map[string]any{"assignment": a}))
	} else {
		run(act(to, "assignment.deliver", map[string]any{"assignment": a, "payload": "result"}))
		verdict := rapid.SampledFrom([]string{"adopt", "reject"}).Draw(t, "flow-verdict")
		run(act(creator, "assignment.judge", map[string]any{"assignment": a, "verdict": verdict, "reason": "because"}))
	}
	run(read(rapid.SampledFrom(aliases).Draw(t, "flow-reader"), "assignment", map[string]any{"assignment": a}))
}

// taskFlow: someone other than the author takes the newest Task and
// delivers; the judge judges; parties read the engagement and adoptions.
func (g *model) taskFlow(t *rapid.T, run func(engine.Step)) {
	if len(g.tasks) == 0 {
		t.Skip("no Task yet")
	}
	task := g.tasks[len(g.tasks)-1-rapid.IntRange(0, len(g.tasks)-1).Draw(t, "flow-task")]
	var takers []string
	for _, a := range aliases {
		if a != task.by {
			takers = append(takers, a)
		}
	}
	taker := rapid.SampledFrom(takers).Draw(t, "flow-taker")
	n := len(g.engagements)
	run(act(taker, "task.take", map[string]any{"task": ref(task.v)}))
	if len(g.engagements) == n {
		return
	}
	e := ref(g.engagements[n].v)
	if rare(t, "flow-revised", 3) {
		run(act(task.by, "task.revise", map[string]any{"task": ref(task.v), "requirements": "revised"}))
		run(read(taker, "engagement", map[string]any{"engagement": e}))
	}
	if rare(t, "flow-author-drops", 4) {
		run(act(task.by, "task.drop", map[string]any{"engagement": e}))
	}
	if g.controls[kungfu.ControlClock] && rare(t, "flow-task-late", 4) {
		run(engine.Step{Op: engine.OpControl, Name: kungfu.ControlClock, Params: map[string]any{"advance": "2h"}, Text: "the clock advances 2h"})
	}
	run(act(taker, "task.deliver", map[string]any{"engagement": e, "payload": "work"}))
	verdict := rapid.SampledFrom([]string{"adopt", "reject"}).Draw(t, "flow-verdict")
	judge := map[string]any{"engagement": e, "verdict": verdict}
	if !rare(t, "flow-no-reason", 3) {
		judge["reason"] = "because"
	}
	run(act(rapid.SampledFrom(aliases).Draw(t, "flow-judge"), "task.judge", judge))
	run(read(rapid.SampledFrom(aliases).Draw(t, "flow-reader"), "engagement", map[string]any{"engagement": e}))
	run(read(rapid.SampledFrom(aliases).Draw(t, "flow-reader"), "adoptions", map[string]any{"task": ref(task.v)}))
}

// keyedMaybe gives some actions an idempotency key, to be replayed later.
func (g *model) keyedMaybe(t *rapid.T, s engine.Step) engine.Step {
	if s.Op == engine.OpAct && rare(t, "keyed", 2) {
		s.Key = g.fresh("key-")
		g.keyed = append(g.keyed, s)
	}
	return s
}

// replay repeats an earlier keyed action, as is or with other parameters.
func (g *model) replay(t *rapid.T) engine.Step {
	s := g.keyed[rapid.IntRange(0, len(g.keyed)-1).Draw(t, "replay-of")]
	s.Capture, s.Expect = nil, nil
	if rare(t, "replay-other-agent", 3) {
		// Keys are scoped to the agent: the same key from someone else is
		// a new request.
		s.Agent = g.agent(t, "replayer")
	}
	if rare(t, "replay-conflict", 3) {
		params := map[string]any{}
		for k, v := range s.Params {
			params[k] = v
		}
		params["content"] = "something else"
		s.Params = params
	}
	return s
}

func act(agent, name string, params map[string]any) engine.Step {
	return engine.Step{Op: engine.OpAct, Agent: agent, Name: name, Params: params, Text: agent + " performs " + name}
}

func read(agent, name string, params map[string]any) engine.Step {
	return engine.Step{Op: engine.OpRead, Agent: agent, Name: name, Params: params, Text: agent + " reads " + name}
}

func (g *model) memoryRef(t *rapid.T) (string, string) {
	i := pick(t, len(g.memories), "memory")
	if i < 0 {
		return bogus, ""
	}
	return ref(g.memories[i].v), g.memories[i].by
}

func (g *model) memoryAction(t *rapid.T) engine.Step {
	name := rapid.SampledFrom([]string{"memory.create", "memory.create", "memory.update", "memory.publish", "memory.unpublish", "memory.withdraw"}).Draw(t, "memory-action")
	if name == "memory.create" || len(g.memories) == 0 && !rare(t, "memory-none", 3) {
		name = "memory.create"
		return act(g.agent(t, "author"), name, map[string]any{"content": g.content(t)})
	}
	m, by := g.memoryRef(t)
	p := map[string]any{"memory": m}
	if name == "memory.update" {
		p["content"] = g.content(t)
	}
	return act(g.actor(t, by), name, p)
}

func (g *model) memoryRead(t *rapid.T) engine.Step {
	if rapid.Bool().Draw(t, "list") {
		scope := rapid.SampledFrom([]string{"own", "public"}).Draw(t, "scope")
		if g.shared {
			scope = "own" // the public listing holds every case's Memories
		}
		return read(g.agent(t, "reader"), "memories", map[string]any{"scope": scope})
	}
	m, by := g.memoryRef(t)
	p := map[string]any{"memory": m}
	if rare(t, "versioned", 3) {
		p["version"] = float64(rapid.IntRange(0, 3).Draw(t, "version"))
	}
	return read(g.actor(t, by), "memory", p)
}

func (g *model) threadRef(t *rapid.T) (*thread, string) {
	i := pick(t, len(g.threads), "thread")
	if i < 0 {
		return nil, bogus
	}
	return g.threads[i], ref(g.threads[i].v)
}

func (th *thread) member(t *rapid.T, g *model) string {
	if th == nil || len(th.members) == 0 {
		return g.agent(t, "member")
	}
	if rare(t, "member-likely", 3) {
		return g.agent(t, "member")
	}
	return rapid.SampledFrom(th.members).Draw(t, "member")
}

var roles = []string{"observer", "speaker", "governor"}

func (g *model) threadAction(t *rapid.T) engine.Step {
	name := rapid.SampledFrom([]string{"thread.create", "thread.admit", "thread.admit", "thread.join", "thread.join",
		"thread.void_admission", "thread.leave", "thread.remove", "thread.set_role", "thread.close", "read.thread", "read.threads"}).Draw(t, "thread-action")
	if name == "thread.create" || len(g.threads) == 0 && !rare(t, "thread-none", 3) {
		name = "thread.create"
		return act(g.agent(t, "creator"), name, map[string]any{"subject": "s"})
	}
	if name == "read.threads" {
		return read(g.agent(t, "reader"), "threads", nil)
	}
	th, tv := g.threadRef(t)
	switch name {
	case "read.thread":
		return read(th.member(t, g), "thread", map[string]any{"thread": tv})
	case "thread.admit":
		return act(th.member(t, g), name, map[string]any{"thread": tv, "role": rapid.SampledFrom(roles).Draw(t, "role")})
	case "thread.join":
		secret := "not-a-secret"
		var admitted []*thread
		for _, x := range g.threads {
			if len(x.secrets) > 0 {
				admitted = append(admitted, x)
			}
		}
		if len(admitted) > 0 && !rare(t, "bad-secret", 4) {
			th = admitted[len(admitted)-1-rapid.IntRange(0, len(admitted)-1).Draw(t, "admitted")]
			secret = ref(th.secrets[len(th.secrets)-1]) // the live grant, usually
			if rare(t, "older-secret", 3) {
				secret = ref(rapid.SampledFrom(th.secrets).Draw(t, "secret"))
			}
		}
		joiner := g.agent(t, "joiner")
		if th != nil {
			var outside []string
			for _, a := range aliases {
				if !slices.Contains(th.members, a) {
					outside = append(outside, a)
				}
			}
			if len(outside) > 0 && !rare(t, "outsider", 3) {
				joiner = rapid.SampledFrom(outside).Draw(t, "joiner-outside")
			}
		}
		return act(joiner, name, map[string]any{"secret": secret})
	case "thread.remove":
		return act(th.member(t, g), name, map[string]any{"thread": tv, "member": ref(g.agent(t, "removed"))})
	case "thread.set_role":
		return act(th.member(t, g), name, map[string]any{"thread": tv, "member": ref(g.agent(t, "promoted")), "role": rapid.SampledFrom(roles).Draw(t, "role")})
	default: // void_admission, leave, close
		return act(th.member(t, g), name, map[string]any{"thread": tv})
	}
}

func (g *model) post(t *rapid.T) engine.Step {
	th, tv := g.threadRef(t)
	poster := th.member(t, g)
	m, _ := g.memoryRef(t)
	p := map[string]any{"thread": tv, "memory": m}
	if th != nil && th.entries > 0 && rare(t, "reply", 2) {
		p["reply_to"] = float64(rapid.IntRange(1, th.entries+1).Draw(t, "reply-to"))
	}
	if !rare(t, "ask", 2) {
		a := th.member(t, g)
		if a == poster {
			a = g.agent(t, "asked")
		}
		p["ask"] = []any{ref(a)}
	}
	if i := pick(t, len(g.tasks), "post-task"); i >= 0 && rare(t, "refs-task", 4) {
		p["task"] = ref(g.tasks[i].v)
	}
	if rare(t, "assign", 2) {
		a := map[string]any{"to": ref(th.member(t, g)), "criteria": "do it"}
		if rapid.Bool().Draw(t, "short-deadline") {
			a["delivery_due"] = float64(60)
			a["judgment_due"] = float64(60)
		}
		p["assign"] = a
	}
	return act(poster, "thread.post", p)
}

func (g *model) assignmentAction(t *rapid.T) engine.Step {
	i := pick(t, len(g.assignments), "assignment")
	av, likely := bogus, ""
	name := rapid.SampledFrom([]string{"assignment.take", "assignment.deliver", "assignment.judge", "assignment.drop", "assignment.void", "read.assignment", "read.entry", "thread.handle", "thread.retract"}).Draw(t, "assignment-action")
	if i >= 0 {
		a := g.assignments[i]
		av = ref(a.v)
		likely = a.to
		if name == "assignment.judge" || name == "assignment.void" || name == "thread.retract" {
			likely = a.creator
		}
	}
	switch name {
	case "read.assignment":
		return read(g.actor(t, likely), "assignment", map[string]any{"assignment": av})
	case "assignment.take":
		p := map[string]any{"assignment": av}
		if rare(t, "take-and-deliver", 3) {
			p["deliver"] = map[string]any{"payload": map[string]any{"done": true}}
		}
		return act(g.actor(t, likely), name, p)
	case "assignment.deliver":
		return act(g.actor(t, likely), name, map[string]any{"assignment": av, "payload": "result"})
	case "assignment.judge":
		p := map[string]any{"assignment": av, "verdict": rapid.SampledFrom([]string{"adopt", "reject", "maybe"}).Draw(t, "verdict")}
		if rapid.Bool().Draw(t, "with-reason") {
			p["reason"] = "because"
		}
		return act(g.actor(t, likely), name, p)
	}
	th, tv := g.threadRef(t)
	entry := float64(1)
	if th != nil && th.entries > 0 {
		entry = float64(rapid.IntRange(1, th.entries).Draw(t, "entry"))
	}
	if th != nil && len(th.asked) > 0 && name == "thread.handle" && !rare(t, "pending", 3) {
		a := th.asked[rapid.IntRange(0, len(th.asked)-1).Draw(t, "asked")]
		return act(a.responder, name, map[string]any{"thread": tv, "entry": float64(a.entry), "note": "seen"})
	}
	switch name {
	case "read.entry":
		return read(th.member(t, g), "entry", map[string]any{"thread": tv, "entry": entry})
	case "thread.handle":
		return act(th.member(t, g), name, map[string]any{"thread": tv, "entry": entry, "note": "seen"})
	case "thread.retract":
		return act(th.member(t, g), name, map[string]any{"thread": tv, "entry": entry})
	}
	return act(g.actor(t, likely), name, map[string]any{"assignment": av})
}

func (g *model) taskAction(t *rapid.T) engine.Step {
	name := rapid.SampledFrom([]string{"task.create", "task.create", "task.revise", "task.take", "task.take", "task.deliver", "task.drop", "task.judge",
		"read.task", "read.engagement", "read.engagements", "read.adoptions"}).Draw(t, "task-action")
	if name == "task.create" || len(g.tasks) == 0 && !rare(t, "task-none", 3) {
		name = "task.create"
		p := map[string]any{"title": "t", "requirements": "r"}
		author := g.agent(t, "author")
		if rare(t, "restricted", 2) {
			p["audience"] = "restricted"
			p["named"] = []any{ref(g.agent(t, "named"))}
		}
		if rare(t, "other-judge", 2) {
			p["judge"] = ref(g.agent(t, "judge"))
		}
		if rare(t, "capped", 2) {
			p["max_adoptions"] = float64(1)
		}
		if rare(t, "short", 3) {
			p["delivery_due"] = float64(60)
			p["judgment_due"] = float64(60)
			p["default_outcome"] = rapid.SampledFrom([]string{"adopted", "undecided"}).Draw(t, "default")
		}
		if len(g.assignments) > 0 && rare(t, "unknown-param", 9) {
			// Parameters the protocol does not define must be refused.
			p["from_assignment"] = ref(g.assignments[len(g.assignments)-1].v)
		}
		if i := pick(t, len(g.memories), "input"); i >= 0 && rare(t, "with-input", 3) {
			p["inputs"] = []any{map[string]any{"memory": ref(g.memories[i].v)}}
			author = g.memories[i].by
		}
		return act(author, name, p)
	}
	if name == "task.deliver" || name == "task.drop" || name == "task.judge" || name == "read.engagement" {
		i := pick(t, len(g.engagements), "engagement")
		ev, likely := bogus, ""
		if i >= 0 {
			ev, likely = ref(g.engagements[i].v), g.engagements[i].agent
		}
		switch name {
		case "read.engagement":
			return read(g.actor(t, likely), "engagement", map[string]any{"engagement": ev})
		case "task.deliver":
			return act(g.actor(t, likely), name, map[string]any{"engagement": ev, "payload": "work"})
		case "task.drop":
			return act(g.actor(t, likely), name, map[string]any{"engagement": ev})
		}
		p := map[string]any{"engagement": ev, "verdict": rapid.SampledFrom([]string{"adopt", "reject"}).Draw(t, "verdict")}
		if rapid.Bool().Draw(t, "with-reason") {
			p["reason"] = "because"
		}
		return act(g.agent(t, "judge"), name, p)
	}
	i := pick(t, len(g.tasks), "task")
	kv, author := bogus, ""
	if i >= 0 {
		kv, author = ref(g.tasks[i].v), g.tasks[i].by
	}
	switch name {
	case "task.revise":
		return act(g.actor(t, author), name, map[string]any{"task": kv, "title": "t2"})
	case "task.take":
		p := map[string]any{"task": kv}
		if rare(t, "take-and-deliver", 3) {
			p["deliver"] = map[string]any{"payload": "quick"}
		}
		return act(g.agent(t, "taker"), name, p)
	}
	return read(g.agent(t, "reader"), name[len("read."):], map[string]any{"task": kv})
}

func (g *model) accountRead(t *rapid.T) engine.Step {
	view := rapid.SampledFrom([]string{"turn", "turn", "opportunities", "agent"}).Draw(t, "account-view")
	return read(g.agent(t, "reader"), view, nil)
}

func (g *model) control(t *rapid.T) engine.Step {
	var names []string
	for _, c := range []string{kungfu.ControlClock, kungfu.ControlClock, kungfu.ControlClock, kungfu.ControlClock, kungfu.ControlRestart, kungfu.ControlDeactivate} {
		if g.controls[c] {
			names = append(names, c)
		}
	}
	switch name := rapid.SampledFrom(names).Draw(t, "control"); name {
	case kungfu.ControlClock:
		adv := rapid.SampledFrom([]string{"30s", "61s", "2h", "25h"}).Draw(t, "advance")
		return engine.Step{Op: engine.OpControl, Name: name, Params: map[string]any{"advance": adv}, Text: "the clock advances " + adv}
	case kungfu.ControlDeactivate:
		var active []string
		for _, a := range aliases {
			if !g.deactivated[a] {
				active = append(active, a)
			}
		}
		if len(active) <= 1 { // keep someone acting
			return engine.Step{Op: engine.OpControl, Name: kungfu.ControlClock, Params: map[string]any{"advance": "61s"}, Text: "the clock advances 61s"}
		}
		a := rapid.SampledFrom(active).Draw(t, "deactivated")
		g.deactivated[a] = true
		return engine.Step{Op: engine.OpControl, Name: name, Agent: a, Text: "control deactivate " + a}
	default:
		return engine.Step{Op: engine.OpControl, Name: name, Text: "the implementation restarts"}
	}
}

// captures names what a successful step creates, in variables both sides
// fill from their own answers. A replay creates nothing and discloses no
// secret: it captures nothing.
func (g *model) captures(s engine.Step, o engine.Outcome) map[string]string {
	if g.replays(s) {
		return nil
	}
	res, _ := o.Result.(map[string]any)
	c := map[string]string{}
	switch s.Name {
	case "memory.create":
		c[g.fresh("m")] = "/result/memory"
	case "thread.create":
		c[g.fresh("t")] = "/result/thread"
	case "thread.admit":
		c[g.fresh("s")] = "/result/secret"
		c[g.fresh("adm")] = "/result/admission"
	case "thread.post":
		if _, ok := res["assignment"]; ok {
			c[g.fresh("a")] = "/result/assignment"
		}
	case "task.create":
		c[g.fresh("k")] = "/result/task"
	case "task.take":
		// An agent taking a Task it holds an open engagement of is given
		// that engagement again (L2's no-new-effect success): nothing new
		// to name.
		if !g.named(res["engagement"]) {
			c[g.fresh("e")] = "/result/engagement"
		}
	}
	if len(c) == 0 {
		return nil
	}
	return c
}

// named says a variable of the oracle's already holds v.
func (g *model) named(v any) bool {
	id, ok := v.(string)
	if !ok || id == "" || g.vo == nil {
		return false
	}
	for _, held := range g.varsO() {
		if held == id {
			return true
		}
	}
	return false
}

// learn updates the model after the oracle accepted a step. A replay
// changed nothing; a keyed request accepted for the first time is recorded,
// so that the same request again is known for a replay.
func (g *model) learn(s engine.Step, o engine.Outcome) {
	if g.replays(s) {
		return
	}
	if s.Op == engine.OpAct && s.Key != "" {
		g.receipts[requestOf(s)] = true
	}
	res, _ := o.Result.(map[string]any)
	names := func(ptr string) string {
		for v, p := range s.Capture {
			if p == ptr {
				return v
			}
		}
		return ""
	}
	threadOf := func(v any) *thread {
		ref, _ := v.(string)
		for _, th := range g.threads {
			if "${"+th.v+"}" == ref {
				return th
			}
		}
		return nil
	}
	switch s.Name {
	case "memory.create":
		if v := names("/result/memory"); v != "" {
			g.memories = append(g.memories, owned{v, s.Agent})
		}
	case "thread.create":
		if v := names("/result/thread"); v != "" {
			g.threads = append(g.threads, &thread{v: v, members: []string{s.Agent}})
		}
	case "thread.admit":
		if th := threadOf(s.Params["thread"]); th != nil {
			if v := names("/result/secret"); v != "" {
				th.secrets = append(th.secrets, v)
			}
		}
	case "thread.join":
		secret, _ := s.Params["secret"].(string)
		for _, th := range g.threads {
			for _, sv := range th.secrets {
				if ref(sv) == secret && !slices.Contains(th.members, s.Agent) {
					th.members = append(th.members, s.Agent)
				}
			}
		}
	case "thread.post":
		th := threadOf(s.Params["thread"])
		if th != nil {
			if n, ok := res["entry"].(float64); ok && int(n) > th.entries {
				th.entries = int(n)
				if ask, ok := s.Params["ask"].([]any); ok {
					for _, a := range ask {
						if r, _ := a.(string); len(r) > 3 {
							th.asked = append(th.asked, asked{entry: int(n), responder: r[2 : len(r)-1]})
						}
					}
				}
			}
		}
		if v := names("/result/assignment"); v != "" && th != nil {
			to := ""
			if a, ok := s.Params["assign"].(map[string]any); ok {
				to, _ = a["to"].(string)
				if len(to) > 3 {
					to = to[2 : len(to)-1]
				}
			}
			g.assignments = append(g.assignments, assignment{v: v, thread: th.v, creator: s.Agent, to: to})
		}
	case "task.create":
		if v := names("/result/task"); v != "" {
			g.tasks = append(g.tasks, owned{v, s.Agent})
		}
	case "task.take":
		if v := names("/result/engagement"); v != "" {
			task, _ := s.Params["task"].(string)
			g.engagements = append(g.engagements, engagement{v: v, task: task, agent: s.Agent})
		}
	}
}

// capFlow: a Task capped at one adoption; one delivery is rejected and
// another adopted, then a third tries its luck.
func (g *model) capFlow(t *rapid.T, run func(engine.Step)) {
	author := g.agent(t, "cap-author")
	n := len(g.tasks)
	run(act(author, "task.create", map[string]any{"title": "capped", "requirements": "r", "max_adoptions": float64(1)}))
	if len(g.tasks) == n {
		return
	}
	task := ref(g.tasks[n].v)
	var engagements []string
	for _, a := range aliases {
		if a == author {
			continue
		}
		k := len(g.engagements)
		run(act(a, "task.take", map[string]any{"task": task}))
		if len(g.engagements) > k {
			e := ref(g.engagements[k].v)
			run(act(a, "task.deliver", map[string]any{"engagement": e, "payload": "work of " + a}))
			engagements = append(engagements, e)
		}
	}
	for i, e := range engagements {
		verdict := "adopt"
		if i == 0 && !rare(t, "cap-adopt-first", 2) {
			verdict = "reject"
		}
		run(act(author, "task.judge", map[string]any{"engagement": e, "verdict": verdict, "reason": "judged"}))
	}
	run(read(author, "task", map[string]any{"task": task}))
}

// inputsFlow: a Task pins a version of its author's Memory; after an
// engagement binds it, the author writes a new version, and the engaged
// agent reads what it is bound to.
func (g *model) inputsFlow(t *rapid.T, run func(engine.Step)) {
	author := g.agent(t, "inputs-author")
	m := g.ownMemory(t, author, run)
	n := len(g.tasks)
	run(act(author, "task.create", map[string]any{"title": "with inputs", "requirements": "r", "inputs": []any{map[string]any{"memory": m}}}))
	if len(g.tasks) == n {
		return
	}
	var takers []string
	for _, a := range aliases {
		if a != author {
			takers = append(takers, a)
		}
	}
	taker := rapid.SampledFrom(takers).Draw(t, "inputs-taker")
	k := len(g.engagements)
	run(act(taker, "task.take", map[string]any{"task": ref(g.tasks[n].v)}))
	if len(g.engagements) == k {
		return
	}
	run(act(author, "memory.update", map[string]any{"memory": m, "content": "changed after the take"}))
	run(read(taker, "engagement", map[string]any{"engagement": ref(g.engagements[k].v)}))
}

// taskRefFlow: a member posts an entry that references a restricted Task;
// the other members read the entry and try the Task and its engagements.
func (g *model) taskRefFlow(t *rapid.T, run func(engine.Step)) {
	th := g.newestThread(t)
	if len(th.members) < 2 {
		t.Skip("nobody else to read")
	}
	poster := th.members[0]
	var others []string
	for _, m := range th.members[1:] {
		others = append(others, m)
	}
	outsider := poster
	for _, a := range aliases {
		if a != poster {
			outsider = a
		}
	}
	named := []any{ref(outsider)}
	if len(others) > 0 && !slices.Contains(others, outsider) {
		named = []any{ref(others[0])}
	}
	n := len(g.tasks)
	run(act(poster, "task.create", map[string]any{"title": "restricted", "requirements": "r", "audience": "restricted", "named": named}))
	if len(g.tasks) == n {
		return
	}
	task := ref(g.tasks[n].v)
	run(act(poster, "thread.post", map[string]any{"thread": ref(th.v), "memory": g.ownMemory(t, poster, run), "task": task}))
	reader := rapid.SampledFrom(others).Draw(t, "ref-reader")
	run(read(reader, "task", map[string]any{"task": task}))
	run(read(reader, "turn", nil))
	run(read(reader, "engagements", map[string]any{"task": task}))
}

// rejoinFlow: a delivered assignment's creator leaves, is admitted again,
// rejoins and tries to judge.
func (g *model) rejoinFlow(t *rapid.T, run func(engine.Step)) {
	th := g.newestThread(t)
	if len(th.members) < 2 {
		t.Skip("too few members")
	}
	governor := th.members[0]
	creator := th.members[1+rapid.IntRange(0, len(th.members)-2).Draw(t, "rejoin-creator")]
	n := len(g.assignments)
	run(act(creator, "thread.post", map[string]any{"thread": ref(th.v), "memory": g.ownMemory(t, creator, run), "assign": map[string]any{"to": ref(governor), "criteria": "c"}}))
	if len(g.assignments) == n {
		return
	}
	a := ref(g.assignments[n].v)
	run(act(governor, "assignment.take", map[string]any{"assignment": a, "deliver": map[string]any{"payload": "done"}}))
	run(act(creator, "thread.leave", map[string]any{"thread": ref(th.v)}))
	before := len(th.secrets)
	run(act(governor, "thread.admit", map[string]any{"thread": ref(th.v), "role": "speaker"}))
	if len(th.secrets) > before {
		run(act(creator, "thread.join", map[string]any{"secret": ref(th.secrets[len(th.secrets)-1])}))
	}
	run(act(creator, "assignment.judge", map[string]any{"assignment": a, "verdict": "adopt"}))
	run(read(governor, "assignment", map[string]any{"assignment": a}))
}

// deadlineFlow: a Task with short deadlines and a default outcome; the
// delivery waits for a judgment that never comes, or the delivery itself
// never comes, and the clock passes the deadline.
func (g *model) deadlineFlow(t *rapid.T, run func(engine.Step)) {
	author := g.agent(t, "deadline-author")
	n := len(g.tasks)
	run(act(author, "task.create", map[string]any{"title": "short", "requirements": "r", "delivery_due": float64(60), "judgment_due": float64(60),
		"default_outcome": rapid.SampledFrom([]string{"adopted", "undecided"}).Draw(t, "deadline-default")}))
	if len(g.tasks) == n {
		return
	}
	var takers []string
	for _, a := range aliases {
		if a != author {
			takers = append(takers, a)
		}
	}
	taker := rapid.SampledFrom(takers).Draw(t, "deadline-taker")
	k := len(g.engagements)
	run(act(taker, "task.take", map[string]any{"task": ref(g.tasks[n].v)}))
	if len(g.engagements) == k {
		return
	}
	e := ref(g.engagements[k].v)
	if !rare(t, "deadline-no-delivery", 3) {
		run(act(taker, "task.deliver", map[string]any{"engagement": e, "payload": "on time"}))
	}
	run(engine.Step{Op: engine.OpControl, Name: kungfu.ControlClock, Params: map[string]any{"advance": "61s"}, Text: "the clock advances 61s"})
	run(read(taker, "engagement", map[string]any{"engagement": e}))
	run(read(author, "adoptions", map[string]any{"task": ref(g.tasks[n].v)}))
}

// raceFlow sets up a contended object and issues competing actions at once:
// keyed updates of one Memory, takes of one assignment, adoptions under a
// cap of one. Each must have the effect of some serial order.
func (g *model) raceFlow(t *rapid.T, run func(engine.Step)) {
	if g.race == nil {
		t.Skip("no racing")
	}
	switch rapid.SampledFrom([]string{"updates", "takes", "adoptions"}).Draw(t, "race-kind") {
	case "updates":
		author := g.agent(t, "race-author")
		m := g.ownMemory(t, author, run)
		var ops []engine.Step
		for i := range 3 {
			op := act(author, "memory.update", map[string]any{"memory": m, "content": fmt.Sprintf("edit %d", i)})
			op.Key = g.fresh("race-")
			ops = append(ops, op)
		}
		g.race(ops)
	case "takes":
		th := g.newestThread(t)
		if len(th.members) == 0 {
			t.Skip("no members")
		}
		creator, to := th.members[0], rapid.SampledFrom(th.members).Draw(t, "race-to")
		n := len(g.assignments)
		run(act(creator, "thread.post", map[string]any{"thread": ref(th.v), "memory": g.ownMemory(t, creator, run), "assign": map[string]any{"to": ref(to), "criteria": "c"}}))
		if len(g.assignments) == n {
			return
		}
		var ops []engine.Step
		for range 3 {
			op := act(to, "assignment.take", map[string]any{"assignment": ref(g.assignments[n].v)})
			op.Key = g.fresh("race-")
			ops = append(ops, op)
		}
		g.race(ops)
	default:
		author := g.agent(t, "race-author")
		n := len(g.tasks)
		run(act(author, "task.create", map[string]any{"title": "capped", "requirements": "r", "max_adoptions": float64(1)}))
		if len(g.tasks) == n {
			return
		}
		var engagements []string
		for _, a := range aliases {
			if a == author {
				continue
			}
			k := len(g.engagements)
			run(act(a, "task.take", map[string]any{"task": ref(g.tasks[n].v), "deliver": map[string]any{"payload": "work"}}))
			if len(g.engagements) > k {
				engagements = append(engagements, ref(g.engagements[k].v))
			}
		}
		if len(engagements) < 2 {
			return
		}
		var ops []engine.Step
		for _, e := range engagements {
			ops = append(ops, act(author, "task.judge", map[string]any{"engagement": e, "verdict": "adopt"}))
		}
		g.race(ops)
	}
}
