package recordjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestRecordsAreLines: objects are indented a member per line in their
// order, an array of records puts each on its own compact line, an array
// of scalars stays on one line, and the text decodes to the same value.
func TestRecordsAreLines(t *testing.T) {
	type rule struct {
		ID       string   `json:"id"`
		Profiles []string `json:"profiles"`
		Note     string   `json:"note,omitempty"`
	}
	v := struct {
		Suite   string         `json:"suite"`
		Summary map[string]int `json:"summary"`
		Empty   map[string]int `json:"empty"`
		Rules   []rule         `json:"rules"`
		Tags    []string       `json:"tags"`
	}{"kungfu", map[string]int{"pass": 2, "fail": 0}, map[string]int{}, []rule{{"KF-1", []string{"core"}, "a<b"}, {"KF-2", nil, ""}}, []string{"x", "y"}}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "suite": "kungfu",
  "summary": {
    "fail": 0,
    "pass": 2
  },
  "empty": {},
  "rules": [
    {"id":"KF-1","profiles":["core"],"note":"a<b"},
    {"id":"KF-2","profiles":null}
  ],
  "tags": ["x","y"]
}
`
	if string(got) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	var back, orig any
	raw, _ := json.Marshal(v)
	json.Unmarshal(raw, &orig)
	if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, orig) {
		t.Fatalf("does not decode to the same value: %v", err)
	}
}
