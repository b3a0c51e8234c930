package kcp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
)

// Property checks run a planner over generated manifests and options and
// check what must hold for every input (the invariants of the kcp-agent
// notes): the same inputs give the same plan, money and context ceilings are
// never exceeded, a restricted unit is never load-eligible without
// credentials, and every unit is reported at most once. Generation is
// seeded: the same seed gives the same inputs on every machine.

var (
	propWords  = []string{"court", "filings", "award", "compute", "power", "weather", "index", "digest"}
	propPrices = []string{"0.05", "0.10", "0.20", "0.30"}
	propAccess = []string{"public", "restricted", "authenticated"}
)

type propCase struct {
	Manifest   string
	Task       string
	Options    map[string]any
	restricted map[string]bool
}

func genCase(r *rand.Rand) propCase {
	var b strings.Builder
	b.WriteString("project: \"prop\"\nversion: \"1.0.0\"\nkcp_version: \"0.32\"\nunits:\n")
	c := propCase{restricted: map[string]bool{}}
	n := 1 + r.IntN(7)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("u%d-%s", i, propWords[r.IntN(len(propWords))])
		fmt.Fprintf(&b, "  - id: %q\n    path: \"d/%d.md\"\n    intent: \"%s %s\"\n", id, i,
			propWords[r.IntN(len(propWords))], propWords[r.IntN(len(propWords))])
		access := propAccess[r.IntN(len(propAccess))]
		fmt.Fprintf(&b, "    access: %q\n", access)
		if access == "restricted" {
			c.restricted[id] = true
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "    payment:\n      methods:\n        - type: \"x402\"\n          price_per_request: %q\n          currency: \"USDC\"\n",
				propPrices[r.IntN(len(propPrices))])
		}
		if r.IntN(3) > 0 {
			fmt.Fprintf(&b, "    size_tokens: %d\n", 100*(1+r.IntN(20)))
		}
	}
	c.Manifest = b.String()
	c.Task = propWords[r.IntN(len(propWords))] + " " + propWords[r.IntN(len(propWords))]
	caps := map[string]any{"paymentMethods": []any{"free", "x402"}}
	if r.IntN(2) == 0 {
		caps["credentials"] = []any{"oauth2"}
	}
	c.Options = map[string]any{"asOf": "2026-07-06", "capabilities": caps, "maxUnits": float64(1 + r.IntN(6))}
	if r.IntN(2) == 0 {
		c.Options["budget"] = map[string]any{"amount": []float64{0, 0.1, 0.25, 1}[r.IntN(4)]}
	}
	if r.IntN(2) == 0 {
		c.Options["contextBudget"] = float64(100 * (1 + r.IntN(30)))
	}
	if r.IntN(3) == 0 {
		c.Options["strict"] = true
	}
	return c
}

// checkProperties plans runs generated cases and returns the violations
// (at most five).
func checkProperties(ctx context.Context, t Target, runs int, seed uint64) ([]any, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var violations []any
	for i := 0; i < runs && len(violations) < 5; i++ {
		c := genCase(r)
		req := PlanRequest{Name: fmt.Sprintf("prop-%d-%d", seed, i), Manifest: c.Manifest, Task: c.Task, Options: c.Options}
		first, err := t.Plan(ctx, req)
		if err != nil {
			return nil, err
		}
		again, err := t.Plan(ctx, req)
		if err != nil {
			return nil, err
		}
		// The outcome, with reasons: what must not change between two
		// calls (a command line's plan also names its temporary file).
		first, again = Project(first, ProjectOptions{Reasons: true}), Project(again, ProjectOptions{Reasons: true})
		bad := func(property, detail string) {
			violations = append(violations, map[string]any{"case": i, "property": property, "detail": detail,
				"task": c.Task, "options": c.Options, "manifest": c.Manifest})
		}
		if !reflect.DeepEqual(first, again) {
			bad("determinism", "the same inputs gave two different plans")
		}
		if b, ok := first["budget"].(map[string]any); ok && b["ceiling"] != nil {
			if num(b["projectedSpend"]) > num(b["ceiling"])+1e-9 {
				bad("money ceiling", fmt.Sprintf("projected spend %v exceeds the ceiling %v", b["projectedSpend"], b["ceiling"]))
			}
		}
		if cx, ok := first["context"].(map[string]any); ok && cx["ceiling"] != nil {
			if num(cx["projectedTokens"]) > num(cx["ceiling"])+1e-9 {
				bad("context ceiling", fmt.Sprintf("projected tokens %v exceed the ceiling %v", cx["projectedTokens"], cx["ceiling"]))
			}
		}
		caps := c.Options["capabilities"].(map[string]any)
		seen := map[string]bool{}
		for _, list := range []string{"selected", "skipped"} {
			entries, _ := first[list].([]any)
			for _, e := range entries {
				m, _ := e.(map[string]any)
				id, _ := m["id"].(string)
				if seen[id] {
					bad("reported once", fmt.Sprintf("unit %s appears twice", id))
				}
				seen[id] = true
				if list == "selected" && c.restricted[id] && caps["credentials"] == nil && m["loadEligible"] == true {
					bad("restricted units", fmt.Sprintf("restricted unit %s is load-eligible without credentials", id))
				}
			}
		}
	}
	if violations == nil {
		violations = []any{}
	}
	return violations, nil
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}
