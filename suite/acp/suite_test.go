package acp_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/suite/acp"
)

// TestEveryRuleIsCheckedOrNotBlackBox: every rule of the catalogue is
// evidenced by a check or says why it cannot be observed from outside.
// (That the reference passes every check is reference/acpref's
// TestConformance, through the suite's public entry.)
func TestEveryRuleIsCheckedOrNotBlackBox(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, acp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	checked := plan.Coverage()
	for _, r := range plan.Catalogue.Rules {
		if len(checked[r.ID]) == 0 && r.Evidence != catalogue.NotBlackBox {
			t.Errorf("rule %s has no check and is not marked not black-box", r.ID)
		}
	}
}

// TestEveryFixtureHasTheUpstreamVerdict: each fixture folder is validated by
// a check that states the upstream validator's verdict — a validator-profile
// case, or a compat case where sifu's default is stricter.
func TestEveryFixtureHasTheUpstreamVerdict(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, acp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := fs.ReadDir(sifu.Assets, "vectors/acp/fixtures")
	if err != nil {
		t.Fatal(err)
	}
	upstream := map[string]bool{}
	for _, c := range plan.Checks {
		if len(c.Steps) == 0 || c.Steps[0].Name != "fixture" {
			continue
		}
		name := strings.TrimPrefix(c.Steps[0].Text, "fixture ")
		strict := slices.ContainsFunc(c.Rules, func(id string) bool { return strings.HasPrefix(id, "ACP-STRICT-") })
		if !strict {
			upstream[name] = true
		}
	}
	for _, d := range dirs {
		if d.IsDir() && !upstream[d.Name()] {
			t.Errorf("fixture %s has no check with the upstream validator's verdict; add one to vectors/acp/validator.json", d.Name())
		}
	}
}

func TestVectorErrorsNameTheFile(t *testing.T) {
	fsys := fstestMap{
		"v/bad.json": `{"suite":"acp","cases":[{"id":"x","title":"xyz","rules":["ACP-EVT-01"],"calls":[{"next":"a","validate":{}}]}]}`,
	}
	_, err := acp.CompileVector(fsys.FS(), "v/bad.json", schema.NewSet(sifu.Assets, "vectors/schema"))
	if err == nil || !strings.Contains(err.Error(), "v/bad.json") {
		t.Fatalf("want an error naming the file, got %v", err)
	}
	if checks, err := acp.CompileVector(fsys.FS(), "v/fixtures/x/protocol.json", schema.NewSet(sifu.Assets, "vectors/schema")); err != nil || checks != nil {
		t.Fatalf("fixture files are data: %v %v", checks, err)
	}
}

type fstestMap map[string]string

func (m fstestMap) FS() fs.FS {
	out := fstest.MapFS{}
	for k, v := range m {
		out[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return out
}

// TestDerivedRebuildsProtocolText: a transcript leaves out init's
// protocol.json text when the layout the upstream tools write (keys
// sorted, two-space indent, a final newline, no HTML escapes) rebuilds it
// from the parsed document.
func TestDerivedRebuildsProtocolText(t *testing.T) {
	ex := engine.Exchange{Op: engine.OpAct, Name: "init", Outcome: &engine.Outcome{OK: true, Result: map[string]any{
		"protocol": map[string]any{"b": []any{}, "a": "x<y", "c": map[string]any{}},
	}}}
	want := "{\n  \"a\": \"x<y\",\n  \"b\": [],\n  \"c\": {}\n}\n"
	if got := acp.Derived(ex)["protocol_text"]; got != want {
		t.Fatalf("protocol_text = %q, want %q", got, want)
	}
	// Only init's result holds the text, so no other step derives it: what
	// an append leaves out is then all that Derived gives ("*").
	ex.Name = "append"
	if got, ok := acp.Derived(ex)["protocol_text"]; ok {
		t.Fatalf("append derives protocol_text %q, which its result never holds", got)
	}
}
