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
	Name        string            `json:"name"`
	Kind        string            `json:"kind"`
	Description string            `json:"description"`
	Vector      string            `json:"vector"`
	Args        []string          `json:"args"`
	Plans       map[string]string `json:"plans,omitempty"`
	Exit        int               `json:"exit"`
	Stdout      []string          `json:"stdout"`
}

// corpusVector is what the golden answers read of a planner vector.
type corpusVector struct {
	Name     string         `json:"name"`
	Manifest string         `json:"manifest"`
	Task     string         `json:"task"`
	Options  map[string]any `json:"options"`
	flags    []string       // nil when the command line cannot express the options
}

// TestPlanJSONAnswersAreCurrent: every planner vector the kcp-agent
// command line can express has a plan-json answer (cli/<vector>.json), a
// trace-json answer (cli/trace: plan --trace --json) and a replay-json
// answer (cli/replay: replay --json of its plan-json answer's output, the
// plan saved); every distinct corpus manifest a validate-json answer
// (cli/validate, named by the first vector with it); and every two
// expressible vectors over one manifest a diff-json answer (cli/diff:
// diff --json of the first's plan against the other's); and every
// plan-json answer kcp_plan can express a kcp_plan answer
// (mcp/corpus, mcpCorpusAnswers) whose plan is the plan-json one's, and
// every trace-json answer a kcp_trace answer (mcp/corpus/trace) whose
// trace is the trace-json one's. Each answer is
// exactly what the Go planner's command line prints now (go test
// ./suite/kcp -run PlanJSONAnswers -update rewrites them). That they are
// also what kcp-agent prints is what `sifu run --suite kcp --target exec
// --cmd kcp-agent` checks (docs/kcp-runner.md).
func TestPlanJSONAnswersAreCurrent(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(vectorsDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus []corpusVector
	for _, f := range files {
		if filepath.Base(f) == "rules.json" {
			continue
		}
		var v corpusVector
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if flags, err := kcpexec.Flags(v.Task, v.Options); err == nil {
			v.flags = append([]string{}, flags...)
		}
		corpus = append(corpus, v)
	}
	want := map[string]bool{} // the answer files, by path
	record := func(g goldenAnswer, manifest string, files map[string]string) {
		t.Helper()
		res, err := kcpinproc.Reference{}.RunCLI(context.Background(), kcp.CLIRequest{Name: g.Vector, Manifest: manifest, Args: g.Args, Files: files})
		if err != nil {
			t.Fatal(err)
		}
		g.Exit = res.Exit
		for _, l := range kcp.Lines(res.Stdout) {
			g.Stdout = append(g.Stdout, l.(string))
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(g); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(vectorsDir, "cli", kcp.CLIKindDir(g.Kind), g.Name+".json")
		want[file] = true
		switch same, err := kcp.CurrentFile(t, file, buf.Bytes(), *update); {
		case err != nil:
			t.Errorf("%s has no %s answer (go test ./suite/kcp -run PlanJSONAnswers -update): %v", g.Name, g.Kind, err)
		case !same:
			t.Errorf("%s is not what the Go planner's command line prints now; rerun with -update and check the difference against kcp-agent", file)
		}
	}
	plans := map[string]string{}  // a vector's plan --json output
	traces := map[string]string{} // its plan --trace --json output
	expressible := 0
	for _, v := range corpus {
		if v.flags == nil {
			continue
		}
		expressible++
		args := append(append([]string{"plan"}, v.flags...), "--manifest", kcp.ManifestPlaceholder, "--json")
		g := goldenAnswer{Name: v.Name, Kind: "plan-json", Vector: v.Name, Args: args,
			Description: "plan --json over the manifest, task and options of " + v.Name + ": the whole JSON kcp-agent 0.27.0 prints (recorded from the Go planner, which prints the same)"}
		res, err := kcpinproc.Reference{}.RunCLI(context.Background(), kcp.CLIRequest{Name: v.Name, Manifest: v.Manifest, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		plans[v.Name] = res.Stdout
		record(g, v.Manifest, nil)
		trace := append(append([]string{"plan"}, v.flags...), "--manifest", kcp.ManifestPlaceholder, "--trace", "--json")
		tr, err := kcpinproc.Reference{}.RunCLI(context.Background(), kcp.CLIRequest{Name: v.Name, Manifest: v.Manifest, Args: trace})
		if err != nil {
			t.Fatal(err)
		}
		traces[v.Name] = tr.Stdout
		record(goldenAnswer{Name: v.Name, Kind: "trace-json", Vector: v.Name, Args: trace,
			Description: "plan --trace --json over the manifest, task and options of " + v.Name + ": the whole decision trace kcp-agent 0.27.0 prints (recorded from the Go planner, which prints the same)"}, v.Manifest, nil)
		record(goldenAnswer{Name: v.Name, Kind: "replay-json", Vector: v.Name, Args: []string{"replay", kcp.DirPlaceholder + "/plan.json", "--json"},
			Plans:       map[string]string{"plan.json": v.Name},
			Description: "replay --json of " + v.Name + "'s own plan --json output, saved beside its unchanged manifest: identical, exit 0, since replay re-plans from the inputs the plan saved (README: replay; recorded from the Go planner)"},
			v.Manifest, map[string]string{"plan.json": res.Stdout})
	}
	first := map[string]corpusVector{}  // the first vector over each manifest
	firstPlanned := map[string]string{} // the first expressible vector over each manifest
	for _, v := range corpus {
		if _, seen := first[v.Manifest]; !seen {
			first[v.Manifest] = v
			// --as-of pins the date the expired warning is judged at (the
			// README: --as-of is the date of every temporal evaluation),
			// so the answer is the same on every day it is checked.
			asOf, _ := v.Options["asOf"].(string)
			if asOf == "" {
				t.Fatalf("corpus vector %s pins no asOf: its validate answer would change with the day", v.Name)
			}
			record(goldenAnswer{Name: v.Name, Kind: "validate-json", Vector: v.Name, Args: []string{"validate", "--manifest", kcp.ManifestPlaceholder, "--as-of", asOf, "--json"},
				Description: "validate --manifest --as-of --json over the manifest of " + v.Name + " (its unit files absent), at the vector's asOf: the whole report, recorded from the Go planner (kcp-agent 0.27.0 prints the same where no expiry turns on the date)"}, v.Manifest, nil)
		}
		if v.flags == nil {
			continue
		}
		a, seen := firstPlanned[v.Manifest]
		if !seen {
			firstPlanned[v.Manifest] = v.Name
			continue
		}
		record(goldenAnswer{Name: a + "--" + v.Name, Kind: "diff-json", Vector: a, Args: []string{"diff", kcp.DirPlaceholder + "/a.json", kcp.DirPlaceholder + "/b.json", "--json"},
			Plans:       map[string]string{"a.json": a, "b.json": v.Name},
			Description: "diff --json of " + a + "'s plan --json output against " + v.Name + "'s, one manifest planned with other options: the whole comparison kcp-agent 0.27.0 prints (recorded from the Go planner, which prints the same)"},
			v.Manifest, map[string]string{"a.json": plans[a], "b.json": plans[v.Name]})
	}
	if n := mcpCorpusAnswers(t, corpus, planTool, plans); n < 80 {
		t.Errorf("only %d planner vectors with a plan-json answer are expressible over kcp_plan", n)
	}
	if n := mcpCorpusAnswers(t, corpus, traceTool, traces); n < 80 {
		t.Errorf("only %d planner vectors with a trace-json answer are expressible over kcp_trace", n)
	}
	answers, _ := filepath.Glob(filepath.Join(vectorsDir, "cli", "*.json"))
	more, _ := filepath.Glob(filepath.Join(vectorsDir, "cli", "*", "*.json"))
	for _, f := range append(answers, more...) {
		if !want[f] {
			if *update {
				os.Remove(f)
				continue
			}
			t.Errorf("%s answers no command-line-expressible planner vector or corpus manifest", f)
		}
	}
	if expressible < 80 {
		t.Errorf("only %d planner vectors are expressible on the command line", expressible)
	}
	if !slices.ContainsFunc(answers, func(f string) bool { return strings.HasSuffix(f, "budget-greedy-skip.json") }) && !*update {
		t.Error("the answers are missing")
	}
}
