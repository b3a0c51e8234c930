package kcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sifu-dev/sifu/adapters/kcpinproc"
	"github.com/sifu-dev/sifu/adapters/kcpmcp"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// mcpCorpusDir holds the MCP twins of the plan-json answers.
var mcpCorpusDir = filepath.Join(vectorsDir, "mcp", "corpus")

// mcpGolden is an mcp check (compileMCP's format) with its keys in the
// order they are written.
type mcpGolden struct {
	Name        string            `json:"name"`
	Kind        string            `json:"kind"`
	Description string            `json:"description"`
	Rules       []string          `json:"rules"`
	Files       map[string]string `json:"files"`
	Steps       []mcpGoldenStep   `json:"steps"`
}

type mcpGoldenStep struct {
	Call      string           `json:"call"`
	Arguments map[string]any   `json:"arguments"`
	Expect    []mcpGoldenMatch `json:"expect"`
}

type mcpGoldenMatch struct {
	Pointer string `json:"pointer"`
	Matcher any    `json:"matcher"`
}

// mcpCorpusAnswers records (or, without -update, compares) one kcp_plan
// check per vector with a plan-json answer whose options kcp_plan can
// express (kcpmcp.Arguments), expecting the whole text the Go port's
// kcp_plan gives. It fails unless that text's plan equals the plan-json
// answer's (cliPlans: the plan --json output by vector) but for the
// manifest's location and the command line's schemaVersion and kind: so a
// target passing both answers gives one verdict over MCP and the command
// line. It returns how many checks it recorded.
func mcpCorpusAnswers(t *testing.T, corpus []corpusVector, cliPlans map[string]string) int {
	t.Helper()
	want := map[string]bool{}
	for _, v := range corpus {
		cli, ok := cliPlans[v.Name]
		if !ok {
			continue
		}
		args, err := kcpmcp.Arguments(v.Task, v.Options)
		if err != nil {
			continue // kcp_plan cannot express the options
		}
		args["manifest"] = kcp.DirPlaceholder + "/knowledge.yaml"
		files := map[string]string{"knowledge.yaml": v.Manifest}
		res, err := kcpinproc.Reference{}.CallTool(context.Background(), kcp.ToolCall{Tool: "kcp_plan", Arguments: args, Files: files})
		if err != nil {
			t.Fatalf("%s: kcp_plan: %v", v.Name, err)
		}
		r := kcp.ToolResult(res)
		text, _ := r["text"].(string)
		if r["isError"] == true {
			t.Errorf("%s: kcp_plan refused what plan --json planned: %.300s", v.Name, text)
			continue
		}
		tree, _ := r["json"].(map[string]any)
		mcpPlan, _ := tree["plan"].(map[string]any)
		var cliPlan map[string]any
		if err := json.Unmarshal([]byte(cli), &cliPlan); err != nil {
			t.Fatalf("%s: plan --json printed no JSON object: %v", v.Name, err)
		}
		delete(cliPlan, "schemaVersion")
		delete(cliPlan, "kind")
		for _, p := range []map[string]any{cliPlan, mcpPlan} {
			if m, _ := p["manifest"].(map[string]any); m != nil {
				delete(m, "source")
			}
		}
		if mcpPlan == nil || !reflect.DeepEqual(mcpPlan, cliPlan) {
			t.Errorf("%s: kcp_plan's plan differs from plan --json's (manifest source, schemaVersion and kind aside):\nmcp: %v\ncli: %v", v.Name, mcpPlan, cliPlan)
			continue
		}
		g := mcpGolden{Name: v.Name, Kind: "mcp", Rules: []string{"KCP-mcp-plan", "KCP-mcp-cli-agree"}, Files: files,
			Description: "kcp_plan over the manifest, task and options of " + v.Name + ": the whole tree text kcp-agent 0.27.0 answers (recorded from the Go planner, which answers the same), whose plan is its plan-json answer's (cli/" + v.Name + ".json) but for the manifest's location, schemaVersion and kind",
			Steps: []mcpGoldenStep{{Call: "kcp_plan", Arguments: args, Expect: []mcpGoldenMatch{
				{"/isError", false}, {"/content", map[string]any{"$len": 1}}, {"/content/0/type", "text"}, {"/text", text}}}}}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(g); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(mcpCorpusDir, v.Name+".json")
		want[file] = true
		if *update {
			if err := os.MkdirAll(mcpCorpusDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s has no kcp_plan answer (go test ./suite/kcp -run PlanJSONAnswers -update): %v", v.Name, err)
			continue
		}
		if !bytes.Equal(have, buf.Bytes()) {
			t.Errorf("%s is not what the Go planner's kcp_plan answers now; rerun with -update and check the difference against kcp-agent mcp", file)
		}
	}
	old, _ := filepath.Glob(filepath.Join(mcpCorpusDir, "*.json"))
	for _, f := range old {
		if !want[f] {
			if *update {
				os.Remove(f)
				continue
			}
			t.Errorf("%s answers no planner vector with a plan-json answer that kcp_plan can express", f)
		}
	}
	return len(want)
}
