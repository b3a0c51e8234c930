package kcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/schema"
)

// CommandSchema is the JSON Schema of a command vector.
const CommandSchema = "kcp-command.schema.json"

// commandVector is a command vector (sifu's format, kind "command"): one
// kcp-agent command line over a manifest and the files beside it, judged by
// its exit code, its whole output (stdout) and pointers into what it did
// (expect: /exit, /stdout/N, /stderr, /json/… into the output read as JSON,
// /requests: the paths its loopback server was asked for).
type commandVector struct {
	Name        string            `json:"name"`
	Kind        string            `json:"kind"`
	Rules       []string          `json:"rules"`
	Description string            `json:"description"`
	Manifest    string            `json:"manifest"`
	Files       map[string]string `json:"files"`
	Args        []string          `json:"args"`
	Exit        *int              `json:"exit"`
	Stdout      []string          `json:"stdout"`
	Expect      map[string]any    `json:"expect"`
	Server      *LoopbackServer   `json:"server"`
}

// compileCommand compiles a command vector into one cli check.
func compileCommand(schemas *schema.Set, raw []byte, file, stem string) (engine.Check, error) {
	if schemas != nil {
		if err := schemas.Validate(CommandSchema, file, raw); err != nil {
			return engine.Check{}, err
		}
	}
	var v commandVector
	if err := strictly(raw, &v); err != nil {
		return engine.Check{}, fmt.Errorf("%s: not a command vector: %v", file, err)
	}
	switch {
	case v.Name != stem:
		return engine.Check{}, fmt.Errorf("%s: /name is %q; it must equal the file name %q", file, v.Name, stem)
	case len(v.Rules) == 0:
		return engine.Check{}, fmt.Errorf("%s: /rules (the rule IDs the vector evidences) is missing", file)
	case v.Args == nil || v.Exit == nil:
		return engine.Check{}, fmt.Errorf("%s: /args and /exit are required", file)
	}
	for name := range v.Files {
		if clean := path.Clean(name); clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
			return engine.Check{}, fmt.Errorf("%s: /files/%s: a file's path is relative and stays inside the directory", file, name)
		}
	}
	match := []engine.Match{{Pointer: "/result/exit", Matcher: float64(*v.Exit)}}
	for i, line := range v.Stdout {
		match = append(match, engine.Match{Pointer: fmt.Sprintf("/result/stdout/%d", i), Matcher: line})
	}
	if v.Stdout != nil {
		match = append(match, engine.Match{Pointer: "/result/stdout", Matcher: map[string]any{"$len": float64(len(v.Stdout))}})
	}
	parse := false
	for _, ptr := range slices.Sorted(maps.Keys(v.Expect)) {
		top, _, _ := strings.Cut(strings.TrimPrefix(ptr, "/"), "/")
		if !strings.HasPrefix(ptr, "/") || !slices.Contains([]string{"exit", "stdout", "stderr", "json", "requests"}, top) {
			return engine.Check{}, fmt.Errorf("%s: /expect/%s: a pointer starts with /exit, /stdout, /stderr, /json or /requests", file, ptr)
		}
		if top == "requests" && v.Server == nil {
			return engine.Check{}, fmt.Errorf("%s: /expect/%s: /requests are the paths the vector's server was asked for; the vector declares no server", file, ptr)
		}
		parse = parse || top == "json"
		match = append(match, engine.Match{Pointer: "/result" + ptr, Matcher: engine.Normalize(v.Expect[ptr])})
	}
	args := make([]any, len(v.Args))
	for i, a := range v.Args {
		args[i] = a
	}
	params := map[string]any{"name": v.Name, "manifest": v.Manifest, "args": args}
	if len(v.Files) > 0 {
		params["files"] = engine.Normalize(v.Files)
	}
	if parse {
		params["json"] = true
	}
	if v.Server != nil {
		srv, err := serverParam(v.Server, file)
		if err != nil {
			return engine.Check{}, err
		}
		params["server"] = srv
	}
	return engine.Check{
		ID: "kcp/commands/" + stem, Kind: "command", Title: orName(v.Description, v.Name), Source: file,
		Rules: v.Rules, Tags: []string{"cli", "commands"},
		Steps: []engine.Step{{Source: file + "#/expect", Text: strings.Join(v.Args, " "), Op: engine.OpAct, Name: "cli",
			Params: params, Expect: &engine.Expect{Outcome: "ok", Match: match}}},
	}, nil
}

// serverParam checks a vector's loopback server and turns it into step
// parameters (JSON data).
func serverParam(srv *LoopbackServer, file string) (any, error) {
	if len(srv.Routes) == 0 {
		return nil, fmt.Errorf("%s: /server/routes is empty: a loopback server answers at least one path", file)
	}
	for p, r := range srv.Routes {
		if !strings.HasPrefix(p, "/") {
			return nil, fmt.Errorf("%s: /server/routes/%s: a route's path starts with /", file, p)
		}
		if r.Status != 0 && (r.Status < 200 || r.Status > 599) {
			return nil, fmt.Errorf("%s: /server/routes/%s/status %d: not an HTTP status", file, p, r.Status)
		}
	}
	raw, _ := json.Marshal(srv)
	var data any
	_ = json.Unmarshal(raw, &data)
	return data, nil
}

// deriveCommand rebuilds what a cli step's result holds besides the command's
// output: the standard output read as JSON (when the step asks for it),
// so a transcript keeps the output once and a replay judges what the run
// judged.
func deriveCommand(ex engine.Exchange) map[string]any {
	if ex.Name != "cli" || ex.Outcome == nil || ex.Params["json"] != true {
		return nil
	}
	r, ok := engine.Normalize(ex.Outcome.Result).(map[string]any)
	if !ok {
		return nil
	}
	lines, _ := r["stdout"].([]any)
	var b strings.Builder
	for _, l := range lines {
		if s, _ := l.(string); s != NoNewline {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	return map[string]any{"json": engine.Normalize(parsedJSON(b.String()))}
}
