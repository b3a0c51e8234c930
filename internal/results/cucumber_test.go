package results

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sifu-dev/sifu/internal/engine"
)

func cucumber(t *testing.T, run *Run, checks []engine.Check) []cukeFeature {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCucumber(&b, run, checks); err != nil {
		t.Fatal(err)
	}
	var doc []cukeFeature
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func statuses(el cukeElement) []string {
	var got []string
	for _, s := range el.Steps {
		got = append(got, s.Result.Status)
	}
	return got
}

func same(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCucumberHoldsEveryCheck: scenarios and vectors are both reported,
// every step has a keyword, and the deciding step fails.
func TestCucumberHoldsEveryCheck(t *testing.T) {
	checks := []engine.Check{{ID: "s/f/x", Kind: "scenario", Title: "X", Source: "f.feature:3", Rules: []string{"R-1"},
		Steps: []engine.Step{{Source: "f.feature:4", Text: "a", Keyword: "Given "}, {Source: "f.feature:4", Text: "a", Keyword: "Given "},
			{Source: "f.feature:5", Text: "b", Keyword: "When "}, {Source: "f.feature:6", Text: "c", Keyword: "Then "}}},
		{ID: "s/v/y", Kind: "vector", Title: "Y", Source: "v.json#/checks/0", Steps: []engine.Step{
			{Source: "v.json#/checks/0/steps/0", Op: engine.OpControl, Text: "control provision a"},
			{Source: "v.json#/checks/0/steps/1", Op: engine.OpAct, Text: "a performs x"},
			{Source: "v.json#/checks/0/steps/2", Op: engine.OpExpect, Text: "expect"}}}}
	run := &Run{Tests: []Test{{ID: "s/f/x", Status: engine.Fail, Step: "f.feature:5", Message: "boom"},
		{ID: "s/v/y", Status: engine.Fail, Step: "v.json#/checks/0/steps/1", Message: "no"}}}
	doc := cucumber(t, run, checks)
	if len(doc) != 2 || len(doc[0].Elements) != 1 || len(doc[1].Elements) != 1 {
		t.Fatalf("want the scenario and the vector, each under its file: %+v", doc)
	}
	if got := statuses(doc[0].Elements[0]); !same(got, []string{"passed", "failed", "skipped"}) {
		t.Errorf("scenario step statuses %v", got)
	}
	if got := statuses(doc[1].Elements[0]); !same(got, []string{"passed", "failed", "skipped"}) {
		t.Errorf("vector step statuses %v", got)
	}
	if doc[1].URI != "v.json" {
		t.Errorf("vector feature URI %q", doc[1].URI)
	}
	for _, f := range doc {
		for _, s := range f.Elements[0].Steps {
			if s.Keyword == "" {
				t.Errorf("%s: step %q has no keyword", f.URI, s.Name)
			}
		}
	}
}

// TestCucumberRedOnlyWhereTheRunFails: a warning, a not_applicable check and
// an expected failure are skipped; an untestable check (never run) fails.
func TestCucumberRedOnlyWhereTheRunFails(t *testing.T) {
	step := []engine.Step{{Source: "v.json#/checks/0/steps/0", Op: engine.OpAct, Text: "a performs x"}}
	checks := []engine.Check{
		{ID: "w", Kind: "vector", Source: "v.json#/checks/0", Steps: step},
		{ID: "n", Kind: "vector", Source: "v.json#/checks/1", Steps: step},
		{ID: "e", Kind: "vector", Source: "v.json#/checks/2", Steps: step},
		{ID: "u", Kind: "vector", Source: "v.json#/checks/3", Steps: step},
	}
	run := &Run{Tests: []Test{
		{ID: "w", Status: engine.Warn, Step: step[0].Source},
		{ID: "n", Status: engine.NotApplicable, Message: "needs full"},
		{ID: "e", Status: engine.Fail, Step: step[0].Source, Expected: &Expected{Entry: "e", Status: engine.Fail, Reason: "bug"}},
		{ID: "u", Status: engine.Untestable, Message: "needs clock"},
	}}
	doc := cucumber(t, run, checks)
	want := map[string]string{"w": "skipped", "n": "skipped", "e": "skipped", "u": "failed"}
	for _, el := range doc[0].Elements {
		if got := el.Steps[0].Result.Status; got != want[el.ID] {
			t.Errorf("%s: %s, want %s", el.ID, got, want[el.ID])
		}
	}
}
