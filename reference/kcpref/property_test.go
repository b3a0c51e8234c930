package kcpref

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The invariants of notes §6, checked on generated manifests and options.

var (
	propVocab = []string{"deploy", "guide", "award", "compute", "sovereign", "power", "grid", "budget", "recipe", "secret", "weather", "policy"}
	propDates = []string{"2026-01-01", "2026-04-01", "2026-07-06", "2026-10-01", "2027-01-01"}
)

// world is one generated planning problem.
type world struct {
	yaml string
	task string
	opts Options
}

func words(t *rapid.T, label string, min, max int) string {
	return strings.Join(rapid.SliceOfN(rapid.SampledFrom(propVocab), min, max).Draw(t, label), " ")
}

// maybeStr is maybe for an optional string option: nil when not drawn.
func maybeStr(t *rapid.T, label string, gen *rapid.Generator[string]) *string {
	if s, ok := maybe(t, label, gen); ok {
		return &s
	}
	return nil
}

func maybe[V any](t *rapid.T, label string, gen *rapid.Generator[V]) (V, bool) {
	var zero V
	if !rapid.Bool().Draw(t, label+"?") {
		return zero, false
	}
	return gen.Draw(t, label), true
}

func genManifest(t *rapid.T) string {
	var b strings.Builder
	b.WriteString("project: prop\nversion: \"1\"\n")
	if rapid.Bool().Draw(t, "requireAttestation") {
		b.WriteString("trust:\n  agent_requirements: {require_attestation: true, trusted_providers: [hsm]}\n")
	}
	n := rapid.IntRange(0, 10).Draw(t, "units")
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%d", rapid.SampledFrom([]string{"alpha", "Alpha", "beta", "b_eta"}).Draw(t, "prefix"), i)
	}
	b.WriteString("units:\n")
	for i, id := range ids {
		fmt.Fprintf(&b, "  - id: %q\n    path: %q\n    intent: %q\n", id, "docs/"+id+".md", words(t, "intent", 0, 3))
		fmt.Fprintf(&b, "    triggers: [%s]\n", strings.Join(rapid.SliceOfN(rapid.SampledFrom(propVocab), 0, 2).Draw(t, "triggers"), ", "))
		if aud, ok := maybe(t, "audience", rapid.SliceOfN(rapid.SampledFrom([]string{"agent", "human"}), 1, 2)); ok {
			fmt.Fprintf(&b, "    audience: [%s]\n", strings.Join(aud, ", "))
		}
		if acc, ok := maybe(t, "access", rapid.SampledFrom([]string{"public", "authenticated", "restricted"})); ok {
			fmt.Fprintf(&b, "    access: %s\n", acc)
		}
		if rapid.IntRange(0, 5).Draw(t, "deprecated") == 0 {
			b.WriteString("    deprecated: true\n")
		}
		if nf, ok := maybe(t, "not_for", rapid.SampledFrom(propVocab)); ok && rapid.IntRange(0, 3).Draw(t, "notForOdds") == 0 {
			fmt.Fprintf(&b, "    not_for: [%q]\n", nf)
		}
		if kind, ok := maybe(t, "kind", rapid.SampledFrom([]string{"knowledge", "skill", "playbook"})); ok {
			fmt.Fprintf(&b, "    kind: %s\n", kind)
			if rapid.Bool().Draw(t, "granted") {
				b.WriteString("    load_eligible: true\n")
			}
		}
		var temporal []string
		if d, ok := maybe(t, "valid_from", rapid.SampledFrom(propDates)); ok {
			temporal = append(temporal, fmt.Sprintf("valid_from: %q", d))
		}
		if d, ok := maybe(t, "valid_until", rapid.SampledFrom(propDates)); ok {
			temporal = append(temporal, fmt.Sprintf("valid_until: %q", d))
		}
		if j, ok := maybe(t, "superseded_by", rapid.IntRange(0, n-1)); ok && j != i {
			temporal = append(temporal, fmt.Sprintf("superseded_by: %q", ids[j]))
		}
		if len(temporal) > 0 {
			fmt.Fprintf(&b, "    temporal: {%s}\n", strings.Join(temporal, ", "))
		}
		switch rapid.IntRange(0, 3).Draw(t, "payment") {
		case 1:
			b.WriteString("    payment: {methods: [{type: free}]}\n")
		case 2, 3:
			price := rapid.SampledFrom([]string{"0.01", "0.05", "0.10", "0.25"}).Draw(t, "price")
			cur := rapid.SampledFrom([]string{"USDC", "USDC", "EURC"}).Draw(t, "currency")
			fmt.Fprintf(&b, "    payment: {methods: [{type: x402, price_per_request: %q, currency: %s}]}\n", price, cur)
		}
		switch rapid.IntRange(0, 2).Draw(t, "size") {
		case 1:
			fmt.Fprintf(&b, "    size_tokens: %d\n", rapid.IntRange(0, 4000).Draw(t, "tokens"))
		case 2:
			fmt.Fprintf(&b, "    bytes: %d\n", rapid.IntRange(0, 16000).Draw(t, "bytes"))
		}
	}
	b.WriteString("manifests:\n")
	for i := range rapid.IntRange(0, 3).Draw(t, "refs") {
		fmt.Fprintf(&b, "  - {id: ref-%d, url: \"https://r%d.example/k.yaml\"", i, i)
		if ctx, ok := maybe(t, "context", rapid.SliceOfN(rapid.SampledFrom([]string{"dev", "test", "prod"}), 0, 2)); ok {
			fmt.Fprintf(&b, ", context: [%s]", strings.Join(ctx, ", "))
		}
		if rapid.Bool().Draw(t, "identity") {
			b.WriteString(", agent_identity: {required: true, credential_hint: github_pat}")
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func genOptions(t *rapid.T) Options {
	o := Options{AsOf: rapid.SampledFrom(propDates).Draw(t, "asOf")}
	o.Env = maybeStr(t, "env", rapid.SampledFrom([]string{"dev", "prod"}))
	if n, ok := maybe(t, "maxUnits", rapid.IntRange(0, 6)); ok {
		o.MaxUnits = ptr(float64(n))
	}
	o.Strict = rapid.Bool().Draw(t, "strict")
	if amount, ok := maybe(t, "budget", rapid.SampledFrom([]float64{0, 0.05, 0.1, 0.25, 1})); ok {
		o.Budget = &Budget{Amount: amount}
		o.Budget.Currency = maybeStr(t, "budgetCurrency", rapid.SampledFrom([]string{"USDC", "EURC"}))
	}
	if c, ok := maybe(t, "contextBudget", rapid.SampledFrom([]float64{0, 100, 1000, 3000})); ok {
		o.ContextBudget = ptr(c)
	}
	o.Capabilities.Role = maybeStr(t, "role", rapid.SampledFrom([]string{"agent", "human"}))
	if m, ok := maybe(t, "methods", rapid.SliceOfN(rapid.SampledFrom([]string{"free", "x402", "subscription"}), 0, 3)); ok {
		o.Capabilities.PaymentMethods = m
	}
	if rapid.Bool().Draw(t, "credentials") {
		o.Capabilities.Credentials = []string{"oauth2"}
	}
	o.Capabilities.AttestationProvider = maybeStr(t, "attest", rapid.SampledFrom([]string{"hsm", "other"}))
	return o
}

func genWorld(t *rapid.T) world {
	return world{yaml: genManifest(t), task: words(t, "task", 0, 4), opts: genOptions(t)}
}

func parseWorld(t *rapid.T, w world) Manifest {
	m, err := ParseManifest([]byte(w.yaml))
	if err != nil {
		t.Fatalf("generated manifest does not parse: %v\n%s", err, w.yaml)
	}
	return m
}

var beyondWarning = regexp.MustCompile(`^(\d+) relevant unit\(s\) beyond maxUnits=`)

func TestPropertyDeterminismAndPurity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		m := parseWorld(t, w)
		pristine := parseWorld(t, w)
		optsBefore, _ := json.Marshal(w.opts)

		first := PlanJSON(Plan(w.task, m, w.opts), Envelope{})
		second := PlanJSON(Plan(w.task, m, w.opts), Envelope{})
		fresh := PlanJSON(Plan(w.task, pristine, w.opts), Envelope{})
		if !bytes.Equal(first, second) || !bytes.Equal(first, fresh) {
			t.Fatalf("same inputs, different plan JSON:\n%s\n---\n%s", first, second)
		}
		if !json.Valid(first) {
			t.Fatalf("invalid JSON:\n%s", first)
		}
		if !reflect.DeepEqual(m, parseWorld(t, w)) {
			t.Fatal("Plan mutated the manifest")
		}
		if optsAfter, _ := json.Marshal(w.opts); !bytes.Equal(optsBefore, optsAfter) {
			t.Fatalf("Plan mutated the options: %s -> %s", optsBefore, optsAfter)
		}
		if _, err := json.Marshal(Outcome(Plan(w.task, m, w.opts))); err != nil {
			t.Fatal(err)
		}
	})
}

func TestPropertyCeilingsAndAccounting(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		m := parseWorld(t, w)
		p := Plan(w.task, m, w.opts)

		if b := w.opts.Budget; b != nil {
			var spent float64
			for _, s := range p.Selected {
				if s.LoadEligible && s.Payment.PricePerRequest != nil {
					spent += *s.Payment.PricePerRequest
				}
			}
			if spent > b.Amount+1e-9 || *p.Budget.ProjectedSpend > b.Amount+1e-9 || *p.Budget.Ceiling != b.Amount {
				t.Fatalf("money ceiling %v broken: spent %v, projected %v, ceiling %v", b.Amount, spent, *p.Budget.ProjectedSpend, *p.Budget.Ceiling)
			}
		} else if p.Budget.Ceiling != nil || p.Budget.ProjectedSpend != nil || p.Budget.Remaining != nil {
			t.Fatal("budget figures without a budget")
		}
		if c := w.opts.ContextBudget; c != nil {
			if *p.Context.Ceiling != *c || *p.Context.ProjectedTokens > *c+1e-9 {
				t.Fatalf("context ceiling %v broken: ceiling %v projected %v", *c, *p.Context.Ceiling, *p.Context.ProjectedTokens)
			}
		} else if p.Context.Ceiling != nil || p.Context.ProjectedTokens != nil {
			t.Fatal("context figures without a context budget")
		}

		beyond := 0
		for _, warning := range p.Warnings {
			if g := beyondWarning.FindStringSubmatch(warning); g != nil {
				beyond, _ = strconv.Atoi(g[1])
			}
		}
		if got := len(p.Selected) + len(p.Skipped) + beyond; got != len(m.Units) {
			t.Fatalf("%d units, but %d selected + %d skipped + %d beyond maxUnits", len(m.Units), len(p.Selected), len(p.Skipped), beyond)
		}
		if mu := w.opts.MaxUnits; mu != nil && float64(len(p.Selected)) > *mu {
			t.Fatalf("%d selected over maxUnits %v", len(p.Selected), *mu)
		}
		for _, s := range p.Selected {
			if s.Score <= 0 || len(s.Reasons) == 0 {
				t.Fatalf("selected without relevance: %+v", s)
			}
			if w.opts.Strict && !s.LoadEligible {
				t.Fatalf("strict plan lists an ineligible unit: %+v", s)
			}
		}
		for _, s := range p.Skipped {
			if s.Reason == "" {
				t.Fatalf("skip without a reason: %+v", s)
			}
		}
	})
}

func TestPropertyGatesHold(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		m := parseWorld(t, w)
		p := Plan(w.task, m, w.opts)
		byID := map[string]Unit{}
		for _, u := range m.Units {
			byID[u.ID] = u
		}
		role := "agent"
		if r := w.opts.Capabilities.Role; r != nil {
			role = *r
		}
		active := func(u Unit) bool {
			t := u.Temporal
			return t == nil || ((t.ValidFrom == "" || t.ValidFrom <= p.AsOf) && (t.ValidUntil == "" || t.ValidUntil >= p.AsOf))
		}
		for _, s := range p.Selected {
			u := byID[s.ID]
			if u.Access == "restricted" && len(w.opts.Capabilities.Credentials) == 0 && s.LoadEligible {
				t.Fatalf("restricted unit %s is load-eligible without credentials", s.ID)
			}
			if isTrue(u.Deprecated) || !active(u) {
				t.Fatalf("selected %s is deprecated or outside its window at %s: %+v", s.ID, p.AsOf, u.Temporal)
			}
			if len(u.Audience) > 0 && !slices.Contains(u.Audience, role) {
				t.Fatalf("selected %s excludes role %s", s.ID, role)
			}
			if u.Temporal != nil && u.Temporal.SupersededBy != "" {
				if succ, ok := byID[u.Temporal.SupersededBy]; ok && !isTrue(succ.Deprecated) && active(succ) &&
					(len(succ.Audience) == 0 || slices.Contains(succ.Audience, role)) {
					t.Fatalf("predecessor %s selected while its successor %s is active", s.ID, succ.ID)
				}
			}
		}
		for _, s := range p.Skipped {
			u := byID[s.ID]
			if strings.HasPrefix(s.Reason, "superseded by ") && s.Reason != fmt.Sprintf("superseded by %s (successor active)", u.Temporal.SupersededBy) {
				t.Fatalf("supersession reason %q for %+v", s.Reason, u.Temporal)
			}
		}
	})
}

func TestPropertyFailClosedDefaults(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		m := parseWorld(t, w)
		// Only asOf: every other option takes its default.
		p := Plan(w.task, m, Options{AsOf: w.opts.AsOf})
		byID := map[string]Unit{}
		for _, u := range m.Units {
			byID[u.ID] = u
		}
		for _, s := range p.Selected {
			u := byID[s.ID]
			if !s.LoadEligible {
				continue
			}
			switch {
			case u.Access == "restricted":
				t.Fatalf("restricted %s eligible with no credentials", s.ID)
			case (u.Kind == "skill" || u.Kind == "playbook") && !isTrue(u.LoadEligible):
				t.Fatalf("%s %s eligible without a grant", u.Kind, s.ID)
			case u.Payment != nil && len(u.Payment.Methods) > 0 && !slices.ContainsFunc(u.Payment.Methods, func(pm PaymentMethod) bool { return pm.Type == "free" }):
				t.Fatalf("paid-only %s eligible for an agent that can only use free", s.ID)
			}
		}
		for i, f := range p.Federation {
			if m.Manifests[i].Context != nil && f.Selected {
				t.Fatalf("context-tagged ref %s selected with no env", f.ID)
			}
		}
		if p.Options.Role != "agent" || !slices.Equal(p.Options.PaymentMethods, []string{"free"}) || len(p.Options.Credentials) != 0 || p.Options.MaxUnits != 5 || p.Options.Strict {
			t.Fatalf("defaults %+v", p.Options)
		}
	})
}
