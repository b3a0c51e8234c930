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

// corpusTool is one MCP tool the corpus is recorded over, beside the
// command-line answers it must agree with.
type corpusTool struct {
	tool, dir, cli string   // the tool, its answers' directory, the command-line answers' kind
	rules          []string // the rules its answers evidence
	what           string   // what of the tool's answer the CLI's equals
	// compared is what of the tool's parsed text must equal the CLI's
	// parsed output (both with the manifest's location removed).
	compared func(tree map[string]any) map[string]any
}

var (
	planTool = corpusTool{tool: "kcp_plan", dir: mcpCorpusDir, cli: "plan-json", rules: []string{"KCP-mcp-plan", "KCP-mcp-cli-agree"},
		what: "tree text, whose plan", compared: func(tree map[string]any) map[string]any { p, _ := tree["plan"].(map[string]any); return p }}
	traceTool = corpusTool{tool: "kcp_trace", dir: filepath.Join(mcpCorpusDir, "trace"), cli: "trace-json", rules: []string{"KCP-mcp-trace", "KCP-mcp-cli-agree"},
		what: "trace text, which", compared: func(tree map[string]any) map[string]any { return tree }}
)

// mcpCorpusAnswers records (or, without -update, compares) one check of
// the tool per vector with a command-line answer (cli: its output by
// vector) whose options the tool's arguments can express
// (kcpmcp.Arguments), expecting the whole text the Go port's tool gives.
// It fails unless that text (for kcp_plan, its plan) equals the command
// line's answer but for the manifest's location and the command line's
// schemaVersion and kind: so a target passing both answers gives one
// verdict over MCP and the command line. It returns how many checks it
// recorded.
func mcpCorpusAnswers(t *testing.T, corpus []corpusVector, ct corpusTool, cliOut map[string]string) int {
	t.Helper()
	want := map[string]bool{}
	for _, v := range corpus {
		cli, ok := cliOut[v.Name]
		if !ok {
			continue
		}
		args, err := kcpmcp.Arguments(v.Task, v.Options)
		if err != nil {
			continue // the tool cannot express the options
		}
		args["manifest"] = kcp.DirPlaceholder + "/knowledge.yaml"
		files := map[string]string{"knowledge.yaml": v.Manifest}
		res, err := kcpinproc.Reference{}.CallTool(context.Background(), kcp.ToolCall{Tool: ct.tool, Arguments: args, Files: files})
		if err != nil {
			t.Fatalf("%s: %s: %v", v.Name, ct.tool, err)
		}
		r := kcp.ToolResult(res)
		text, _ := r["text"].(string)
		if r["isError"] == true {
			t.Errorf("%s: %s refused what the command line answered (%s): %.300s", v.Name, ct.tool, ct.cli, text)
			continue
		}
		tree, _ := r["json"].(map[string]any)
		got := ct.compared(tree)
		var cliAnswer map[string]any
		if err := json.Unmarshal([]byte(cli), &cliAnswer); err != nil {
			t.Fatalf("%s: the command line's %s answer is no JSON object: %v", v.Name, ct.cli, err)
		}
		delete(cliAnswer, "schemaVersion")
		delete(cliAnswer, "kind")
		withoutSource(cliAnswer)
		withoutSource(got)
		if got == nil || !reflect.DeepEqual(got, cliAnswer) {
			t.Errorf("%s: %s's answer differs from the command line's %s answer (manifest source, schemaVersion and kind aside):\nmcp: %v\ncli: %v", v.Name, ct.tool, ct.cli, got, cliAnswer)
			continue
		}
		g := mcpGolden{Name: v.Name, Kind: "mcp", Rules: ct.rules, Files: files,
			Description: ct.tool + " over the manifest, task and options of " + v.Name + ": the whole " + ct.what + " is its " + ct.cli + " answer's but for the manifest's location, schemaVersion and kind (the text kcp-agent 0.27.0 answers; recorded from the Go planner, which answers the same)",
			Steps: []mcpGoldenStep{{Call: ct.tool, Arguments: args, Expect: []mcpGoldenMatch{
				{"/isError", false}, {"/content", map[string]any{"$len": 1}}, {"/content/0/type", "text"}, {"/content/0/text", text}}}}}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(g); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(ct.dir, v.Name+".json")
		want[file] = true
		switch same, err := kcp.CurrentFile(t, file, buf.Bytes(), *update); {
		case err != nil:
			t.Errorf("%s has no %s answer (go test ./suite/kcp -run PlanJSONAnswers -update): %v", v.Name, ct.tool, err)
		case !same:
			t.Errorf("%s is not what the Go planner's %s answers now; rerun with -update and check the difference against kcp-agent mcp", file, ct.tool)
		}
	}
	old, _ := filepath.Glob(filepath.Join(ct.dir, "*.json"))
	for _, f := range old {
		if !want[f] {
			if *update {
				os.Remove(f)
				continue
			}
			t.Errorf("%s answers no planner vector with a %s answer that %s can express", f, ct.cli, ct.tool)
		}
	}
	return len(want)
}

// withoutSource removes the manifest's location from a plan, or from the
// plan of a trace.
func withoutSource(answer map[string]any) {
	for _, p := range []any{answer, answer["plan"]} {
		if p, _ := p.(map[string]any); p != nil {
			if m, _ := p["manifest"].(map[string]any); m != nil {
				delete(m, "source")
			}
		}
	}
}
