// Package kungfu holds the Gherkin step definitions of the Kungfu suite.
// Each definition compiles one Gherkin step into steps of sifu's step model;
// nothing here talks to an implementation. The vocabulary is documented in
// docs/steps.md.
package kungfusteps

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/engine/gherkin"
	"github.com/sifu-dev/sifu/steps/outcomesteps"
)

// Register adds the Kungfu step vocabulary to a scenario context.
func Register(sc *godog.ScenarioContext) {
	// Control plane.
	sc.Step(`^(?:an agent|agents) ([a-z][a-z0-9_]*(?:(?:, | and )[a-z][a-z0-9_]*)*)$`, provision)
	sc.Step(`^the clock advances by (\S+)$`, advanceClock)
	sc.Step(`^([a-z][a-z0-9_]*) is deactivated$`, deactivate)
	sc.Step(`^the implementation restarts$`, restart)

	// Generic actions and reads; parameters come as a JSON doc string.
	sc.Step(`^([a-z][a-z0-9_]*) performs "([^"]+)"(?: with key "([^"]*)")?$`, performBare)
	sc.Step(`^([a-z][a-z0-9_]*) performs "([^"]+)"(?: with key "([^"]*)")? with:$`, perform)
	sc.Step(`^([a-z][a-z0-9_]*) performs "([^"]+)" (\d+) times at once(?: with the same key "([^"]*)")? with:$`, performAtOnce)
	sc.Step(`^([a-z][a-z0-9_]*) reads "([^"]+)"$`, readBare)
	sc.Step(`^([a-z][a-z0-9_]*) reads "([^"]+)" with:$`, read)

	// Memory sugar: memories are named by an alias that holds their id.
	sc.Step(`^([a-z][a-z0-9_]*) creates memory ([a-z][a-z0-9_]*) with content "([^"]*)"(?: with key "([^"]*)")?$`, createMemory)
	sc.Step(`^([a-z][a-z0-9_]*) updates memory ([a-z][a-z0-9_]*) with content "([^"]*)"(?: with key "([^"]*)")?$`, updateMemory)
	sc.Step(`^([a-z][a-z0-9_]*) (publishes|unpublishes|withdraws) memory ([a-z][a-z0-9_]*)(?: with key "([^"]*)")?$`, changeMemory)
	sc.Step(`^([a-z][a-z0-9_]*) reads memory ([a-z][a-z0-9_]*)(?: at version (\d+))?$`, readMemory)
	sc.Step(`^([a-z][a-z0-9_]*) lists (own|public) memories$`, listMemories)

	// Expectations on the last answer, shared by every suite.
	outcomesteps.Register(sc)
}

var agentList = regexp.MustCompile(`, | and `)

func provision(ctx context.Context, names string) error {
	b := gherkin.From(ctx)
	for _, name := range agentList.Split(names, -1) {
		b.Add(engine.Step{Op: engine.OpControl, Name: "provision", Agent: name,
			Capture: map[string]string{name: "/result/agent"}, Expect: &engine.Expect{Outcome: "ok"}})
	}
	return nil
}

func advanceClock(ctx context.Context, d string) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpControl, Name: "clock", Params: map[string]any{"advance": d}})
	return nil
}

func deactivate(ctx context.Context, agent string) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpControl, Name: "deactivate", Agent: agent})
	return nil
}

func restart(ctx context.Context) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpControl, Name: "restart"})
	return nil
}

func params(doc *godog.DocString) (map[string]any, error) {
	if doc == nil || strings.TrimSpace(doc.Content) == "" {
		return nil, nil
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(doc.Content), &p); err != nil {
		return nil, fmt.Errorf("the doc string must be a JSON object of parameters: %v", err)
	}
	return p, nil
}

func performBare(ctx context.Context, agent, action, key string) error {
	return perform(ctx, agent, action, key, nil)
}

func perform(ctx context.Context, agent, action, key string, doc *godog.DocString) error {
	p, err := params(doc)
	if err != nil {
		return err
	}
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpAct, Agent: agent, Name: action, Key: key, Params: p})
	return nil
}

func performAtOnce(ctx context.Context, agent, action, times, sameKey string, doc *godog.DocString) error {
	n, _ := strconv.Atoi(times)
	if n < 2 || n > 256 {
		return fmt.Errorf("at once needs 2 to 256 requests, got %d", n)
	}
	p, err := params(doc)
	if err != nil {
		return err
	}
	b := gherkin.From(ctx)
	par := engine.Step{Op: engine.OpParallel}
	for i := 0; i < n; i++ {
		key := sameKey
		if key == "" {
			key = fmt.Sprintf("at-once-%d", i+1)
		}
		par.Steps = append(par.Steps, engine.Step{Op: engine.OpAct, Agent: agent, Name: action, Key: key, Params: p,
			Text: fmt.Sprintf("%s performs %s (%d of %d)", agent, action, i+1, n)})
	}
	b.Add(par)
	last := b.Last()
	for i := range last.Steps {
		last.Steps[i].Source = last.Source
	}
	return nil
}

func readBare(ctx context.Context, agent, view string) error { return read(ctx, agent, view, nil) }

func read(ctx context.Context, agent, view string, doc *godog.DocString) error {
	p, err := params(doc)
	if err != nil {
		return err
	}
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpRead, Agent: agent, Name: view, Params: p})
	return nil
}

func ref(alias string) string { return "${" + alias + "}" }

func createMemory(ctx context.Context, agent, alias, content, key string) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpAct, Agent: agent, Name: "memory.create", Key: key,
		Params:  map[string]any{"content": content},
		Capture: map[string]string{alias: "/result/memory"}, Expect: &engine.Expect{Outcome: "ok"}})
	return nil
}

func updateMemory(ctx context.Context, agent, alias, content, key string) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpAct, Agent: agent, Name: "memory.update", Key: key,
		Params: map[string]any{"memory": ref(alias), "content": content}})
	return nil
}

var verbs = map[string]string{"publishes": "memory.publish", "unpublishes": "memory.unpublish", "withdraws": "memory.withdraw"}

func changeMemory(ctx context.Context, agent, verb, alias, key string) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpAct, Agent: agent, Name: verbs[verb], Key: key,
		Params: map[string]any{"memory": ref(alias)}})
	return nil
}

func readMemory(ctx context.Context, agent, alias, version string) error {
	p := map[string]any{"memory": ref(alias)}
	if version != "" {
		n, _ := strconv.Atoi(version)
		p["version"] = float64(n)
	}
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpRead, Agent: agent, Name: "memory", Params: p})
	return nil
}

func listMemories(ctx context.Context, agent, scope string) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpRead, Agent: agent, Name: "memories", Params: map[string]any{"scope": scope}})
	return nil
}
