package gherkin_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cucumber/godog"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/engine/gherkin"
)

func register(sc *godog.ScenarioContext) {
	sc.Step(`^agent (\w+)$`, func(ctx context.Context, name string) error {
		gherkin.From(ctx).Add(engine.Step{Op: engine.OpControl, Name: "provision", Agent: name})
		return nil
	})
	sc.Step(`^(\w+) does "([^"]+)"$`, func(ctx context.Context, agent, action string) error {
		gherkin.From(ctx).Add(engine.Step{Op: engine.OpAct, Agent: agent, Name: action})
		return nil
	})
}

const feature = `Feature: demo
  Background:
    Given agent alice

  @R-1 @fast
  Scenario: One thing
    When alice does "x"

  @R-2
  Scenario Outline: Many things: <what>
    When alice does "<what>"
    Examples:
      | what |
      | a    |
      | b    |
`

func TestCompileScenariosAndOutlines(t *testing.T) {
	fsys := fstest.MapFS{"f/demo.feature": {Data: []byte(feature)}}
	checks, err := gherkin.Compile(fsys, "f/demo.feature", "s", register)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 3 {
		t.Fatalf("want 3 checks, got %d", len(checks))
	}
	c := checks[0]
	if c.ID != "s/demo/one-thing" || c.Source != "f/demo.feature:6" || c.Rules[0] != "R-1" || c.Tags[0] != "fast" {
		t.Errorf("unexpected first check %+v", c)
	}
	if c.Steps[0].Source != "f/demo.feature:3" || c.Steps[1].Source != "f/demo.feature:7" {
		t.Errorf("step sources: %s, %s", c.Steps[0].Source, c.Steps[1].Source)
	}
	if checks[1].ID != "s/demo/many-things-a" || checks[2].ID != "s/demo/many-things-b" {
		t.Errorf("outline ids: %s %s", checks[1].ID, checks[2].ID)
	}
	if checks[1].Source != "f/demo.feature:14" || checks[2].Steps[1].Name != "b" {
		t.Errorf("outline rows: %s %+v", checks[1].Source, checks[2].Steps[1])
	}
}

func TestUndefinedStepIsNamed(t *testing.T) {
	bad := strings.Replace(feature, `When alice does "x"`, `When alice dances`, 1)
	fsys := fstest.MapFS{"f/demo.feature": {Data: []byte(bad)}}
	_, err := gherkin.Compile(fsys, "f/demo.feature", "s", register)
	if err == nil || !strings.Contains(err.Error(), "f/demo.feature:7") || !strings.Contains(err.Error(), "alice dances") {
		t.Fatalf("want an error naming f/demo.feature:7 and the step, got %v", err)
	}
}

func TestParseErrorIsNamed(t *testing.T) {
	fsys := fstest.MapFS{"f/bad.feature": {Data: []byte("Feature: x\n  Scenario: y\n    Given agent a\n  | stray |\n    Examples\n")}}
	_, err := gherkin.Compile(fsys, "f/bad.feature", "s", register)
	if err == nil || !strings.Contains(err.Error(), "f/bad.feature") {
		t.Fatalf("want an error naming the file, got %v", err)
	}
}
