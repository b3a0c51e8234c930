package kcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/schema"
)

// plannerVector is the upstream planner vector format, read as is.
type plannerVector struct {
	Name        string         `json:"name"`
	Spec        string         `json:"spec"`
	Description string         `json:"description"`
	Manifest    *string        `json:"manifest"`
	Task        *string        `json:"task"`
	Options     map[string]any `json:"options"`
	Expect      map[string]any `json:"expect"`
}

// assessVector is the upstream confidence-gate vector format, read as is.
type assessVector struct {
	Name           string         `json:"name"`
	Gate           string         `json:"gate"`
	Spec           string         `json:"spec"`
	Description    string         `json:"description"`
	Task           string         `json:"task"`
	Answer         string         `json:"answer"`
	Units          []any          `json:"units"`
	Options        map[string]any `json:"options"`
	Evaluator      map[string]any `json:"evaluator"`
	EvaluatorError *string        `json:"evaluatorError"`
	Expect         map[string]any `json:"expect"`
	ExpectError    *string        `json:"expectError"`
}

// RuleFor turns a vector's spec layer ("§4.11") into a catalogue rule ID.
func RuleFor(spec string) string {
	return "KCP-" + strings.TrimPrefix(strings.TrimSpace(spec), "§")
}

// CompileVector reads one upstream vector file — a planner vector or an
// assess vector, told apart by shape — and compiles it into one check.
func CompileVector(fsys fs.FS, file string, schemas *schema.Set) ([]engine.Check, error) {
	raw, err := inputfile.ReadFS(fsys, file)
	if err != nil {
		return nil, err
	}
	raw = inputfile.Text(raw)
	var shape map[string]json.RawMessage
	if err := json.Unmarshal(raw, &shape); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object: %v", file, err)
	}
	stem := strings.TrimSuffix(path.Base(file), path.Ext(file))
	var c engine.Check
	switch {
	case string(shape["gate"]) == `"confidence"`:
		c, err = compileAssess(raw, file, stem)
	case cliKinds[kindOf(shape)].dir != "" || kindOf(shape) == "plan-json":
		c, err = compilePlanJSON(fsys, raw, file, stem)
	case string(shape["kind"]) == `"mcp"`:
		// The corpus's kcp_plan answers are not run again over serve's
		// /mcp: a hundred more serve starts for one tool's transport.
		if c, err = compileMCP(raw, file, stem); err == nil && !strings.HasPrefix(c.ID, "kcp/mcp/corpus/") {
			return []engine.Check{c, serveTwin(c)}, nil
		}
	case string(shape["kind"]) == `"serve"`:
		c, err = compileServe(schemas, raw, file, stem)
	case string(shape["kind"]) == `"command"`:
		c, err = compileCommand(schemas, raw, file, stem)
	case shape["manifest"] != nil:
		c, err = compilePlanner(raw, file, stem)
	default:
		return nil, fmt.Errorf("%s: unknown vector shape: a planner vector has name, spec, manifest, task, options and expect; an assess vector has gate \"confidence\"; a golden command-line answer has kind \"plan-json\", \"trace-json\", \"validate-json\", \"replay-json\" or \"diff-json\"; an mcp check has kind \"mcp\"; a serve check has kind \"serve\"; a command vector has kind \"command\"", file)
	}
	if err != nil {
		return nil, err
	}
	return []engine.Check{c}, nil
}

func strictly(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func compilePlanner(raw []byte, file, stem string) (engine.Check, error) {
	var v plannerVector
	if err := strictly(raw, &v); err != nil {
		return engine.Check{}, fmt.Errorf("%s: not a planner vector: %v", file, err)
	}
	switch {
	case v.Name != stem:
		return engine.Check{}, fmt.Errorf("%s: /name is %q; it must equal the file name %q", file, v.Name, stem)
	case v.Spec == "":
		return engine.Check{}, fmt.Errorf("%s: /spec (the spec layer, e.g. \"§4.11\") is missing", file)
	case v.Task == nil:
		return engine.Check{}, fmt.Errorf("%s: /task is missing", file)
	case v.Expect == nil:
		return engine.Check{}, fmt.Errorf("%s: /expect (the VectorOutcome) is missing", file)
	}
	params := map[string]any{"name": v.Name, "manifest": *v.Manifest, "task": *v.Task, "options": orEmpty(v.Options)}
	reasons, err := expectsReasons(v.Expect)
	if err != nil {
		return engine.Check{}, fmt.Errorf("%s: %v", file, err)
	}
	if reasons {
		params["reasons"] = true
	}
	if expectsGovernance(v.Expect) {
		params["governance"] = true
	}
	return engine.Check{
		ID: "kcp/" + stem, Kind: "vector", Title: orName(v.Description, v.Name), Source: file,
		Rules: []string{RuleFor(v.Spec)}, Tags: []string{"planner"},
		Steps: []engine.Step{{Source: file + "#/expect", Text: "plan " + v.Name, Op: engine.OpAct, Name: "plan",
			Params: engine.Normalize(params).(map[string]any),
			Expect: &engine.Expect{Outcome: "ok", Match: []engine.Match{{Pointer: "/result", Matcher: engine.Normalize(v.Expect)}}}}},
	}, nil
}

// expectsReasons reports whether a planner vector's selected units carry
// their reasons (sifu's extension of the outcome); then every one must.
func expectsReasons(expect map[string]any) (bool, error) {
	selected, _ := expect["selected"].([]any)
	with := 0
	for _, e := range selected {
		if m, ok := e.(map[string]any); ok {
			if _, ok := m["reasons"]; ok {
				with++
			}
		}
	}
	if with > 0 && with != len(selected) {
		return false, fmt.Errorf("/expect/selected: %d of %d units give their reasons; give them for every selected unit or for none", with, len(selected))
	}
	return with > 0, nil
}

// expectsGovernance reports whether a planner vector gives any unit's
// governance blocks (sifu's extension of the outcome); then they are
// compared on every unit, absent where the plan has none.
func expectsGovernance(expect map[string]any) bool {
	for _, list := range []string{"selected", "skipped"} {
		entries, _ := expect[list].([]any)
		for _, e := range entries {
			m, _ := e.(map[string]any)
			for _, k := range GovernanceKeys {
				if _, ok := m[k]; ok {
					return true
				}
			}
		}
	}
	return false
}

// planJSONAnswer is a golden answer: what a kcp-agent style command line
// prints for one planner vector's manifest (sifu's own format). Plans
// are files written beside the manifest before the command runs, each the
// output of the plan-json answer named (a saved plan to replay, two plans
// to diff).
type planJSONAnswer struct {
	Name        string            `json:"name"`
	Kind        string            `json:"kind"`
	Description string            `json:"description"`
	Vector      string            `json:"vector"`
	Args        []string          `json:"args"`
	Plans       map[string]string `json:"plans"`
	Exit        *int              `json:"exit"`
	Stdout      []string          `json:"stdout"`
}

// PlanJSONRule is the rule a plan-json answer evidences.
const PlanJSONRule = "KCP-plan-json"

// cliKind is a kind of golden answer besides plan-json: the directory
// under cli/ its answers live in (their checks are kcp/cli/<dir>/<name>),
// the rules its whole output evidences and the command it runs.
type cliKind struct {
	dir     string
	rules   []string
	command string
}

// cliKinds are the golden answers of kcp-agent's other JSON outputs over
// the corpus manifests.
var cliKinds = map[string]cliKind{
	"trace-json":    {"trace", []string{"KCP-cmd-trace", "KCP-cmd-envelope"}, "plan --trace --json"},
	"validate-json": {"validate", []string{"KCP-cmd-validate"}, "validate --json"},
	"replay-json":   {"replay", []string{"KCP-cmd-replay"}, "replay --json"},
	"diff-json":     {"diff", []string{"KCP-cmd-diff"}, "diff --json"},
}

// CLIKindDir is the directory under vectors/<suite>/cli that a kind of
// golden answer lives in ("" for plan-json, whose answers are cli/*.json).
func CLIKindDir(kind string) string { return cliKinds[kind].dir }

func kindOf(shape map[string]json.RawMessage) string {
	var k string
	_ = json.Unmarshal(shape["kind"], &k)
	return k
}

// compilePlanJSON compiles a golden answer into a cli check: write the
// plans it names, run the arguments over the planner vector's manifest
// and compare the exit code and every line of the output.
func compilePlanJSON(fsys fs.FS, raw []byte, file, stem string) (engine.Check, error) {
	var v planJSONAnswer
	if err := strictly(raw, &v); err != nil {
		return engine.Check{}, fmt.Errorf("%s: not a golden command-line answer: %v", file, err)
	}
	kind, other := cliKinds[v.Kind]
	root, id, rules, text := path.Dir(path.Dir(file)), "kcp/cli/"+stem, []string{PlanJSONRule}, "plan --json "+v.Vector
	if other {
		if dir := path.Dir(file); path.Base(dir) != kind.dir || path.Base(path.Dir(dir)) != "cli" {
			return engine.Check{}, fmt.Errorf("%s: a %s answer lives in cli/%s/", file, v.Kind, kind.dir)
		}
		root, id, rules, text = path.Dir(path.Dir(path.Dir(file))), "kcp/cli/"+kind.dir+"/"+stem, kind.rules, kind.command+" "+stem
	} else if v.Plans != nil {
		return engine.Check{}, fmt.Errorf("%s: /plans: a plan-json answer plans its own manifest; it writes no plans", file)
	}
	switch {
	case v.Name != stem:
		return engine.Check{}, fmt.Errorf("%s: /name is %q; it must equal the file name %q", file, v.Name, stem)
	case v.Vector == "":
		return engine.Check{}, fmt.Errorf("%s: /vector (the planner vector whose manifest is planned) is missing", file)
	case len(v.Args) == 0 || v.Exit == nil || v.Stdout == nil:
		return engine.Check{}, fmt.Errorf("%s: /args, /exit and /stdout are required", file)
	}
	if err := insideDir(file, "/plans", v.Plans); err != nil {
		return engine.Check{}, err
	}
	vf := path.Join(root, v.Vector+".json")
	vraw, err := inputfile.ReadFS(fsys, vf)
	if err != nil {
		return engine.Check{}, fmt.Errorf("%s: /vector %q: %v", file, v.Vector, err)
	}
	var pv plannerVector
	if err := json.Unmarshal(inputfile.Text(vraw), &pv); err != nil || pv.Manifest == nil {
		return engine.Check{}, fmt.Errorf("%s: /vector %q is not a planner vector", file, v.Vector)
	}
	args := make([]any, len(v.Args))
	for i, a := range v.Args {
		args[i] = a
	}
	match := []engine.Match{{Pointer: "/result/exit", Matcher: float64(*v.Exit)}}
	for i, line := range v.Stdout {
		match = append(match, engine.Match{Pointer: fmt.Sprintf("/result/stdout/%d", i), Matcher: line})
	}
	match = append(match, engine.Match{Pointer: "/result/stdout", Matcher: map[string]any{"$len": float64(len(v.Stdout))}})
	params := map[string]any{"name": v.Vector, "manifest": *pv.Manifest, "args": args}
	if len(v.Plans) > 0 {
		files := map[string]any{}
		for name, answer := range v.Plans {
			plan, err := planAnswerOutput(fsys, path.Join(root, "cli", answer+".json"))
			if err != nil {
				return engine.Check{}, fmt.Errorf("%s: /plans/%s: %v", file, name, err)
			}
			files[name] = plan
		}
		params["files"] = files
	}
	return engine.Check{
		ID: id, Kind: v.Kind, Title: orName(v.Description, v.Name), Source: file,
		Rules: rules, Tags: []string{"cli"},
		Steps: []engine.Step{{Source: file + "#/stdout", Text: text, Op: engine.OpAct, Name: "cli",
			Params: params, Expect: &engine.Expect{Outcome: "ok", Match: match}}},
	}, nil
}

// planAnswerOutput is the whole output a plan-json answer records.
func planAnswerOutput(fsys fs.FS, file string) (string, error) {
	raw, err := inputfile.ReadFS(fsys, file)
	if err != nil {
		return "", err
	}
	var a planJSONAnswer
	if err := json.Unmarshal(inputfile.Text(raw), &a); err != nil || a.Kind != "plan-json" {
		return "", fmt.Errorf("%s is not a plan-json answer", file)
	}
	lines := make([]any, len(a.Stdout))
	for i, l := range a.Stdout {
		lines[i] = l
	}
	return joinLines(lines), nil
}

func compileAssess(raw []byte, file, stem string) (engine.Check, error) {
	var v assessVector
	if err := strictly(raw, &v); err != nil {
		return engine.Check{}, fmt.Errorf("%s: not an assess vector: %v", file, err)
	}
	switch {
	case v.Name != stem:
		return engine.Check{}, fmt.Errorf("%s: /name is %q; it must equal the file name %q", file, v.Name, stem)
	case (v.Expect == nil) == (v.ExpectError == nil):
		return engine.Check{}, fmt.Errorf("%s: an assess vector has exactly one of /expect and /expectError", file)
	}
	spec := v.Spec
	if spec == "" {
		spec = "§confidence-gate"
	}
	params := map[string]any{"task": v.Task, "answer": v.Answer, "units": orList(v.Units), "options": orEmpty(v.Options)}
	if v.Evaluator != nil {
		params["evaluator"] = v.Evaluator
	}
	if v.EvaluatorError != nil {
		params["evaluatorError"] = *v.EvaluatorError
	}
	step := engine.Step{Source: file, Text: "assess " + v.Name, Op: engine.OpAct, Name: "assess", Params: engine.Normalize(params).(map[string]any)}
	if v.ExpectError != nil {
		step.Expect = &engine.Expect{Outcome: "rejected", Match: []engine.Match{{Pointer: "/rejection/message", Matcher: map[string]any{"$contains": *v.ExpectError}}}}
	} else {
		step.Expect = &engine.Expect{Outcome: "ok", Match: []engine.Match{{Pointer: "/result", Matcher: engine.Normalize(v.Expect)}}}
	}
	return engine.Check{ID: "kcp/assess/" + stem, Kind: "vector", Title: orName(v.Description, v.Name), Source: file,
		Rules: []string{RuleFor(spec)}, Tags: []string{"assess"}, Steps: []engine.Step{step}}, nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func orList(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

func orName(desc, name string) string {
	if desc != "" {
		return desc
	}
	return name
}

// mcpVector is a check on a planner's MCP server (sifu's own format): the
// files a call's directory holds and the steps, each listing the tools or
// calling one, with matchers over the step's result (see executeMCP) and
// captures for later steps.
type mcpVector struct {
	Name        string            `json:"name"`
	Kind        string            `json:"kind"`
	Description string            `json:"description"`
	Rules       []string          `json:"rules"`
	Files       map[string]string `json:"files"`
	Steps       []mcpStep         `json:"steps"`
	Server      *LoopbackServer   `json:"server"`
}

type mcpStep struct {
	Tools     bool              `json:"tools"`
	Call      string            `json:"call"`
	Arguments map[string]any    `json:"arguments"`
	Files     map[string]string `json:"files"`
	Capture   map[string]string `json:"capture"`
	Expect    []engine.Match    `json:"expect"`
}

// compileMCP compiles an MCP check; its pointers are relative to the
// step's result.
func compileMCP(raw []byte, file, stem string) (engine.Check, error) {
	var v mcpVector
	if err := strictly(raw, &v); err != nil {
		return engine.Check{}, fmt.Errorf("%s: not an mcp check: %v", file, err)
	}
	switch {
	case v.Name != stem:
		return engine.Check{}, fmt.Errorf("%s: /name is %q; it must equal the file name %q", file, v.Name, stem)
	case len(v.Rules) == 0:
		return engine.Check{}, fmt.Errorf("%s: /rules (the rule IDs the check evidences) is missing", file)
	case len(v.Steps) == 0:
		return engine.Check{}, fmt.Errorf("%s: /steps is empty", file)
	}
	var steps []engine.Step
	for i, s := range v.Steps {
		src := fmt.Sprintf("%s#/steps/%d", file, i)
		if s.Tools == (s.Call != "") {
			return engine.Check{}, fmt.Errorf("%s: a step has exactly one of tools (true) and call (a tool name)", src)
		}
		step, err := compileMCPStep(src, file, s, v.Files, v.Server)
		if err != nil {
			return engine.Check{}, err
		}
		steps = append(steps, step)
	}
	id := "kcp/mcp/" + stem
	switch dir := path.Dir(file); {
	case path.Base(dir) == "corpus":
		id = "kcp/mcp/corpus/" + stem // a planner vector's kcp_plan answer
	case path.Base(dir) == "trace" && path.Base(path.Dir(dir)) == "corpus":
		id = "kcp/mcp/corpus/trace/" + stem // its kcp_trace answer
	}
	return engine.Check{ID: id, Kind: "mcp", Title: orName(v.Description, v.Name), Source: file,
		Rules: v.Rules, Tags: []string{"mcp"}, Steps: steps}, nil
}

// compileMCPStep compiles one step listing or calling the tools; files
// are the check's, unless the step has its own, and a call has the
// check's loopback server, if it declares one.
func compileMCPStep(src, file string, s mcpStep, files map[string]string, server *LoopbackServer) (engine.Step, error) {
	if s.Tools {
		return stepWith(src, s, "mcp_tools", "tools/list", map[string]any{})
	}
	if s.Files != nil {
		files = s.Files
	}
	params := map[string]any{"tool": s.Call, "arguments": orEmpty(s.Arguments)}
	if files != nil {
		fm := map[string]any{}
		for k, t := range files {
			fm[k] = t
		}
		params["files"] = fm
	}
	if server != nil {
		srv, err := serverParam(server, file)
		if err != nil {
			return engine.Step{}, err
		}
		params["server"] = srv
	}
	return stepWith(src, s, "mcp_call", "tools/call "+s.Call, engine.Normalize(params).(map[string]any))
}

// stepWith is a step of the given name and parameters, with the step's
// matchers and captures, whose pointers are relative to its result.
func stepWith(src string, s mcpStep, name, text string, params map[string]any) (engine.Step, error) {
	if len(s.Expect) == 0 {
		return engine.Step{}, fmt.Errorf("%s/expect: a step must expect something, or it cannot fail", src)
	}
	var match []engine.Match
	for j, m := range s.Expect {
		if m.Pointer != "" && !strings.HasPrefix(m.Pointer, "/") {
			return engine.Step{}, fmt.Errorf("%s/expect/%d/pointer %q: a JSON pointer starts with /", src, j, m.Pointer)
		}
		match = append(match, engine.Match{Pointer: "/result" + m.Pointer, Matcher: engine.Normalize(m.Matcher)})
	}
	step := engine.Step{Source: src, Op: engine.OpAct, Name: name, Text: text, Params: params, Expect: &engine.Expect{Outcome: "ok", Match: match}}
	if len(s.Capture) > 0 {
		step.Capture = map[string]string{}
		for k, p := range s.Capture {
			step.Capture[k] = "/result" + p
		}
	}
	return step, nil
}
