package vector_test

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/engine/vector"
	"github.com/sifu-dev/sifu/internal/schema"
)

func fsWith(vec string) fstest.MapFS {
	raw, err := os.ReadFile("../../../vectors/schema/vector.schema.json")
	if err != nil {
		panic(err)
	}
	return fstest.MapFS{
		"schema/vector.schema.json": {Data: raw},
		"v/x.json":                  {Data: []byte(vec)},
	}
}

// compile compiles a vector file and lints its checks, as the runner does
// with every check any compiler makes.
func compile(vec string) ([]engine.Check, error) {
	fsys := fsWith(vec)
	checks, err := vector.Compile(fsys, "v/x.json", "kungfu", schema.NewSet(fsys, "schema"))
	for _, c := range checks {
		if err == nil {
			err = engine.Lint(c, engine.Vocabulary{Provision: "provision"})
		}
	}
	return checks, err
}

func TestCompileGood(t *testing.T) {
	checks, err := compile(`{"suite":"kungfu","checks":[{"id":"c1","title":"a check","rules":["KF-5-02"],"steps":[
		{"control":"provision","agent":"alice","capture":{"alice":"/result/agent"}},
		{"act":"memory.create","agent":"alice","key":"k","params":{"content":"x"},"expect":{"outcome":"ok","match":{"/result/version":1}}},
		{"parallel":[{"read":"memory","agent":"alice"},{"read":"memory","agent":"alice"}]}
	]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	c := checks[0]
	if c.ID != "kungfu/x/c1" || c.Source != "v/x.json#/checks/0" || len(c.Steps) != 3 {
		t.Fatalf("unexpected check: %+v", c)
	}
	if c.Steps[1].Op != engine.OpAct || c.Steps[1].Source != "v/x.json#/checks/0/steps/1" || c.Steps[2].Op != engine.OpParallel {
		t.Errorf("unexpected steps: %+v", c.Steps)
	}
}

func TestCompileErrorsNameFileAndPointer(t *testing.T) {
	cases := map[string]struct{ vec, want string }{
		"syntax":        {`{"suite": "kungfu",`, "not valid JSON"},
		"bad token":     {"{\"suite\": kungfu}", "line 1: not valid JSON"},
		"missing rules": {`{"suite":"kungfu","checks":[{"id":"c","title":"abc","steps":[{"control":"clock"}]}]}`, "at /checks/0"},
		"bad next step": {`{"suite":"kungfu","checks":[{"id":"c","title":"abc","rules":["R-1"],"steps":[{"expect":{"next_step":"later"}}]}]}`, "/checks/0/steps/0"},
		"unknown field": {`{"suite":"kungfu","checks":[{"id":"c","title":"abc","rules":["R-1"],"steps":[{"control":"clock"}],"extra":1}]}`, "/checks/0"},
		"other suite":   {`{"suite":"acp","checks":[{"id":"c","title":"abc","rules":["R-1"],"steps":[{"control":"clock"}]}]}`, "at /suite"},
		"duplicate id": {`{"suite":"kungfu","checks":[{"id":"c","title":"abc","rules":["R-1"],"steps":[{"control":"clock"}]},
			{"id":"c","title":"abc","rules":["R-1"],"steps":[{"control":"clock"}]}]}`, "at /checks/1/id"},
		"uncaptured var": {`{"suite":"kungfu","checks":[{"id":"c","title":"abc","rules":["R-1"],"steps":[
			{"control":"provision","agent":"a"},{"act":"x","agent":"a","params":{"m":"${m}"}}]}]}`, "v/x.json#/checks/0/steps/1"},
	}
	for name, c := range cases {
		_, err := compile(c.vec)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "v/x.json") {
			t.Errorf("%s: error %q should name the file and %q", name, err, c.want)
		}
	}
}
