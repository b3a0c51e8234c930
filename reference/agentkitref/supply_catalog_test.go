package agentkitref

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestSupplyGoesThroughTheCatalogue: a vector source's tool is admitted by
// the catalogue like any source's: of two with one key the higher priority
// wins, equal priorities fail start-up, and catalog.max_risk applies.
func TestSupplyGoesThroughTheCatalogue(t *testing.T) {
	start := func(second string, faults ...Fault) (*Gateway, error) {
		app, err := LoadFS(fstest.MapFS{
			"app.yaml": {Data: []byte("model: {provider: openai, config: {base_url: http://127.0.0.1:1/v1}}\n" +
				"catalog: {max_risk: readonly}\n" +
				"sources:\n" +
				"  - {name: kb, type: vector, config: {tool_name: find, description: first, docs: [a]}}\n" +
				"  - {name: kb, type: vector" + second + ", config: {tool_name: find, description: second, docs: [b]}}\n" +
				"agents: [agents/a.yaml]\n")},
			"agents/a.yaml": {Data: []byte("name: a\ncapabilities: {include: [\"cap://tool/kb/*\"]}\n")},
		}, "app.yaml", nil)
		if err != nil {
			t.Fatal(err)
		}
		return New(app, Options{Faults: faults})
	}
	if _, err := start(""); err == nil || !strings.Contains(err.Error(), "equal priority") {
		t.Errorf("equal priorities: want a conflict, got %v", err)
	}
	g, err := start(", priority: 1")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if caps := g.agents["a"].caps; len(caps) != 1 || caps[0].description != "second" {
		t.Errorf("the higher priority should shadow: %+v", caps)
	}
	g2, err := start(", priority: 1", FaultVectorMutating)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	if caps := g2.agents["a"].caps; len(caps) != 0 {
		t.Errorf("a mutating tool should be left out under max_risk readonly: %+v", caps)
	}
}
