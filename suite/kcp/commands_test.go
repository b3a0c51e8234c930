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
