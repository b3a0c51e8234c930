// Package kungfufuzz generates Kungfu cases for the fuzzer: sequences of
// actions, reads and controls by several agents over every profile, many
// of them meant to be refused, run against a target and a fresh reference
// in lockstep through the suite's own executor and the engine's one step
// loop (engine.Session.Step); answers are compared by engine.Agree over
// Project, the answer as implementations may differ in it.
package kungfufuzz

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"pgregory.net/rapid"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/engine/vector"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// Factory makes a fresh implementation for one case.
type Factory = kungfu.Factory

// Config says what to fuzz.
type Config struct {
	Target Factory
	Oracle Factory
	// Timeout bounds one step (default 10s).
	Timeout time.Duration
	// Shared says the target serves other cases at the same time (one
	// server for the whole run): views shared by everyone, such as the
	// public listing, are not compared.
	Shared bool
}

var aliases = []string{"alice", "bob", "carol"}

// Property is the lockstep property for fuzz.Run.
func Property(ctx context.Context, cfg Config) fuzz.Property {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	return func(t *rapid.T, p *fuzz.Probe) { runCase(ctx, cfg, t, p) }
}

// side is one implementation in the lockstep.
type side struct {
	target  kungfu.Target
	hello   kungfu.Hello
	exec    *kungfu.Executor
	session *engine.Session
	release func()
}

func open(ctx context.Context, f Factory) (*side, error) {
	t, release, err := f(ctx)
	if err != nil {
		return nil, err
	}
	h, err := t.Hello(ctx)
	if err != nil {
		release()
		return nil, err
	}
	exec := kungfu.NewExecutor(t, h)
	return &side{target: t, hello: h, exec: exec, session: engine.NewSession(exec), release: release}, nil
}

func runCase(ctx context.Context, cfg Config, t *rapid.T, p *fuzz.Probe) {
	oracle, err := open(ctx, cfg.Oracle)
	if err != nil {
		p.Broken(fmt.Errorf("starting the oracle: %w", err))
	}
	defer func() { oracle.release() }()
	target, err := open(ctx, cfg.Target)
	if err != nil {
		p.Unreachable(err)
	}
	defer target.release()

	g := newModel(target.hello, oracle.hello)
	g.shared = cfg.Shared
	g.vo, g.vt = oracle.session.Vars, target.session.Vars
	var steps []engine.Step
	// serial is the case as the oracle ran it: steps issued at once appear
	// in the serial order that explained the target's answers.
	var serial []engine.Step
	// run executes one step on both sides and compares the answers.
	run := func(step engine.Step) {
		i := len(steps)
		step.Source = fmt.Sprintf("fuzz step %d", i+1)
		steps = append(steps, step)
		serial = append(serial, step)
		stepCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		outO, errO := oracle.session.Step(stepCtx, bare(step))
		outT, errT := target.session.Step(stepCtx, bare(step))
		cancel()
		p.Stepped()
		outO.Result, outT.Result = engine.Normalize(outO.Result), engine.Normalize(outT.Result)
		if errO != nil {
			p.Broken(fmt.Errorf("the oracle failed at %s (%s): %w", step.Source, step.Text, errO))
		}
		steps[i].Expect = expectOf(outO, nil)
		if errT != nil {
			p.Diverged(g.diverge(steps, i, fmt.Sprintf("the target failed: %v", errT), outO, outT))
		}
		if d := Compare(outO, outT, oracle.session.Vars(), target.session.Vars()); d != "" {
			p.Diverged(g.diverge(steps, i, d, outO, outT))
		}
		if outO.OK {
			if c := g.captures(steps[i], outO); c != nil {
				steps[i].Capture = c
				serial[len(serial)-1].Capture = c
			}
			if err := oracle.session.Capture(steps[i], outO); err != nil {
				p.Broken(fmt.Errorf("the oracle's answer at %s: %w", step.Source, err))
			}
			if err := target.session.Capture(steps[i], outT); err != nil {
				p.Diverged(g.diverge(steps, i, err.Error(), outO, outT))
			}
			g.learn(steps[i], outO)
		}
	}
	// race issues ops at once on the target and looks for a serial order
	// in which a fresh reference, replaying the case so far, answers every
	// op as the target did. The oracle then continues from that order.
	g.race = func(ops []engine.Step) {
		at := len(steps)
		for i := range ops {
			ops[i].Source = fmt.Sprintf("fuzz step %d, at once #%d", at+1, i+1)
		}
		got := make([]engine.Outcome, len(ops))
		errs := make([]error, len(ops))
		var wg sync.WaitGroup
		for i, op := range ops {
			client := target.session.Fork(target.exec)
			wg.Add(1)
			go func() {
				defer wg.Done()
				stepCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
				defer cancel()
				got[i], errs[i] = client.Step(stepCtx, bare(op))
				got[i].Result = engine.Normalize(got[i].Result)
			}()
		}
		wg.Wait()
		for range ops {
			p.Stepped()
		}
		race := engine.Step{Op: engine.OpParallel, Steps: ops, Source: fmt.Sprintf("fuzz step %d", at+1), Text: fmt.Sprintf("%d steps at once", len(ops))}
		for i, err := range errs {
			if err != nil {
				p.Diverged(g.divergeRace(append(steps, race), at, fmt.Sprintf("the target failed at once #%d: %v", i+1, err), nil, got))
			}
		}
		var answers [][]engine.Outcome
		for _, order := range permutations(len(ops)) {
			replayed, outs, err := g.replayCase(ctx, cfg, serial, ops, order)
			if err != nil {
				p.Broken(err)
			}
			answers = append(answers, outs)
			ok := true
			for i := range ops {
				if Compare(outs[i], got[i], replayed.session.Vars(), target.session.Vars()) != "" {
					ok = false
					break
				}
			}
			if ok {
				oracle.release()
				oracle = replayed
				g.vo = oracle.session.Vars
				// The case goes on from this order, so a finding written
				// later replays it in this order: what follows may depend
				// on which racer came last.
				for _, i := range order {
					op := ops[i]
					op.Expect = expectOf(outs[i], nil)
					steps = append(steps, op)
					serial = append(serial, op)
				}
				return
			}
			replayed.release()
		}
		p.Diverged(g.divergeRace(append(steps, race), at, "no serial order of the steps issued at once explains the target's answers", answers, got))
	}
	for _, a := range aliases {
		run(engine.Step{Op: engine.OpControl, Name: kungfu.ControlProvision, Agent: a,
			Capture: map[string]string{a: "/result/agent"}, Text: "provision " + a})
	}
	t.Repeat(g.actions(run))
}

// replayCase runs the case so far on a fresh reference, then ops in the given
// order, and returns that reference with each op's answer (by op index).
func (g *model) replayCase(ctx context.Context, cfg Config, steps, ops []engine.Step, order []int) (*side, []engine.Outcome, error) {
	o, err := open(ctx, cfg.Oracle)
	if err != nil {
		return nil, nil, fmt.Errorf("starting the oracle: %w", err)
	}
	for _, s := range steps {
		s.Expect = nil // the case's answers were judged when they were made
		if _, err := o.session.Step(ctx, s); err != nil {
			o.release()
			return nil, nil, fmt.Errorf("replaying the case on the oracle at %s: %w", s.Source, err)
		}
	}
	outs := make([]engine.Outcome, len(ops))
	for _, i := range order {
		out, err := o.session.Step(ctx, bare(ops[i]))
		if err != nil {
			o.release()
			return nil, nil, fmt.Errorf("replaying %s on the oracle: %w", ops[i].Source, err)
		}
		out.Result = engine.Normalize(out.Result)
		outs[i] = out
	}
	return o, outs, nil
}

// bare is a step without its expectation and captures: the lockstep
// compares the two sides' answers itself (Compare) and learns what to
// capture from the oracle's answer.
func bare(s engine.Step) engine.Step {
	s.Expect, s.Capture = nil, nil
	return s
}

// permutations lists every order of n items (n is small).
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// expectOf is the expectation a step's oracle outcome gives the vector.
func expectOf(o engine.Outcome, match []engine.Match) *engine.Expect {
	if o.OK {
		return &engine.Expect{Outcome: "ok", Match: match}
	}
	return &engine.Expect{Outcome: "rejected", Reason: o.Rejection.Reason, NextStep: o.Rejection.NextStep, Match: match}
}

// Compare says how the target's outcome differs from the oracle's, or "":
// engine.Agree over both answers as Project makes them comparable.
func Compare(o, t engine.Outcome, varsO, varsT map[string]any) string {
	return engine.Agree(Project(o, varsO), Project(t, varsT))
}

// Project is an answer as two implementations' answers compare: a
// rejection by its reason and next step (the message is the
// implementation's own), a result with every identifier named by the
// variable holding it, times, cursors and fields an implementation
// chooses freely blanked (normalize).
func Project(o engine.Outcome, vars map[string]any) engine.Outcome {
	if !o.OK {
		p := engine.Outcome{Rejection: &engine.Rejection{}}
		if r := o.Rejection; r != nil {
			p.Rejection.Reason, p.Rejection.NextStep = r.Reason, r.NextStep
		}
		return p
	}
	return engine.Outcome{OK: true, Result: normalize(engine.Normalize(o.Result), reverse(vars), "")}
}

// reverse maps captured string values back to their variable names, the
// smallest name winning when two variables hold one value.
func reverse(vars map[string]any) map[string]string {
	out := map[string]string{}
	names := slices.Sorted(maps.Keys(vars))
	for _, n := range names {
		if s, ok := vars[n].(string); ok && s != "" {
			if _, seen := out[s]; !seen {
				out[s] = n
			}
		}
	}
	return out
}

// Fields an implementation may choose freely: secrets, their fingerprints,
// credentials and free messages.
var masked = map[string]bool{"secret": true, "secret_fingerprint": true, "credential": true, "message": true}

const maskedValue = "<masked>"

// idKeys are the fields that hold identifiers of objects or agents.
var idKeys = map[string]bool{"memory": true, "thread": true, "task": true, "engagement": true, "assignment": true,
	"admission": true, "agent": true, "author": true, "judge": true, "creator": true, "addressee": true,
	"member": true, "responder": true, "references": true}

const newID = "<new id>"

// normalize replaces identifiers by the variables that hold them, times by
// a placeholder, and blanks fields implementations choose freely, so two
// implementations' answers compare by meaning.
func normalize(v any, ids map[string]string, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e, ids, k)
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			n := normalize(e, ids, key)
			if m, ok := n.(map[string]any); ok && m["author"] == newID {
				// Authored by an agent this case never met: another case's
				// object in a listing shared by everyone (a server that
				// serves several cases at once).
				continue
			}
			out = append(out, n)
		}
		return out
	case string:
		switch {
		case masked[key]:
			return maskedValue
		case (key == "next_cursor" || key == "cursor") && x != "":
			return "<cursor>"
		}
		if name, ok := ids[x]; ok {
			return "${" + name + "}"
		}
		if idKeys[key] {
			// An identifier no variable holds (one made in a race, say):
			// implementations name objects as they like.
			return newID
		}
		if _, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return "<time>"
		}
		return x
	default:
		return v
	}
}

// matches turns the oracle's normalized answer into leaf matchers for the
// vector, at most limit of them: first every leaf where the target differs
// (so the finding fails where the target went wrong, however large the
// answer), then the rest of the oracle's answer. Fields the target has and
// the oracle lacks must be absent.
func matches(o, t engine.Outcome, varsO, varsT map[string]any, limit int) []engine.Match {
	if !o.OK || !t.OK {
		return nil
	}
	var out []engine.Match
	seen := map[string]bool{}
	add := func(ptr string, m any) {
		if len(out) < limit && !seen[ptr] {
			seen[ptr] = true
			out = append(out, engine.Match{Pointer: ptr, Matcher: m})
		}
	}
	leaf := func(ptr string, v, tv any) {
		switch x := v.(type) {
		case string:
			if tx, _ := tv.(string); x == newID && strings.HasPrefix(tx, "${") {
				// The reference made something new where the target
				// answered with an object the case already knew.
				add(ptr, map[string]any{"$ne": tx})
				return
			}
			if x == maskedValue || x == "<time>" || x == "<cursor>" || x == newID {
				return
			}
			add(ptr, x)
		case map[string]any, []any:
		default:
			add(ptr, engine.Normalize(x))
		}
	}
	// walk visits the oracle's answer; onlyDiff keeps to where the target
	// differs.
	var walk func(ov, tv any, ptr string, onlyDiff bool)
	walk = func(ov, tv any, ptr string, onlyDiff bool) {
		if len(out) >= limit || onlyDiff && reflect.DeepEqual(ov, tv) {
			return
		}
		switch x := ov.(type) {
		case map[string]any:
			tm, _ := tv.(map[string]any)
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], tm[k], ptr+"/"+escape(k), onlyDiff)
			}
			for _, k := range slices.Sorted(maps.Keys(tm)) {
				if _, ok := x[k]; !ok {
					add(ptr+"/"+escape(k), map[string]any{"$absent": true})
				}
			}
		case []any:
			tl, _ := tv.([]any)
			if !onlyDiff || len(tl) != len(x) {
				add(ptr, map[string]any{"$len": float64(len(x))})
			}
			for i := range x {
				var te any
				if i < len(tl) {
					te = tl[i]
				}
				walk(x[i], te, ptr+"/"+strconv.Itoa(i), onlyDiff)
			}
		default:
			leaf(ptr, ov, tv)
		}
	}
	no, nt := normalize(o.Result, reverse(varsO), ""), normalize(t.Result, reverse(varsT), "")
	walk(no, nt, "/result", true)
	walk(no, nt, "/result", false)
	return out
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// diverge builds the finding: the case up to the diverging step, written as
// a vector whose diverging step expects what the oracle answered.
func (g *model) diverge(steps []engine.Step, at int, detail string, o, t engine.Outcome) *fuzz.Divergence {
	last := steps[at]
	steps[at].Expect = expectOf(o, matches(o, t, g.varsO(), g.varsT(), 80))
	steps[at].Capture = nil
	label := last.Name
	switch last.Op {
	case engine.OpRead:
		label = "view " + last.Name
	case engine.OpControl:
		label = "control " + last.Name
	}
	rules := slices.Clone(actionRules[label])
	if keyUsedBefore(steps, at) {
		rules = append(rules, actionRules["replay"]...)
	}
	if len(rules) == 0 {
		rules = []string{"KF-L2-01"}
	}
	slices.Sort(rules)
	rules = slices.Compact(rules)
	encoded, err := vector.Encode(steps)
	d := &fuzz.Divergence{Step: at, Detail: fmt.Sprintf("%s (%s by %s)", detail, label, last.Agent), Rules: rules}
	if err != nil {
		d.Detail += "; the case could not be written as a vector: " + err.Error()
		return d
	}
	f := vector.File{Schema: "../schema/vector.schema.json", Suite: "kungfu",
		Description: "Found by sifu fuzz: the target and the reference disagreed; the reference's answers are the expectations.",
		Checks: []vector.FileCheck{{
			ID:      "fuzz-finding",
			Title:   fmt.Sprintf("Fuzz finding: %s diverged at step %d", label, at+1),
			Rules:   rules,
			Tags:    []string{"fuzz"},
			Comment: detail,
			Steps:   encoded,
		}}}
	d.Vector, _ = f.Marshal()
	return d
}

// keyUsedBefore says step at carries an idempotency key an earlier step of
// the case used: a replay, a conflict, or the same key from another agent.
func keyUsedBefore(steps []engine.Step, at int) bool {
	key := steps[at].Key
	return key != "" && slices.ContainsFunc(steps[:at], func(s engine.Step) bool { return s.Key == key })
}

// divergeRace builds the finding for steps issued at once: the case so far,
// then the parallel step, which expects what holds in every serial order
// the reference allows — for each field the ops answer, the set of values
// across the ops, when that set is the same in every order.
func (g *model) divergeRace(steps []engine.Step, at int, detail string, answers [][]engine.Outcome, got []engine.Outcome) *fuzz.Divergence {
	race := &steps[at]
	if len(answers) > 0 {
		var match []engine.Match
		for _, ptr := range racePointers(answers[0], got) {
			want, same := raceValues(answers[0], ptr, g.varsO())
			for _, other := range answers[1:] {
				v, _ := raceValues(other, ptr, g.varsO())
				if !reflect.DeepEqual(v, want) {
					same = false
				}
			}
			if same && len(want) > 0 {
				match = append(match, engine.Match{Pointer: "/result/outcomes/*" + ptr, Matcher: map[string]any{"$set": want}})
			}
		}
		race.Expect = &engine.Expect{Match: match}
	}
	rules := []string{"KF-L5-01", "KF-L5-03", "KF-10.2-04"}
	encoded, err := vector.Encode(steps)
	d := &fuzz.Divergence{Step: at, Detail: detail + " (" + race.Text + ")", Rules: rules}
	if err != nil {
		d.Detail += "; the case could not be written as a vector: " + err.Error()
		return d
	}
	f := vector.File{Schema: "../schema/vector.schema.json", Suite: "kungfu",
		Description: "Found by sifu fuzz: steps issued at once had an effect no serial order has; the expectations hold in every serial order the reference allows.",
		Checks: []vector.FileCheck{{ID: "fuzz-finding", Title: fmt.Sprintf("Fuzz finding: %s at step %d", race.Text, at+1),
			Rules: rules, Tags: []string{"fuzz", "race"}, Comment: detail, Steps: encoded}}}
	d.Vector, _ = f.Marshal()
	return d
}

// racePointers are the leaves every op's outcome document has, relative to
// one outcome ("/ok", "/rejection/reason", "/result/version", ...).
func racePointers(outs, got []engine.Outcome) []string {
	seen := map[string]bool{}
	var ptrs []string
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], ptr+"/"+escape(k))
			}
		case []any:
		default:
			if !seen[ptr] {
				seen[ptr] = true
				ptrs = append(ptrs, ptr)
			}
		}
	}
	for _, o := range append(slices.Clone(outs), got...) {
		walk(engine.Normalize(o), "")
	}
	slices.Sort(ptrs)
	return ptrs
}

// raceValues is the sorted list of the ops' values at ptr (normalized; an
// op without the field adds nothing, as a "*" pointer skips it); ok is
// false when a value is one implementations choose freely.
func raceValues(outs []engine.Outcome, ptr string, vars map[string]any) ([]any, bool) {
	ids := reverse(vars)
	var vals []any
	for _, o := range outs {
		doc := normalize(engine.Normalize(o), ids, "")
		var v any = doc
		for _, seg := range strings.Split(ptr[1:], "/") {
			m, _ := v.(map[string]any)
			v = m[strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")]
		}
		if s, isStr := v.(string); isStr && (s == maskedValue || s == "<time>" || s == "<cursor>" || s == newID) {
			return nil, false
		}
		if ptr == "/rejection/message" {
			return nil, false
		}
		if v != nil {
			vals = append(vals, v)
		}
	}
	slices.SortFunc(vals, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return vals, true
}
