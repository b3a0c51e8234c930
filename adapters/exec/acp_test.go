package exec

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/engine"
	"github.com/sifu-dev/sifu/suite/acp"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "target.json")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestACPConfigErrorsNameTheField(t *testing.T) {
	for text, want := range map[string]string{
		`{`:                "not an ACP target config",
		`{"commands": {}}`: "/commands is empty",
		`{"commands": {"plan": {"argv": ["x"]}}}`:                       "/commands/plan is not a tool",
		`{"commands": {"next": {"argv": []}}}`:                          "/commands/next/argv is empty",
		`{"profiles": ["full"], "commands": {"next": {"argv": ["x"]}}}`: `/profiles: "full"`,
		`{"comands": {}}`: "unknown field",
	} {
		file := writeConfig(t, text)
		_, err := LoadACPConfig(file)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) && !strings.Contains(err.Error(), "--target-config") {
			t.Errorf("%s: got %v, want an error naming the file and %q", text, err, want)
		}
	}
}

func TestACPArgvTemplates(t *testing.T) {
	cfg, err := LoadACPConfig(writeConfig(t, `{"commands": {
		"init": {"argv": ["{sifu}", "init", "--folder", "{folder}", "--objective", "{objective}"],
		         "each": {"participants": ["--participant", "{item}"], "completion": ["--completion", "{item}"]},
		         "optional": {"resume": ["--resume"]}},
		"append": {"argv": ["tool", "--summary={summary}"], "optional": {"reply_to": ["--reply-to", "{reply_to}"], "doc": ["--doc", "{doc}"]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.WithSelf("/bin/sifu")
	got, _ := cfg.Argv("init", acp.Call{Folder: "/f"}, map[string]string{"objective": "o"}, map[string][]string{"participants": {"a", "b"}, "completion": {"g"}})
	want := []string{"/bin/sifu", "init", "--folder", "/f", "--objective", "o", "--completion", "g", "--participant", "a", "--participant", "b"}
	if !slices.Equal(got, want) {
		t.Errorf("init argv %q, want %q", got, want)
	}
	got, _ = cfg.Argv("append", acp.Call{Folder: "/f"}, map[string]string{"summary": "it's {odd} {folder}", "reply_to": "3"}, nil)
	if want := []string{"tool", "--summary=it's {odd} {folder}", "--reply-to", "3"}; !slices.Equal(got, want) {
		t.Errorf("append argv %q, want %q", got, want)
	}
	if _, err := cfg.Argv("wait", acp.Call{}, nil, nil); !errors.Is(err, engine.ErrUnsupported) {
		t.Errorf("a tool without a command must be unsupported (untestable), got %v", err)
	}
}
