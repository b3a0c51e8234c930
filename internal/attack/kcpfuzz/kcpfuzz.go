// Package kcpfuzz generates planner cases for the fuzzer by mutating the
// corpus: it takes a planner vector, then drops, duplicates, reorders and
// edits units of its manifest and changes its task and options, and plans
// the result on the target and on the reference in lockstep, each plan a
// step of the engine's one step loop through the suite's executor, the
// answers compared by engine.Agree. A divergence
// is written as an upstream-format planner vector whose expectation is the
// reference's outcome.
package kcpfuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"pgregory.net/rapid"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// Seed is a corpus vector to mutate.
type Seed struct {
	Name     string
	Spec     string
	Manifest string
	Task     string
	Options  map[string]any
}

// Seeds are the planner vectors of a loaded suite.
func Seeds(checks []engine.Check) []Seed {
	var out []Seed
	for _, c := range checks {
		if len(c.Steps) != 1 || c.Steps[0].Name != "plan" {
			continue
		}
		p := c.Steps[0].Params
		manifest, _ := p["manifest"].(string)
		task, _ := p["task"].(string)
		opts, _ := p["options"].(map[string]any)
		spec := strings.TrimPrefix(c.Rules[0], "KCP-")
		out = append(out, Seed{Name: strings.TrimPrefix(c.ID, "kcp/"), Spec: "§" + spec, Manifest: manifest, Task: task, Options: opts})
	}
	return out
}

// Config says what to fuzz.
type Config struct {
	Target kcp.Target
	Oracle kcp.Target
	Seeds  []Seed
	// Name is the finding's vector name (and file stem).
	Name string
}

// Property is the lockstep property for fuzz.Run: one plan per case.
func Property(ctx context.Context, cfg Config) fuzz.Property {
	return func(t *rapid.T, p *fuzz.Probe) {
		if len(cfg.Seeds) == 0 {
			p.Broken(fmt.Errorf("no planner vectors to start from"))
		}
		seed := cfg.Seeds[rapid.IntRange(0, len(cfg.Seeds)-1).Draw(t, "seed")]
		req := mutate(t, seed)
		step := planStep(req)
		outO, errO := engine.NewSession(kcp.NewExecutor(cfg.Oracle)).Step(ctx, step)
		outT, errT := engine.NewSession(kcp.NewExecutor(cfg.Target)).Step(ctx, step)
		p.Stepped()
		if errors.Is(errT, engine.ErrUnsupported) {
			return // options this planner's command line cannot express
		}
		if errO != nil || !outO.OK {
			// The reference refused the manifest; the target must too.
			if errT == nil && outT.OK {
				why := errO
				if why == nil {
					why = errors.New(outO.Rejection.Message)
				}
				p.Diverged(finding(cfg, seed, req, nil, fmt.Sprintf("the reference refused the input (%v), the target planned it", why)))
			}
			return
		}
		// The outcome with the selected units' reasons, as sifu's own
		// vectors compare it (the executor projects it).
		want, _ := outO.Result.(map[string]any)
		if errT != nil {
			p.Diverged(finding(cfg, seed, req, want, fmt.Sprintf("the target failed: %v", errT)))
		}
		if d := engine.Agree(outO, outT); d != "" {
			p.Diverged(finding(cfg, seed, req, want, d))
		}
	}
}

// planStep is the plan step of a case: the request, with the selected
// units' reasons and the governance blocks asked for.
func planStep(req kcp.PlanRequest) engine.Step {
	raw, _ := json.Marshal(req)
	var params map[string]any
	_ = json.Unmarshal(raw, &params)
	params["reasons"], params["governance"] = true, true
	return engine.Step{Source: "fuzz case", Op: engine.OpAct, Name: "plan", Params: params}
}

// finding writes the case as a planner vector in the upstream format.
func finding(cfg Config, seed Seed, req kcp.PlanRequest, want map[string]any, detail string) *fuzz.Divergence {
	d := &fuzz.Divergence{Detail: fmt.Sprintf("%s (mutated from %s)", detail, seed.Name), Rules: []string{kcp.RuleFor(seed.Spec)}}
	if want == nil {
		return d // nothing the reference planned to expect
	}
	v := map[string]any{
		"name":        cfg.Name,
		"spec":        seed.Spec,
		"description": "Found by sifu fuzz from " + seed.Name + ": " + detail,
		"manifest":    req.Manifest,
		"task":        req.Task,
		"options":     req.Options,
		"expect":      want,
	}
	raw, err := json.MarshalIndent(v, "", "  ")
	if err == nil {
		d.Vector = append(raw, '\n')
	}
	return d
}

// mutate draws edits of a corpus vector.
func mutate(t *rapid.T, s Seed) kcp.PlanRequest {
	req := kcp.PlanRequest{Name: s.Name, Manifest: s.Manifest, Task: s.Task, Options: cloneMap(s.Options)}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s.Manifest), &doc); err == nil && len(doc.Content) == 1 {
		if units := mapValue(doc.Content[0], "units"); units != nil && units.Kind == yaml.SequenceNode {
			n := rapid.IntRange(0, 3).Draw(t, "unit-edits")
			for range n {
				editUnits(t, units)
			}
			if out, err := yaml.Marshal(&doc); err == nil {
				req.Manifest = string(out)
			}
		}
	}
	if rapid.IntRange(0, 3).Draw(t, "task-edit") == 3 {
		words := strings.Fields(req.Task)
		extra := rapid.SampledFrom([]string{"award", "filings", "the", "weather", "compute", "index", "Über", "2026"}).Draw(t, "task-word")
		if len(words) > 1 && rapid.Bool().Draw(t, "drop-word") {
			words = words[1:]
		}
		req.Task = strings.Join(append(words, extra), " ")
	}
	for range rapid.IntRange(0, 2).Draw(t, "option-edits") {
		editOptions(t, req.Options)
	}
	return req
}

func editUnits(t *rapid.T, units *yaml.Node) {
	n := len(units.Content)
	if n == 0 {
		return
	}
	i := rapid.IntRange(0, n-1).Draw(t, "unit")
	switch rapid.SampledFrom([]string{"drop", "duplicate", "swap", "drop-field", "set-field", "respell-number"}).Draw(t, "unit-edit") {
	case "respell-number":
		respellNumber(t, units.Content[i])
	case "drop":
		units.Content = slices.Delete(units.Content, i, i+1)
	case "duplicate":
		c := deepCopy(units.Content[i])
		if id := mapValue(c, "id"); id != nil {
			id.Value += "-copy"
		}
		units.Content = append(units.Content, c)
	case "swap":
		j := rapid.IntRange(0, n-1).Draw(t, "swap-with")
		units.Content[i], units.Content[j] = units.Content[j], units.Content[i]
	case "drop-field":
		u := units.Content[i]
		if u.Kind == yaml.MappingNode && len(u.Content) >= 4 {
			k := 2 * rapid.IntRange(1, len(u.Content)/2-1).Draw(t, "field") // never the first key
			u.Content = slices.Delete(u.Content, k, k+2)
		}
	case "set-field":
		u := units.Content[i]
		if u.Kind != yaml.MappingNode {
			return
		}
		field := rapid.SampledFrom([]string{"access", "deprecated", "size_tokens", "valid_until", "valid_from", "audience"}).Draw(t, "set-field")
		value := map[string][]string{
			"access":      {"public", "restricted", "authenticated"},
			"deprecated":  {"true", "false"},
			"size_tokens": {"0", "150", "4000", "-1"},
			"valid_until": {"2020-01-01", "2030-12-31"},
			"valid_from":  {"2020-01-01", "2030-12-31"},
			"audience":    {"[agent]", "[human]", "[agent, human]"},
		}[field]
		v := rapid.SampledFrom(value).Draw(t, "value")
		var node yaml.Node
		if err := yaml.Unmarshal([]byte(v), &node); err != nil || len(node.Content) != 1 {
			return
		}
		if old := mapValue(u, field); old != nil {
			*old = *node.Content[0]
		} else {
			u.Content = append(u.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: field}, node.Content[0])
		}
	}
}

// numericKeys are the manifest fields a planner reads as numbers
// (price_per_request is kept as text, then read with Number()).
var numericKeys = map[string]bool{"size_tokens": true, "bytes": true, "price_per_request": true, "max_spend": true}

// respellNumber writes one numeric field of a unit (anywhere inside it)
// another way: the same number with underscores, in hex, octal or
// exponent form, with a sign, a leading zero or a trailing dot, quoted,
// padded with spaces, or out of a double's range. Each spelling is read
// differently by js-yaml 4.3.0 and by Number() (1_000 is a string, 0755
// is decimal, "0x10" is 16, 1e999 is the string "1e999"). A unit without
// one gets a size_tokens.
func respellNumber(t *rapid.T, u *yaml.Node) {
	if u.Kind != yaml.MappingNode {
		return
	}
	var found []*yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if n.Kind == yaml.MappingNode && numericKeys[k.Value] && v.Kind == yaml.ScalarNode {
				found = append(found, v)
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(u)
	var target *yaml.Node
	if len(found) == 0 {
		target = &yaml.Node{Kind: yaml.ScalarNode, Value: "1000"}
		u.Content = append(u.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "size_tokens"}, target)
	} else {
		target = found[rapid.IntRange(0, len(found)-1).Draw(t, "number-field")]
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(target.Value), 64)
	if err != nil || f < 0 || f > 1e12 {
		f = 1000
	}
	spelled, style := spell(t, f)
	target.Value, target.Tag, target.Style = spelled, "", style
}

// spell draws a spelling of f and its YAML style.
func spell(t *rapid.T, f float64) (string, yaml.Style) {
	n := int64(f)
	integral := float64(n) == f
	plain := strconv.FormatFloat(f, 'f', -1, 64)
	forms := []string{plain, "+" + plain, plain + "e0", strconv.FormatFloat(f, 'e', -1, 64), "1e999", "-" + plain}
	if integral {
		forms = append(forms, fmt.Sprintf("0x%X", n), fmt.Sprintf("0x%x", n), fmt.Sprintf("0o%o", n), fmt.Sprintf("0%d", n),
			fmt.Sprintf("%d.", n), fmt.Sprintf("%d.0", n), fmt.Sprintf("0b%b", n), underscored(n), fmt.Sprintf("0x_%X", n))
	} else {
		forms = append(forms, strings.TrimPrefix(plain, "0"), plain+"0", strings.Replace(plain, ".", "_", 1), strings.Replace(plain, ".", "._", 1))
	}
	v := rapid.SampledFrom(forms).Draw(t, "spelling")
	switch rapid.IntRange(0, 5).Draw(t, "quoting") {
	case 0:
		return v, yaml.DoubleQuotedStyle
	case 1:
		return " " + v + " ", yaml.DoubleQuotedStyle
	case 2:
		return v, yaml.SingleQuotedStyle
	}
	return v, 0
}

// underscored writes n with an underscore between thousands.
func underscored(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte('_')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func editOptions(t *rapid.T, o map[string]any) {
	switch rapid.SampledFrom([]string{"maxUnits", "strict", "budget", "contextBudget", "asOf", "credentials", "env"}).Draw(t, "option") {
	case "maxUnits":
		o["maxUnits"] = float64(rapid.IntRange(0, 4).Draw(t, "max-units"))
	case "strict":
		o["strict"] = rapid.Bool().Draw(t, "strict-on")
	case "budget":
		o["budget"] = map[string]any{"amount": rapid.SampledFrom([]float64{0, 0.05, 0.25, 10}).Draw(t, "amount")}
	case "contextBudget":
		o["contextBudget"] = float64(rapid.SampledFrom([]int{0, 100, 1000, 100000}).Draw(t, "context"))
	case "asOf":
		o["asOf"] = rapid.SampledFrom([]string{"2019-06-01", "2026-07-06", "2031-01-01"}).Draw(t, "as-of")
	case "credentials":
		caps, _ := o["capabilities"].(map[string]any)
		if caps == nil {
			caps = map[string]any{}
		}
		caps = cloneMap(caps)
		caps["credentials"] = []any{rapid.SampledFrom([]string{"oauth2", "api_key", "none"}).Draw(t, "credential")}
		o["capabilities"] = caps
	case "env":
		o["env"] = rapid.SampledFrom([]string{"prod", "staging", "dev"}).Draw(t, "environment")
	}
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func deepCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = deepCopy(k)
	}
	return &c
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
