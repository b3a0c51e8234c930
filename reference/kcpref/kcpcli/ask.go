package kcpcli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// askArgs are ask's own flags; the rest are plan's.
type askArgs struct {
	model, baseURL, apiKey, groundModel, loopModel, memory string
	ground, loop                                           bool
	groundRounds, maxRounds                                int
	inv                                                    kcpref.PlanInvocation
	raw                                                    map[string]string // plan's value flags as given, for the memory key
}

// Defaults of kcp-agent's ask.
const (
	defaultModel       = "claude-opus-4-8"
	defaultSideModel   = "claude-haiku-4-5" // the verifier's and the critic's
	defaultMaxRounds   = 3
	defaultMaxTerms    = 6
	defaultGroundTerms = 6
)

func parseAskArgs(args []string) (askArgs, error) {
	a := askArgs{model: defaultModel, groundModel: defaultSideModel, loopModel: defaultSideModel, maxRounds: defaultMaxRounds, raw: map[string]string{}}
	var rest []string
	number := func(name, s string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return 0, &kcpref.UsageError{Msg: fmt.Sprintf("--%s takes a whole number, not %q", name, s)}
		}
		return n, nil
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name := strings.TrimPrefix(arg, "--")
		switch arg {
		case "--ground":
			a.ground = true
			continue
		case "--loop":
			a.loop = true
			continue
		case "--model", "--base-url", "--api-key", "--ground-model", "--loop-model", "--memory", "--ground-rounds", "--max-rounds":
			if i+1 >= len(args) {
				continue // no value: as if the flag was not given
			}
			i++
			v := args[i]
			var err error
			switch name {
			case "model":
				a.model = v
			case "base-url":
				a.baseURL = v
			case "api-key":
				a.apiKey = v
			case "ground-model":
				a.groundModel = v
			case "loop-model":
				a.loopModel = v
			case "memory":
				a.memory = v
			case "ground-rounds":
				a.groundRounds, err = number(name, v)
			case "max-rounds":
				a.maxRounds, err = number(name, v)
			}
			if err != nil {
				return a, err
			}
			continue
		}
		if strings.HasPrefix(arg, "--") && planValueFlag(name) && i+1 < len(args) {
			a.raw[name] = args[i+1]
		}
		rest = append(rest, arg)
	}
	inv, err := kcpref.ParsePlanArgs(rest)
	a.inv = inv
	return a, err
}

func planValueFlag(name string) bool {
	switch name {
	case "task", "manifest", "env", "as-of", "max-units", "role", "methods", "credentials", "attest",
		"budget", "currency", "context-budget":
		return true
	}
	return false
}

// Ask is `ask`: it plans, sends the load-eligible units' content to the
// model as knowledge, and prints the answer (with the plan, or as JSON);
// --ground has a verifier adjudicate each claim, --ground-rounds
// re-navigates on the gaps, --loop lets a critic widen the task first, and
// --memory with --ground reuses an earlier grounded answer whose cited
// units still hold their bytes. A model that fails ends it with exit 1.
func (c CLI) Ask(args []string) int {
	a, err := parseAskArgs(args)
	if err != nil {
		return c.fail(kcpref.ExitUsage, err.Error())
	}
	if a.inv.Help {
		fmt.Fprintln(c.Stdout, c.usage())
		return kcpref.ExitOK
	}
	inv := &a.inv
	if inv.Follow && (a.loop || a.ground || a.memory != "") {
		return c.fail(kcpref.ExitUsage, "Unsupported option: ask --follow with --ground, --loop or --memory (the Go reference follows refs for a single answer only)")
	}
	if !inv.AsOfGiven {
		inv.Options.AsOf = kcpref.DefaultAsOf(c.now())
	}
	inv.Options.Faults = c.Faults
	m, raw, bad := readManifest(inv.Manifest)
	if bad != nil {
		return c.fail(kcpref.ExitFailure, bad.line())
	}
	sig := kcpref.VerifySignature(raw, m.Signing, m.Source, os.ReadFile)
	if sig.Status == kcpref.SignatureInvalid {
		return c.fail(kcpref.ExitFailure, fmt.Sprintf("kcp-agent: %s: signature invalid: %s", m.Source, sig.Detail))
	}
	s := &askSession{c: c, a: a, m: m, sig: sig}
	switch {
	case inv.Follow:
		err = s.followAnswer()
	case a.loop:
		err = s.critiqueLoop()
	case a.ground && a.groundRounds > 0:
		err = s.groundingLoop()
	default:
		err = s.answer()
	}
	if err != nil {
		return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
	}
	return kcpref.ExitOK
}

// askSession is one ask: its flags, the manifest and its signature.
type askSession struct {
	c   CLI
	a   askArgs
	m   kcpref.Manifest
	sig kcpref.SignatureResult
}

func (s *askSession) plan(task string) kcpref.AgentPlan {
	return kcpref.Plan(task, s.m, s.a.inv.Options)
}

func (s *askSession) out(format string, args ...any) { fmt.Fprintf(s.c.Stdout, format, args...) }

// synthesize loads the plan's load-eligible units and asks the model to
// answer task from them; with no unit to answer from, the model is not
// asked.
func (s *askSession) synthesize(p kcpref.AgentPlan, task string) (kcpref.Synthesis, error) {
	prov := resolveProvider(s.a.model, s.a.baseURL, s.a.apiKey)
	eligible := p
	if kcpref.HasFault(s.c.Faults, kcpref.FaultAskIneligibleLoaded) {
		eligible.Selected = append([]kcpref.SelectedUnit(nil), p.Selected...)
		for i := range eligible.Selected {
			eligible.Selected[i].LoadEligible = true
		}
	}
	l := kcpref.LoadUnits(eligible, os.DirFS(filepath.Dir(s.m.Source)), nil, nil)
	syn := kcpref.Synthesis{Model: prov.display(), Loaded: l.Units, Unavailable: l.Unavailable}
	if len(l.Units) == 0 {
		syn.Answer = kcpref.NoUnitsAnswer
		return syn, nil
	}
	answer, err := prov.complete(s.c.Faults)(kcpref.SynthesisMessages(task, l.Units, s.c.Faults), kcpref.SynthesisMaxTokens)
	syn.Answer = answer
	return syn, err
}

// ground has the verifier (--ground-model) adjudicate each claim.
func (s *askSession) ground(task, answer string, units []kcpref.LoadedUnit) (kcpref.Grounding, error) {
	verify := resolveProvider(s.a.groundModel, s.a.baseURL, s.a.apiKey).complete(s.c.Faults)
	return kcpref.Ground(task, answer, units, func(claim string) (kcpref.Attribution, error) {
		text, err := verify(kcpref.VerifierMessages(task, claim, units), kcpref.VerifierMaxTokens)
		if err != nil {
			return kcpref.Attribution{}, err
		}
		return kcpref.ParseAttribution(text), nil
	}, s.c.Faults)
}

// answer is the single-pass ask, with --ground and --memory.
func (s *askSession) answer() error {
	a := s.a
	p := s.plan(a.inv.Task)
	if !a.inv.JSON {
		s.printPlan(p)
	}
	var store *askStore
	if a.memory != "" {
		store = &askStore{dir: a.memory, key: s.optionsKey(), faults: s.c.Faults}
	}
	if store != nil && a.ground {
		hit, err := store.reuse(a.inv.Task, s.m.Source)
		if err != nil {
			return err
		}
		switch {
		case hit.reused && a.inv.JSON:
			_, err := s.c.Stdout.Write(hit.json())
			return err
		case hit.reused:
			s.out("\n♻ reused grounded answer from episode %s… (%s) — %s\n", short(hit.id), hit.recordedAt, hit.detail)
			s.out("%s\n", strings.Repeat("─", 60))
			s.out("Answer (reused, from %d unit(s)):\n\n%s\n", hit.units, hit.answer)
			if hit.grounding != nil {
				s.out("%s\n", formatGrounded(*hit.grounding))
			}
			return nil
		case hit.drifted && !a.inv.JSON:
			s.out("\n⚠ cached answer stale (%s) — re-answering.\n", hit.detail)
		}
	}
	syn, err := s.synthesize(p, a.inv.Task)
	if err != nil {
		return err
	}
	var g *kcpref.Grounding
	if a.ground {
		gr, err := s.ground(a.inv.Task, syn.Answer, syn.Loaded)
		if err != nil {
			return err
		}
		g = &gr
	}
	if store != nil && g != nil {
		if err := store.record(p, s.sig, syn, *g, s.c.now()); err != nil {
			return err
		}
	}
	if a.inv.JSON {
		o := kcpref.NewAskJSON().With("plan", kcpref.AskPlanJSON(p, s.sig)).With("synthesis", kcpref.SynthesisJSON(syn, s.c.Faults))
		if g != nil {
			o.With("grounding", kcpref.GroundingJSON(*g))
		}
		_, err := s.c.Stdout.Write(kcpref.RenderJSON(o))
		return err
	}
	s.printAnswer(syn)
	if g != nil {
		s.out("%s\n", formatGrounded(*g))
	}
	return nil
}

// followAnswer is `ask --follow`: it plans the federation tree as plan
// --follow does and answers from the load-eligible units of every node,
// the root's first, each read beside the manifest that names it.
func (s *askSession) followAnswer() error {
	c, inv := s.c, s.a.inv
	guard := kcpref.FetchGuard{AllowPrivate: inv.AllowPrivateHosts && !kcpref.HasFault(c.Faults, kcpref.FaultAllowPrivateIgnored), Faults: c.Faults}
	inv.Signature.Faults = c.Faults
	sig := s.sig
	root := c.walk(inv, s.m, &sig, guard)
	var loaded []kcpref.LoadedUnit
	var unavailable []kcpref.UnavailableUnit
	var visit func(n kcpref.TreeNode, depth int)
	visit = func(n kcpref.TreeNode, depth int) {
		if n.Plan == nil || n.Error != "" || depth > 0 && kcpref.HasFault(c.Faults, kcpref.FaultAskFollowRootOnly) {
			return
		}
		l := kcpref.LoadUnits(*n.Plan, os.DirFS(filepath.Dir(n.Location)), nil, nil)
		loaded, unavailable = append(loaded, l.Units...), append(unavailable, l.Unavailable...)
		for _, ch := range n.Children {
			visit(ch, depth+1)
		}
	}
	visit(root, 0)
	prov := resolveProvider(s.a.model, s.a.baseURL, s.a.apiKey)
	syn := kcpref.Synthesis{Model: prov.display(), Loaded: loaded, Unavailable: unavailable, Answer: kcpref.NoUnitsAnswer}
	if len(loaded) > 0 {
		answer, err := prov.complete(c.Faults)(kcpref.SynthesisMessages(inv.Task, loaded, c.Faults), kcpref.SynthesisMaxTokens)
		if err != nil {
			return err
		}
		syn.Answer = answer
	}
	if inv.JSON {
		o := kcpref.NewAskJSON().With("plan", kcpref.AskTreeJSON(root)).With("synthesis", kcpref.SynthesisJSON(syn, c.Faults))
		_, err := c.Stdout.Write(kcpref.RenderJSON(o))
		return err
	}
	var print func(n kcpref.TreeNode, indent string)
	print = func(n kcpref.TreeNode, indent string) {
		if n.Error != "" {
			s.out("%s%s: %s\n", indent, n.Location, n.Error)
		} else {
			s.out("%s%s: %d selected, %d skipped\n", indent, n.Location, len(n.Plan.Selected), len(n.Plan.Skipped))
		}
		for _, ch := range n.Children {
			print(ch, indent+"  ")
		}
	}
	print(root, "")
	s.printAnswer(syn)
	return nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// printPlan is the plan summary ask prints before its answer (the same as
// plan's text).
func (s *askSession) printPlan(p kcpref.AgentPlan) {
	o := kcpref.Outcome(p)
	s.out("plan for %q over %s (as of %s)\n", s.a.inv.Task, s.a.inv.Manifest, s.a.inv.Options.AsOf)
	for _, u := range o.Selected {
		eligible := "load-eligible"
		if !u.LoadEligible {
			eligible = "not load-eligible"
		}
		s.out("  select %-30s score %-4d %s\n", u.ID, u.Score, eligible)
	}
	for _, u := range o.Skipped {
		s.out("  skip   %-30s %s\n", u.ID, u.Reason)
	}
	for _, w := range o.Warnings {
		s.out("  warning: %s\n", w)
	}
}

func (s *askSession) printAnswer(syn kcpref.Synthesis) {
	s.out("%s\n", strings.Repeat("─", 60))
	s.out("Answer (via %s, from %d unit(s)):\n\n%s\n", syn.Model, len(syn.Loaded), syn.Answer)
	if len(syn.Unavailable) > 0 {
		lines := make([]string, len(syn.Unavailable))
		for i, u := range syn.Unavailable {
			lines[i] = fmt.Sprintf("  · %s: %s", u.ID, u.Reason)
		}
		s.out("\n%s\n", strings.Join(lines, "\n"))
	}
}

// formatGrounded is the grounded / unsubstantiated listing kcp-agent
// prints after a grounded answer.
func formatGrounded(g kcpref.Grounding) string {
	grounded := g.Grounded()
	plural := "s"
	if len(g.Claims) == 1 {
		plural = ""
	}
	out := []string{"", fmt.Sprintf("Grounded (%d/%d claim%s):", len(grounded), len(g.Claims), plural)}
	for _, c := range grounded {
		out = append(out, "  ● "+c.Claim, fmt.Sprintf("     ↳ %s · sha %s", c.UnitID, short(c.SHA256)))
	}
	if len(g.Gaps) > 0 {
		out = append(out, "", fmt.Sprintf("Unsubstantiated (%d): — could not be grounded in a loaded unit", len(g.Gaps)))
		for _, c := range g.Gaps {
			out = append(out, "  ○ "+c.Claim, "     "+c.Reason)
		}
		if g.GapsTruncated > 0 {
			out = append(out, fmt.Sprintf("  … and %d more (surfaced list capped)", g.GapsTruncated))
		}
	}
	out = append(out, "")
	if g.Status == "grounded" {
		out = append(out, "✓ grounded — every claim is backed by a loaded, hash-pinned unit")
	} else {
		out = append(out, fmt.Sprintf("⚠ partial-unsupported — %d claim(s) could not be substantiated", len(g.Gaps)+g.GapsTruncated))
	}
	return strings.Join(append(out, ""), "\n")
}

// optionsKey is what, besides the task and the manifest, an episode must
// share to be reused: the plan options as given, with the effective date.
func (s *askSession) optionsKey() string {
	o := kcpref.NewAskJSON()
	o.With("asOf", s.a.inv.Options.AsOf)
	for _, k := range []string{"env", "max-units", "role", "methods", "credentials", "attest", "budget", "currency", "context-budget"} {
		if v, ok := s.a.raw[k]; ok {
			o.With(k, v)
		}
	}
	o.With("strict", s.a.inv.Options.Strict)
	return kcpref.CompactJSON(o)
}
