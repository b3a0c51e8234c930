// Package acpfuzz generates ACP cases for the fuzzer: an init, then tool
// calls by several participants and by outsiders (appends of every event
// type, with and without reply_to, documents edited or left alone, next,
// wait and validate), run against a target and a fresh reference in
// lockstep through the suite's own executor. A divergence is written as an
// ACP vector in the suite's own format.
package acpfuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/acp"
)

// Config says what to fuzz.
type Config struct {
	Target acp.Factory
	Oracle acp.Factory
	// Name is the finding's file stem and case id.
	Name string
	// Timeout bounds one call (default 10s).
	Timeout time.Duration
}

// Compared are the observables of a call compared between the two sides,
// in this order: what the executor reads from the tool's answer and from
// the folder afterwards.
var Compared = []string{"exit", "phase", "owner", "waitingFor", "seqs", "next_action", "ready", "verdict",
	"errors", "warnings", "changed", "stderr", "stdout", "event_lines"}

// Property is the lockstep property for fuzz.Run.
func Property(ctx context.Context, cfg Config) fuzz.Property {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Name == "" {
		cfg.Name = "fuzz-acp"
	}
	return func(t *rapid.T, p *fuzz.Probe) { runCase(ctx, cfg, t, p) }
}

type side struct {
	session *engine.Session
	release func()
}

func open(ctx context.Context, f acp.Factory) (*side, error) {
	t, release, err := f(ctx)
	if err != nil {
		return nil, err
	}
	e, cleanup, err := acp.NewExecutor(t)
	if err != nil {
		release()
		return nil, err
	}
	return &side{session: engine.NewSession(e), release: func() { cleanup(); release() }}, nil
}

func runCase(ctx context.Context, cfg Config, t *rapid.T, p *fuzz.Probe) {
	oracle, err := open(ctx, cfg.Oracle)
	if err != nil {
		p.Broken(fmt.Errorf("starting the oracle: %w", err))
	}
	defer oracle.release()
	target, err := open(ctx, cfg.Target)
	if err != nil {
		p.Unreachable(err)
	}
	defer target.release()

	m := newModel(t)
	var steps []engine.Step
	var outs []engine.Outcome
	m.run = func(step engine.Step) engine.Outcome {
		i := len(steps)
		step.Source = fmt.Sprintf("fuzz step %d", i+1)
		steps = append(steps, step)
		stepCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		bare := step
		bare.Expect, bare.Capture = nil, nil // the sides' answers are compared with each other
		outO, errO := oracle.session.Step(stepCtx, bare)
		outT, errT := target.session.Step(stepCtx, bare)
		cancel()
		p.Stepped()
		if errO != nil {
			p.Broken(fmt.Errorf("the oracle failed at %s: %w", step.Source, errO))
		}
		outs = append(outs, outO)
		if errT != nil {
			p.Diverged(finding(cfg, steps, outs, i, fmt.Sprintf("the target failed: %v", errT)))
		}
		if d := Compare(outO, outT); d != "" {
			p.Diverged(finding(cfg, steps, outs, i, d))
		}
		return outO
	}
	m.start()
	t.Repeat(m.actions())
}

// timestamp is any ISO-8601 time the tools print; implementations that
// cannot be told the time stamp their own, so times compare as "a time".
var timestamp = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})`)

const timeMark = "<time>"

func masked(v any) any {
	switch x := v.(type) {
	case string:
		return timestamp.ReplaceAllString(x, timeMark)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = masked(e)
		}
		return out
	}
	return v
}

// progError is the program name argparse puts before a usage error.
var progError = regexp.MustCompile(`(?m)^[^\n:]+: error: `)

// ScrubUsage removes what is not protocol from a tool's output: the usage
// text a command-line parser prints (its first line starts "usage:", the
// lines after it are indented) and the program name before "error:", so
// sifu acp and a script with another name compare by their messages.
func ScrubUsage(s string) string {
	var out []string
	inUsage := false
	for _, line := range strings.SplitAfter(s, "\n") {
		switch {
		case strings.HasPrefix(line, "usage:"):
			inUsage = true
			continue
		case inUsage && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")):
			continue
		}
		inUsage = false
		out = append(out, line)
	}
	return progError.ReplaceAllString(strings.Join(out, ""), "error: ")
}

// Compare says how the target's answer differs from the oracle's, or "":
// engine.Agree over both answers as Project makes them comparable.
func Compare(o, t engine.Outcome) string {
	return engine.Agree(Project(o), Project(t))
}

// Project is a call's answer as two implementations' answers compare:
// whether it succeeded and the Compared observables (one absent stays
// absent), with the usage text of stdout and stderr scrubbed and every
// time masked, as a success whose result holds them all.
func Project(o engine.Outcome) engine.Outcome {
	r, _ := engine.Normalize(o.Result).(map[string]any)
	p := map[string]any{"ok": o.OK}
	for _, k := range Compared {
		v, ok := r[k]
		if !ok {
			continue
		}
		if text, isText := v.(string); isText && (k == "stdout" || k == "stderr") {
			v = ScrubUsage(text)
		}
		p[k] = masked(v)
	}
	return engine.Outcome{OK: true, Result: p}
}

// finding writes the case up to the diverging call as an ACP vector whose
// expectations are the oracle's answers.
func finding(cfg Config, steps []engine.Step, outs []engine.Outcome, at int, detail string) *fuzz.Divergence {
	last := steps[at]
	rules := RulesOf(last)
	d := &fuzz.Divergence{Step: at, Detail: fmt.Sprintf("%s (%s)", detail, describe(last)), Rules: rules}
	var calls []any
	for i, s := range steps[:at+1] {
		c := callOf(s)
		if s.Op != engine.OpControl && i < len(outs) {
			c["expect"] = map[string]any{"match": expectation(outs[i])}
		}
		calls = append(calls, c)
	}
	v := map[string]any{
		"$schema":     "../schema/acp-vector.schema.json",
		"suite":       "acp",
		"description": "Found by sifu fuzz: " + detail,
		"cases": []any{map[string]any{
			"id":      cfg.Name,
			"title":   "Fuzz finding: " + describe(last) + " answers as the reference does",
			"rules":   rules,
			"tags":    []string{"fuzz"},
			"comment": detail,
			"start":   "none",
			"calls":   calls,
		}},
	}
	raw, err := json.MarshalIndent(v, "", "  ")
	if err == nil {
		d.Vector = append(raw, '\n')
	}
	return d
}

// expectation is every compared observable of the oracle's answer as
// pointer matchers; times match any time.
func expectation(o engine.Outcome) map[string]any {
	r, _ := engine.Normalize(o.Result).(map[string]any)
	out := map[string]any{}
	for _, k := range Compared {
		ptr := "/result/" + k
		v, ok := r[k]
		if !ok {
			out[ptr] = map[string]any{"$absent": true}
			continue
		}
		if list, isList := v.([]any); isList && hasTime(list) {
			out[ptr] = map[string]any{"$len": float64(len(list))}
			for i, e := range list {
				out[fmt.Sprintf("%s/%d", ptr, i)] = matcher(e)
			}
			continue
		}
		out[ptr] = matcher(v)
	}
	return out
}

func hasTime(list []any) bool {
	for _, e := range list {
		if s, ok := e.(string); ok && timestamp.MatchString(s) {
			return true
		}
	}
	return false
}

func matcher(v any) any {
	s, ok := v.(string)
	if !ok || !timestamp.MatchString(s) {
		if v == nil {
			return nil
		}
		return v
	}
	parts := timestamp.Split(s, -1)
	for i, part := range parts {
		parts[i] = regexp.QuoteMeta(part)
	}
	return map[string]any{"$regex": "^" + strings.Join(parts, timestamp.String()) + "$"}
}

// callOf is one step as a call of the vector format.
func callOf(s engine.Step) map[string]any {
	p := s.Params
	c := map[string]any{}
	switch s.Name {
	case "init":
		c["init"] = map[string]any{"participants": p["participants"], "objective": p["objective"], "completion": p["completion"], "resume": p["resume"]}
	case "append":
		a := map[string]any{"from": p["participant"], "event": p["event"]}
		if v, ok := p["reply_to"]; ok {
			a["reply_to"] = v
		}
		if v, ok := p["doc"]; ok {
			a["doc"] = v
		}
		c["append"] = a
	case "next":
		c["next"] = p["participant"]
	case "wait":
		c["wait"] = map[string]any{"participant": p["participant"], "timeout": p["timeout"]}
	case "validate":
		c["validate"] = map[string]any{}
	case "write":
		w := map[string]any{}
		for _, k := range []string{"file", "append", "replace", "remove"} {
			if v, ok := p[k]; ok {
				w[k] = v
			}
		}
		c["write"] = w
	}
	if p["compat"] == true {
		c["compat"] = true
	}
	return c
}

func describe(s engine.Step) string {
	p := s.Params
	who, _ := p["participant"].(string)
	switch s.Name {
	case "append":
		return fmt.Sprintf("%s appends %v", who, p["event"])
	case "next", "wait":
		return who + " " + s.Name
	case "write":
		return fmt.Sprintf("edit %v", p["file"])
	}
	return s.Name
}

// RulesOf are the rules of the catalogue a call touches.
func RulesOf(s engine.Step) []string {
	p := s.Params
	var rules []string
	switch s.Name {
	case "init":
		rules = []string{"ACP-INIT-01", "ACP-INIT-02", "ACP-INIT-03", "ACP-INIT-04", "ACP-INIT-05"}
	case "append":
		rules = []string{"ACP-EVT-01", "ACP-EVT-06", "ACP-TRANS-10", "ACP-TRANS-11", "ACP-CLI-06"}
		if _, ok := p["reply_to"]; !ok {
			rules = append(rules, "ACP-EVT-02")
		} else {
			rules = append(rules, "ACP-EVT-03")
		}
		ev, _ := p["event"].(string)
		rules = append(rules, eventRules[ev]...)
		if _, known := eventRules[ev]; !known {
			rules = append(rules, "ACP-EVT-05")
		}
		if who, _ := p["participant"].(string); who == outsider {
			rules = append(rules, "ACP-EVT-04", "ACP-CLI-02")
		}
	case "next":
		rules = []string{"ACP-CLI-01", "ACP-CLI-02"}
	case "wait":
		rules = []string{"ACP-CLI-02", "ACP-CLI-03", "ACP-CLI-04"}
	case "validate":
		rules = []string{"ACP-VAL-01", "ACP-VAL-03", "ACP-VAL-06", "ACP-VAL-07", "ACP-VAL-08", "ACP-VAL-09", "ACP-VAL-10", "ACP-VAL-11", "ACP-VAL-12",
			"ACP-EVT-07", "ACP-DOC-01", "ACP-DOC-02"}
	default:
		rules = []string{"ACP-TRANS-11"}
	}
	slices.Sort(rules)
	return slices.Compact(rules)
}

var eventRules = map[string][]string{
	"initialized":         {"ACP-INIT-01"},
	"proposal_submitted":  {"ACP-TRANS-01", "ACP-TRANS-02"},
	"review_submitted":    {"ACP-TRANS-03"},
	"proposal_revised":    {"ACP-TRANS-04"},
	"decision_proposed":   {"ACP-TRANS-04"},
	"question_classified": {"ACP-TRANS-05"},
	"decision_accepted":   {"ACP-TRANS-06", "ACP-DOC-02"},
	"readiness_passed":    {"ACP-TRANS-07", "ACP-DOC-02", "ACP-DOC-03"},
	"completed":           {"ACP-TRANS-08", "ACP-DOC-02", "ACP-DOC-03", "ACP-DOC-04", "ACP-DOC-05"},
	"blocked":             {"ACP-TRANS-09", "ACP-STRICT-BLOCKED-AFTER-COMPLETED"},
}

// RaceAgree compares a call made at once (attack/linear) with the
// reference's replay of it: by exit status and output, with the folder
// path scrubbed as the executor does. It is a linear.Agreement.
func RaceAgree(reference, target engine.Outcome, _, _ map[string]any) string {
	return engine.Agree(callAnswer(reference), callAnswer(target))
}

// callAnswer is a call's exit status and output.
func callAnswer(o engine.Outcome) engine.Outcome {
	r, _ := engine.Normalize(o.Result).(map[string]any)
	return engine.Outcome{OK: true, Result: map[string]any{"exit": r["exit"], "stdout": r["stdout"], "stderr": r["stderr"]}}
}

// DescribeRaceCall says what a racing append did, for a history's
// description and its visualisation.
func DescribeRaceCall(s engine.Step, o engine.Outcome) string {
	r, _ := engine.Normalize(o.Result).(map[string]any)
	desc := fmt.Sprintf("exit %v", r["exit"])
	if out, _ := r["stdout"].(string); out != "" {
		desc += ": " + strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	}
	if e, _ := r["stderr"].(string); e != "" {
		desc += ": " + strings.TrimSpace(strings.SplitN(e, "\n", 2)[0])
	}
	return fmt.Sprintf("%v appends %v → %s", s.Params["participant"], s.Params["event"], desc)
}
