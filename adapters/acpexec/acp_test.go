package acpexec

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/internal/engine"
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
		`{"commands": {"append": {"argv": ["x", "--p", "{nosuchplaceholder}"]}}}`:            "/commands/append/argv/2: unknown placeholder {nosuchplaceholder}",
		`{"commands": {"validate": {"argv": ["x", "{folder}", "{event}"]}}}`:                 "/commands/validate/argv/2: unknown placeholder {event}",
		`{"commands": {"init": {"argv": ["x"], "each": {"people": ["{item}"]}}}}`:            "/commands/init/each/people",
		`{"commands": {"init": {"argv": ["x"], "each": {"participants": ["{itme}"]}}}}`:      "/commands/init/each/participants/0: unknown placeholder {itme}",
		`{"commands": {"append": {"argv": ["x"], "optional": {"replyto": ["{reply_to}"]}}}}`: "/commands/append/optional/replyto",
		`{"commands": {"append": {"argv": ["x", "{item}"]}}}`:                                "/commands/append/argv/1: unknown placeholder {item}",
		`{"schemas": ["v3"], "commands": {"next": {"argv": ["x"]}}}`:                         `/schemas/0: "v3"`,
	} {
		file := writeConfig(t, text)
		_, err := LoadConfig(file)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) && !strings.Contains(err.Error(), "--target-config") {
			t.Errorf("%s: got %v, want an error naming the file and %q", text, err, want)
		}
	}
}

func TestACPConfigKnowsEveryPlaceholderItFills(t *testing.T) {
	cfg, err := LoadConfig(writeConfig(t, `{"schemas": ["v2"], "commands": {
		"init": {"argv": ["{sifu}", "{config_dir}", "{schema}", "{folder}", "{objective}", "{primary_type}"],
		         "each": {"participants": ["{item}"], "completion": ["{item}"], "primary_checks": ["{item}"]},
		         "optional": {"resume": ["--resume"], "primary_file": ["{primary_file}"], "deliverables_mode": ["{deliverables_mode}"],
		                      "deliverables_dir": ["{deliverables_dir}"], "repo_root": ["{repo_root}"]}},
		"append": {"argv": ["{participant}", "{event}", "{summary}"], "optional": {"doc": ["{doc}"], "reply_to": ["{reply_to}"], "role": ["{role}"], "sha256": ["{sha256}"]}},
		"next": {"argv": ["{participant}"]}, "wait": {"argv": ["{participant}", "{timeout}"]}, "validate": {"argv": ["{folder}"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Schemas, []string{"v2"}) {
		t.Errorf("schemas %v", cfg.Schemas)
	}
	got, _ := cfg.Argv("append", acp.Call{Folder: "/f"}, map[string]string{"participant": "a", "event": "deliverable_frozen", "summary": "s", "role": "primary", "sha256": "ab"}, nil)
	if want := []string{"a", "deliverable_frozen", "s", "primary", "ab"}; !slices.Equal(got, want) {
		t.Errorf("append argv %q, want %q", got, want)
	}
	if cfg, _ := LoadConfig(writeConfig(t, `{"commands": {"next": {"argv": ["x"]}}}`)); !slices.Equal(cfg.Schemas, []string{"v1"}) {
		t.Errorf("the default schema is v1, got %v", cfg.Schemas)
	}
}

func TestACPArgvTemplates(t *testing.T) {
	cfg, err := LoadConfig(writeConfig(t, `{"commands": {
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
