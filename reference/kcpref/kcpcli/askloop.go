package kcpcli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// groundRound is one round of ask --ground-rounds.
type groundRound struct {
	round        int
	seeded       []string
	addedUnitIDs []string
	gaps         int
}

// navigation is one plan of the grounding loop and its answer.
type navigation struct {
	syn           kcpref.Synthesis
	budgetBlocked bool
}

// navigate plans the task widened by terms and answers the original task
// from the plan's units.
func (s *askSession) navigate(terms []string) (navigation, error) {
	task := s.a.inv.Task
	if len(terms) > 0 {
		task += " " + strings.Join(terms, " ")
	}
	p := s.plan(task)
	blocked := false
	for _, sk := range p.Skipped {
		blocked = blocked || strings.Contains(sk.Reason, "over budget")
	}
	p.Task = s.a.inv.Task
	syn, err := s.synthesize(p, s.a.inv.Task)
	return navigation{syn: syn, budgetBlocked: blocked}, err
}

// groundingLoop is ask --ground --ground-rounds N: the unsupported
// claims' terms, through the term gate, widen the task; the loop stops
// when every claim is grounded, the gate accepts nothing, a round adds no
// unit, or after N rounds.
func (s *askSession) groundingLoop() error {
	task := s.a.inv.Task
	maxRounds := s.a.groundRounds
	if kcpref.HasFault(s.c.Faults, kcpref.FaultAskRoundsUnbounded) {
		maxRounds++
	}
	seen := map[string]bool{}
	var terms []string
	known := task
	nav, err := s.navigate(nil)
	if err != nil {
		return err
	}
	ids := unitIDs(nav.syn.Loaded)
	for _, id := range ids {
		seen[id] = true
	}
	g, err := s.ground(task, nav.syn.Answer, nav.syn.Loaded)
	if err != nil {
		return err
	}
	rounds := []groundRound{{round: 0, seeded: []string{}, addedUnitIDs: ids, gaps: len(g.UngroundedText)}}
	status := ""
	for r := 1; status == "" && len(g.UngroundedText) > 0; r++ {
		if r > maxRounds {
			status = "partial-rounds"
			break
		}
		accepted, _ := kcpref.GateTerms(kcpref.Terms(strings.Join(g.UngroundedText, " ")), known, defaultGroundTerms)
		if len(accepted) == 0 {
			status = "partial-unsupported"
			break
		}
		terms = append(terms, accepted...)
		known += " " + strings.Join(accepted, " ")
		if nav, err = s.navigate(terms); err != nil {
			return err
		}
		added := []string{}
		for _, id := range unitIDs(nav.syn.Loaded) {
			if !seen[id] {
				seen[id] = true
				added = append(added, id)
			}
		}
		if len(added) == 0 {
			status = "partial-unsupported"
			if nav.budgetBlocked {
				status = "partial-budget"
			}
			break
		}
		if g, err = s.ground(task, nav.syn.Answer, nav.syn.Loaded); err != nil {
			return err
		}
		rounds = append(rounds, groundRound{round: r, seeded: accepted, addedUnitIDs: added, gaps: len(g.UngroundedText)})
	}
	if status == "" {
		status = "grounded"
	}
	if s.a.inv.JSON {
		list := make([]any, len(rounds))
		for i, r := range rounds {
			list[i] = kcpref.NewAskJSON().With("round", r.round).With("seededTerms", r.seeded).With("addedUnitIds", r.addedUnitIDs).With("gaps", r.gaps)
		}
		_, err := s.c.Stdout.Write(kcpref.RenderJSON(kcpref.NewAskJSON().With("status", status).With("answer", nav.syn.Answer).
			With("final", kcpref.GroundingJSON(g)).With("rounds", list)))
		return err
	}
	last := rounds[len(rounds)-1]
	s.out("%s\n", strings.Repeat("─", 60))
	s.out("Answer (from %d new unit(s) across %d round(s)):\n\n%s\n", len(last.addedUnitIDs), len(rounds), nav.syn.Answer)
	for _, r := range rounds[1:] {
		s.out("  ground round %d: +terms %s → +units %s · %d gap(s) left\n", r.round, orNone(r.seeded), orNone(r.addedUnitIDs), r.gaps)
	}
	s.out("%s\n", formatGrounded(g))
	return nil
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "(none)"
	}
	return strings.Join(list, ", ")
}

func unitIDs(units []kcpref.LoadedUnit) []string {
	ids := []string{}
	for _, u := range units {
		ids = append(ids, u.ID)
	}
	return ids
}

const criticSystem = "You are the gap critic of a deterministic KCP navigation loop. You see only the metadata of a plan " +
	"(unit ids, intents, scores, reasons it skipped units), never a unit's content. If the plan probably missed " +
	"knowledge because the task's words differ from the publisher's, propose extra lowercase search terms (words or " +
	"short phrases). You change no gate: access, trust, dates and budget stay the planner's; your terms only weigh " +
	"in relevance. Answer with JSON only: {\"terms\": [\"...\"], \"note\": \"one short sentence\"}, with no terms " +
	"when the plan already covers the task."

// loopRound is one critique round of ask --loop.
type loopRound struct {
	round                        int
	proposed, accepted, rejected []string
	note                         *string
	added                        []string
	plan                         kcpref.AgentPlan
}

// critiqueLoop is ask --loop: the critic (--loop-model) sees the plan's
// metadata and proposes terms; the gate sanitises them, the widened task
// is planned again, and the loop stops when the critic proposes nothing
// the gate accepts, a round adds no unit, or after --max-rounds; the
// answer is drawn from the final plan.
func (s *askSession) critiqueLoop() error {
	task := s.a.inv.Task
	critic := resolveProvider(s.a.loopModel, s.a.baseURL, s.a.apiKey).complete(s.c.Faults)
	maxRounds := s.a.maxRounds
	if kcpref.HasFault(s.c.Faults, kcpref.FaultAskRoundsUnbounded) {
		maxRounds++
	}
	expanded := task
	base := s.plan(task)
	current := base
	selected := map[string]bool{}
	for _, u := range base.Selected {
		selected[u.ID] = true
	}
	var rounds []loopRound
	converged := "max-rounds"
	for r := 1; r <= maxRounds; r++ {
		digest := kcpref.CompactJSON(digestPlan(current))
		var pretty bytes.Buffer
		_ = json.Indent(&pretty, []byte(digest), "", "  ")
		text, err := critic([]kcpref.ChatMessage{
			{Role: "system", Content: criticSystem},
			{Role: "user", Content: fmt.Sprintf("Task: %s\nCritique round: %d\nPropose at most %d terms.\n\nPlan digest (metadata only):\n%s", task, r, defaultMaxTerms, pretty.String())},
		}, kcpref.CriticMaxTokens)
		if err != nil {
			return err
		}
		proposed, note := parseCritique(text)
		accepted, rejected := kcpref.GateTerms(proposed, expanded, defaultMaxTerms)
		if len(accepted) == 0 {
			rounds = append(rounds, loopRound{round: r, proposed: proposed, accepted: []string{}, rejected: rejected, note: note, added: []string{}, plan: current})
			converged = "no-terms"
			break
		}
		expanded += " " + strings.Join(accepted, " ")
		next := s.plan(expanded)
		added := []string{}
		for _, u := range next.Selected {
			if !selected[u.ID] {
				selected[u.ID] = true
				added = append(added, u.ID)
			}
		}
		rounds = append(rounds, loopRound{round: r, proposed: proposed, accepted: accepted, rejected: rejected, note: note, added: added, plan: next})
		current = next
		if len(added) == 0 {
			converged = "no-new-units"
			break
		}
	}
	final := current
	final.Task = task
	syn, err := s.synthesize(final, task)
	if err != nil {
		return err
	}
	if s.a.inv.JSON {
		list := make([]any, len(rounds))
		for i, r := range rounds {
			o := kcpref.NewAskJSON().With("round", r.round).With("model", s.a.loopModel).With("proposedTerms", r.proposed).
				With("acceptedTerms", r.accepted).With("rejectedTerms", r.rejected)
			if r.note != nil {
				o.With("note", *r.note)
			}
			list[i] = o.With("addedUnits", r.added).With("plans", []any{kcpref.AskPlanJSON(r.plan, s.sig)})
		}
		_, err := s.c.Stdout.Write(kcpref.RenderJSON(kcpref.NewAskJSON().With("task", task).With("expandedTask", expanded).
			With("basePlans", []any{kcpref.AskPlanJSON(base, s.sig)}).With("rounds", list).
			With("finalPlans", []any{kcpref.AskPlanJSON(current, s.sig)}).With("converged", converged).
			With("synthesis", kcpref.SynthesisJSON(syn, s.c.Faults))))
		return err
	}
	s.printPlan(base)
	anyAdded := false
	for _, r := range rounds {
		terms := "(none accepted)"
		if len(r.accepted) > 0 {
			terms = strings.Join(r.accepted, ", ")
		}
		added := "no new units"
		if len(r.added) > 0 {
			added, anyAdded = "+units "+strings.Join(r.added, ", "), true
		}
		s.out("Loop round %d (%s): +terms %s → %s\n", r.round, s.a.loopModel, terms, added)
		if r.note != nil && *r.note != "" {
			s.out("  critic: %s\n", *r.note)
		}
	}
	s.out("Loop converged (%s) after %d round(s) · expanded task: %q\n", converged, len(rounds), expanded)
	if anyAdded {
		s.printPlan(current)
	}
	s.printAnswer(syn)
	return nil
}

// digestPlan is the plan's metadata the critic sees: no unit content.
func digestPlan(p kcpref.AgentPlan) *kcpref.AskJSON {
	selected := make([]any, len(p.Selected))
	for i, u := range p.Selected {
		selected[i] = kcpref.NewAskJSON().With("id", u.ID).With("intent", u.Intent).With("score", u.Score).
			With("loadEligible", u.LoadEligible).With("reasons", u.Reasons)
	}
	skipped := make([]any, len(p.Skipped))
	for i, u := range p.Skipped {
		skipped[i] = kcpref.NewAskJSON().With("id", u.ID).With("reason", u.Reason)
	}
	return kcpref.NewAskJSON().With("manifests", []string{p.Manifest.Project}).With("selected", selected).With("skipped", skipped)
}

// parseCritique reads the critic's answer: the JSON object between its
// first "{" and last "}"; anything else proposes nothing.
func parseCritique(text string) ([]string, *string) {
	bad := "critic output was not valid JSON — treated as no proposals"
	i, j := strings.Index(text, "{"), strings.LastIndex(text, "}")
	var v struct {
		Terms []any `json:"terms"`
		Note  any   `json:"note"`
	}
	if i < 0 || j < i || json.Unmarshal([]byte(text[i:j+1]), &v) != nil {
		return []string{}, &bad
	}
	terms := []string{}
	for _, t := range v.Terms {
		terms = append(terms, fmt.Sprint(t))
	}
	if n, ok := v.Note.(string); ok {
		return terms, &n
	}
	return terms, nil
}
