package results

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sifu-dev/sifu/engine"
)

func TestCucumberMarksTheDecidingStep(t *testing.T) {
	checks := []engine.Check{{ID: "s/f/x", Kind: "scenario", Title: "X", Source: "f.feature:3", Rules: []string{"R-1"},
		Steps: []engine.Step{{Source: "f.feature:4", Text: "a"}, {Source: "f.feature:4", Text: "a"},
			{Source: "f.feature:5", Text: "b"}, {Source: "f.feature:6", Text: "c"}}},
		{ID: "s/v/y", Kind: "vector", Source: "v.json#/checks/0"}}
	run := &Run{Tests: []Test{{ID: "s/f/x", Status: engine.Fail, Step: "f.feature:5", Message: "boom"}, {ID: "s/v/y", Status: engine.Pass}}}
	var b bytes.Buffer
	if err := WriteCucumber(&b, run, checks); err != nil {
		t.Fatal(err)
	}
	var doc []cukeFeature
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc) != 1 || len(doc[0].Elements) != 1 {
		t.Fatalf("only the scenario belongs in cucumber JSON: %s", b.String())
	}
	var got []string
	for _, s := range doc[0].Elements[0].Steps {
		got = append(got, s.Result.Status)
	}
	if want := []string{"passed", "failed", "skipped"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("step statuses %v, want %v", got, want)
	}
}
