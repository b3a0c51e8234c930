// Package kcp holds the Gherkin step definitions of the KCP suite. They
// compile planner calls into sifu's step model; the expectation steps are
// shared (steps/expectations). The vocabulary is in docs/steps.md.
package kcpsteps

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cucumber/godog"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/engine/gherkin"
	"github.com/sifu-dev/sifu/steps/outcomesteps"
)

// Register adds the KCP step vocabulary to a scenario context.
func Register(sc *godog.ScenarioContext) {
	sc.Step(`^a manifest ([a-z][a-z0-9_-]*):$`, manifest)
	sc.Step(`^the planner plans "([^"]*)" over ([a-z][a-z0-9_-]*)$`, planBare)
	sc.Step(`^the planner plans "([^"]*)" over ([a-z][a-z0-9_-]*) with options:$`, plan)
	sc.Step(`^the planner plans "([^"]*)" over ([a-z][a-z0-9_-]*) (\d+) times at once with options:$`, planAtOnce)
	sc.Step(`^the planner keeps its invariants on (\d+) generated manifests with seed (\d+)$`, properties)
	outcomesteps.Register(sc)
}

// properties checks the planner's invariants over generated manifests and
// options, seeded so that every run checks the same inputs.
func properties(ctx context.Context, runs, seed string) error {
	r, _ := strconv.Atoi(runs)
	s, _ := strconv.Atoi(seed)
	if r < 1 || r > 10000 {
		return fmt.Errorf("generate 1 to 10000 manifests, not %d", r)
	}
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpAct, Name: "properties",
		Params: map[string]any{"runs": float64(r), "seed": float64(s)},
		Expect: &engine.Expect{Outcome: "ok", Match: []engine.Match{{Pointer: "/result/violations", Matcher: []any{}}}}})
	return nil
}

type manifestsKey struct{}

// manifests are the manifests a scenario declared, by name; compile-time
// state only.
func manifests(ctx context.Context) map[string]string {
	m, _ := ctx.Value(manifestsKey{}).(map[string]string)
	return m
}

func manifest(ctx context.Context, name string, doc *godog.DocString) (context.Context, error) {
	m := manifests(ctx)
	if m == nil {
		m = map[string]string{}
		ctx = context.WithValue(ctx, manifestsKey{}, m)
	}
	m[name] = doc.Content + "\n"
	return ctx, nil
}

func planStep(ctx context.Context, task, name string, doc *godog.DocString) (engine.Step, error) {
	text, ok := manifests(ctx)[name]
	if !ok {
		return engine.Step{}, fmt.Errorf("no manifest %q was declared in this scenario; add a step `a manifest %s:` first", name, name)
	}
	opts := map[string]any{}
	if doc != nil {
		if err := json.Unmarshal([]byte(doc.Content), &opts); err != nil {
			return engine.Step{}, fmt.Errorf("the options doc string must be a JSON object: %v", err)
		}
	}
	return engine.Step{Op: engine.OpAct, Name: "plan", Params: map[string]any{
		"name": name, "manifest": text, "task": task, "options": opts}}, nil
}

func planBare(ctx context.Context, task, name string) error { return plan(ctx, task, name, nil) }

func plan(ctx context.Context, task, name string, doc *godog.DocString) error {
	s, err := planStep(ctx, task, name, doc)
	if err != nil {
		return err
	}
	gherkin.From(ctx).Add(s)
	return nil
}

func planAtOnce(ctx context.Context, task, name, times string, doc *godog.DocString) error {
	n, _ := strconv.Atoi(times)
	if n < 2 || n > 64 {
		return fmt.Errorf("at once needs 2 to 64 calls, got %d", n)
	}
	s, err := planStep(ctx, task, name, doc)
	if err != nil {
		return err
	}
	b := gherkin.From(ctx)
	par := engine.Step{Op: engine.OpParallel}
	for i := 0; i < n; i++ {
		par.Steps = append(par.Steps, s)
	}
	b.Add(par)
	last := b.Last()
	for i := range last.Steps {
		last.Steps[i].Source, last.Steps[i].Text = last.Source, fmt.Sprintf("plan %d of %d", i+1, n)
	}
	return nil
}
