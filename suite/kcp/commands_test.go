package kcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/internal/engine"
)

// TestMaterializeWritesTheFilesBesideTheManifest: the files land under
// the manifest's directory with both placeholders placed (JSON-escaped in
// a .json file), the arguments too, and the output has both written back;
// a file outside the directory is refused.
func TestMaterializeWritesTheFilesBesideTheManifest(t *testing.T) {
	req := CLIRequest{Name: "m", Manifest: "project: p\n", Args: []string{"replay", "<dir>/saved/plan.json", "--manifest", "<manifest>"},
		Files: map[string]string{"saved/plan.json": `{"source": "<manifest>", "dir": "<dir>"}`, "docs/a.md": "<dir>"}}
	dir, manifest, args, err := req.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if manifest != filepath.Join(dir, "m.yaml") || args[1] != filepath.Join(dir, "saved", "plan.json") || args[3] != manifest {
		t.Errorf("manifest %s, args %v", manifest, args)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "saved", "plan.json"))
	var doc map[string]string
	if err != nil || json.Unmarshal(raw, &doc) != nil || doc["source"] != manifest || doc["dir"] != dir {
		t.Errorf("plan.json %s (%v)", raw, err)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "docs", "a.md")); string(md) != dir {
		t.Errorf("a.md %q", md)
	}
	if out := Unplace(manifest+" "+dir+"/x "+strings.Trim(string(must(json.Marshal(manifest))), `"`), dir, manifest); out != "<manifest> <dir>/x <manifest>" {
		t.Errorf("unplaced %q", out)
	}
	for _, bad := range []string{"../x", "/etc/x", "a/../../x"} {
		if dir, _, _, err := (CLIRequest{Name: "m", Files: map[string]string{bad: ""}}).Materialize(); err == nil {
			os.RemoveAll(dir)
			t.Errorf("files %q: no error", bad)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestDerivedRebuildsTheJSON: the json member of a cli result is what its
// stdout lines say; a step that does not ask for it derives nothing.
func TestDerivedRebuildsTheJSON(t *testing.T) {
	out := &engine.Outcome{OK: true, Result: map[string]any{"exit": 0.0, "stdout": []any{"{", `  "ok": true`, "}"}}}
	got := Derived(engine.Exchange{Name: "cli", Params: map[string]any{"json": true}, Outcome: out})
	if m, _ := got["json"].(map[string]any); m["ok"] != true {
		t.Errorf("derived %v", got)
	}
	if got := Derived(engine.Exchange{Name: "cli", Params: map[string]any{}, Outcome: out}); got != nil {
		t.Errorf("derived %v without the json param", got)
	}
}

// TestStepVectorsAreCheckedWhole: a vector with steps gives each step its
// own args and exit and nothing beside them; a /files pointer stays inside
// the directory; each step is one cli step of the check, in its session.
func TestStepVectorsAreCheckedWhole(t *testing.T) {
	good := `{"name":"v","kind":"command","rules":["KCP-mem-plan"],"description":"d","manifest":"project: p\n",
		"steps":[{"args":["a"],"exit":0},{"files":{"x":"y"},"args":["b"],"exit":1,"expect":{"/files/mem":{"$len":1},"/text":{"$regex":"x"}}}]}`
	c, err := compileCommand(nil, []byte(good), "vectors/kcp/memory/v.json", "v")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != "kcp/memory/v" || len(c.Steps) != 2 || c.Steps[1].Params["session"] != true || c.Steps[1].Params["manifest"] != "" ||
		c.Steps[0].Params["manifest"] != "project: p\n" || c.Steps[1].Params["text"] != true {
		t.Errorf("compiled %+v", c)
	}
	if read, _ := c.Steps[1].Params["read"].([]any); len(read) != 1 || read[0] != "mem" {
		t.Errorf("read %v", c.Steps[1].Params["read"])
	}
	for name, bad := range map[string]string{
		"args beside steps": `{"name":"v","kind":"command","rules":["R"],"description":"d","manifest":"m","args":[],"steps":[{"args":[],"exit":0}]}`,
		"no exit":           `{"name":"v","kind":"command","rules":["R"],"description":"d","manifest":"m","steps":[{"args":[]}]}`,
		"no manifest":       `{"name":"v","kind":"command","rules":["R"],"description":"d","steps":[{"args":[],"exit":0}]}`,
		"files outside":     `{"name":"v","kind":"command","rules":["R"],"description":"d","manifest":"m","steps":[{"args":[],"exit":0,"expect":{"/files/..":""}}]}`,
	} {
		if _, err := compileCommand(nil, []byte(bad), "vectors/kcp/memory/v.json", "v"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestReadBackNestsTheDirectory: a directory reads back as an object of
// its entries, a file as its text with the paths written back, a missing
// path not at all.
func TestReadBackNestsTheDirectory(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "mem", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "mem", "a.json"), []byte(dir+"/m.yaml"), 0o644)
	os.WriteFile(filepath.Join(dir, "mem", "sub", "b"), []byte("b"), 0o644)
	got, err := readBack(dir, filepath.Join(dir, "m.yaml"), []string{"mem", "gone/x"})
	if err != nil {
		t.Fatal(err)
	}
	mem, _ := got["mem"].(map[string]any)
	sub, _ := mem["sub"].(map[string]any)
	if mem["a.json"] != "<manifest>" || sub["b"] != "b" || got["gone"] != nil {
		t.Errorf("read back %v", got)
	}
}
