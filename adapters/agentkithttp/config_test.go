package agentkithttp

import (
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// A check's own sources are written after sifu's, their stub URLs placed,
// and an include of [] is written as such (no source's tool), not dropped.
func TestACheckSourcesAndPatternsAreWritten(t *testing.T) {
	stub, err := StartStub("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stub.Close()
	s := agentkit.DefaultSettings()
	s.Sources = []agentkit.Source{{Name: "a.b", Type: "http", Priority: 2, Config: map[string]any{
		"tools": []any{map[string]any{"name": "c", "url": "$TOOLS/c_dot"}, map[string]any{"name": "far", "url": "$NOWHERE/x"}}}}}
	s.Include, s.Exclude = []string{}, []string{"cap://tool/ops/look*"}
	d, err := StubData(stub, "127.0.0.1:1", s)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Render(DefaultTemplates(), d)
	if err != nil {
		t.Fatal(err)
	}
	app, assistant := files["app.yaml"], files["agents/assistant.yaml"]
	for _, want := range []string{`- name: "a.b"`, "priority: 2", `"url":"` + stub.ToolsURL() + `/c_dot"`} {
		if !strings.Contains(app, want) {
			t.Errorf("app.yaml lacks %q:\n%s", want, app)
		}
	}
	if strings.Contains(app, "$NOWHERE") || strings.Contains(app, stub.URL()+"/x") {
		t.Errorf("$NOWHERE is not a loopback URL of its own:\n%s", app)
	}
	for _, want := range []string{"include: []", `exclude: ["cap://tool/ops/look*"]`} {
		if !strings.Contains(assistant, want) {
			t.Errorf("agents/assistant.yaml lacks %q:\n%s", want, assistant)
		}
	}
	if got := checkMade(s); !strings.Contains(got, "the http source a.b") || !strings.Contains(got, "include and exclude") {
		t.Errorf("checkMade = %q", got)
	}
	if got := checkMade(agentkit.DefaultSettings()); got != "" {
		t.Errorf("checkMade of the defaults = %q, want none", got)
	}
}
