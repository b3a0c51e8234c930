package kcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/adapters/kcpexec"
	"github.com/sifu-dev/sifu/adapters/kcpinproc"
	"github.com/sifu-dev/sifu/suite/kcp"
)

var update = flag.Bool("update", false, "rewrite vectors/kcp/cli from the Go planner's command line")

const vectorsDir = "../../vectors/kcp"

// goldenAnswer is the file format of vectors/kcp/cli (compiled by
// compilePlanJSON), with its keys in the order they are written.
type goldenAnswer struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	Description string   `json:"description"`
	Vector      string   `json:"vector"`
	Args        []string `json:"args"`
	Exit        int      `json:"exit"`
	Stdout      []string `json:"stdout"`
}

// TestPlanJSONAnswersAreCurrent: every planner vector the kcp-agent
// command line can express has a plan-json answer, and each answer is
// exactly what the Go planner's command line prints now (go test
// ./suite/kcp -run PlanJSONAnswers -update rewrites them). That they are
// also what kcp-agent prints is what `sifu run --suite kcp --target exec
// --cmd kcp-agent` checks (docs/kcp-runner.md).
func TestPlanJSONAnswersAreCurrent(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(vectorsDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, f := range files {
		if filepath.Base(f) == "rules.json" {
			continue
		}
		var v struct {
			Name     string         `json:"name"`
			Manifest string         `json:"manifest"`
			Task     string         `json:"task"`
			Options  map[string]any `json:"options"`
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		flags, err := kcpexec.Flags(v.Task, v.Options)
		if err != nil {
			continue // not expressible on the command line
		}
		want[v.Name] = true
		args := append(append([]string{"plan"}, flags...), "--manifest", kcp.ManifestPlaceholder, "--json")
		res, err := kcpinproc.Reference{}.RunCLI(context.Background(), kcp.CLIRequest{Name: v.Name, Manifest: v.Manifest, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range kcp.Lines(res.Stdout) {
			lines = append(lines, l.(string))
		}
		g := goldenAnswer{Name: v.Name, Kind: "plan-json", Vector: v.Name, Args: args, Exit: res.Exit, Stdout: lines,
			Description: "plan --json over the manifest, task and options of " + v.Name + ": the whole JSON kcp-agent 0.27.0 prints (recorded from the Go planner, which prints the same)"}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(g); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(vectorsDir, "cli", v.Name+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s has no plan-json answer (go test ./suite/kcp -run PlanJSONAnswers -update): %v", v.Name, err)
			continue
		}
		if !bytes.Equal(have, buf.Bytes()) {
			t.Errorf("%s is not what the Go planner's command line prints now; rerun with -update and check the difference against kcp-agent", file)
		}
	}
	answers, _ := filepath.Glob(filepath.Join(vectorsDir, "cli", "*.json"))
	for _, f := range answers {
		if name := strings.TrimSuffix(filepath.Base(f), ".json"); !want[name] {
			if *update {
				os.Remove(f)
				continue
			}
			t.Errorf("%s answers no command-line-expressible planner vector", f)
		}
	}
	if len(want) < 80 {
		t.Errorf("only %d planner vectors are expressible on the command line", len(want))
	}
	if !slices.ContainsFunc(answers, func(f string) bool { return strings.HasSuffix(f, "budget-greedy-skip.json") }) && !*update {
		t.Error("the answers are missing")
	}
}
