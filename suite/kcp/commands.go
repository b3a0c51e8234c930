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
// /files/<path> into what the directory holds after it, /server/requests
// the requests its loopback server served); or an ordered
// list of steps, each such a command line, run one after another in one
// directory (a memory directory, a scaffolded manifest carry over).
type commandVector struct {
	Name        string            `json:"name"`
	Kind        string            `json:"kind"`
	Rules       []string          `json:"rules"`
	Description string            `json:"description"`
	Manifest    string            `json:"manifest"`
	Files       map[string]string `json:"files"`
	// Server is a loopback HTTP server started for each command line
	// (<server> its base URL): path → {status, type, redirect, body, size,
	// streamed}; what it served is at /server/requests.
	Server *LoopbackServer `json:"server"`
	commandStep
	Steps []commandStep `json:"steps"`
	// Model and Rerun are the ask profile's (ask.go, askvector.go).
	Model *ModelScript  `json:"model"`
	Rerun []rerunVector `json:"rerun"`
}

// commandStep is one command line of a command vector; a step's manifest
// and files are written before it runs (over what earlier steps left).
type commandStep struct {
	Manifest *string           `json:"manifest,omitempty"`
	Files    map[string]string `json:"files,omitempty"`
	Args     []string          `json:"args"`
	Exit     *int              `json:"exit"`
	Stdout   []string          `json:"stdout"`
	Expect   map[string]any    `json:"expect"`
	// Background, Until and Stop make a step of a command that keeps
	// running (watchvector.go).
	Background bool    `json:"background,omitempty"`
	Until      *string `json:"until,omitempty"`
	Stop       bool    `json:"stop,omitempty"`
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
	case v.Steps != nil && (v.Args != nil || v.Exit != nil || v.Stdout != nil || v.Expect != nil || v.commandStep.Manifest != nil || v.commandStep.Files != nil):
		return engine.Check{}, fmt.Errorf("%s: a vector with /steps gives args, exit, stdout and expect in each step, not beside them", file)
	case v.Steps != nil && len(v.Steps) == 0:
		return engine.Check{}, fmt.Errorf("%s: /steps is empty", file)
	case v.Steps != nil && v.Manifest == "":
		return engine.Check{}, fmt.Errorf("%s: /manifest: a vector with steps writes its manifest before the first step; give its text", file)
	case v.Steps == nil && (v.Args == nil || v.Exit == nil):
		return engine.Check{}, fmt.Errorf("%s: /args and /exit are required", file)
	}
	if err := insideDir(file, "/files", v.Files); err != nil {
		return engine.Check{}, err
	}
	session := v.Steps != nil
	steps := v.Steps
	if steps == nil {
		steps = []commandStep{v.commandStep}
		for ptr := range v.Expect {
			session = session || ptr == "/files" || strings.HasPrefix(ptr, "/files/")
		}
	}
	check := engine.Check{ID: "kcp/" + commandProfile(file) + "/" + stem, Kind: "command", Title: orName(v.Description, v.Name), Source: file,
		Rules: v.Rules, Tags: []string{"cli", commandProfile(file)}}
	if (v.Model != nil || v.Rerun != nil) && !slices.Contains(check.Tags, "ask") {
		check.Tags = append(check.Tags, "ask") // a scripted model is the ask profile's, wherever the vector is
	}
	running := false // a background step's command is running
	for i, st := range steps {
		where := "/"
		if v.Steps != nil {
			where = fmt.Sprintf("/steps/%d/", i)
		}
		if st.Background || st.Until != nil || st.Stop || running {
			step, err := backgroundStepOf(file, where, v, st, i, &running)
			if err != nil {
				return engine.Check{}, err
			}
			check.Steps = append(check.Steps, step)
			continue
		}
		switch {
		case st.Args == nil || st.Exit == nil:
			return engine.Check{}, fmt.Errorf("%s: %sargs and %sexit are required", file, where, where)
		case st.Manifest != nil && *st.Manifest == "":
			return engine.Check{}, fmt.Errorf("%s: %smanifest: a step's manifest replaces the check's; give its text", file, where)
		}
		if err := insideDir(file, where+"files", st.Files); err != nil {
			return engine.Check{}, err
		}
		step, err := commandStepOf(file, where, v, st, i, session)
		if err != nil {
			return engine.Check{}, err
		}
		check.Steps = append(check.Steps, step)
	}
	if !session {
		check.Steps[0].Source = file + "#/expect"
	}
	return check, nil
}

// commandProfile is the profile a command vector's directory names
// (vectors/kcp/memory → memory); the first command vectors, in
// vectors/kcp/commands, are the commands profile.
func commandProfile(file string) string {
	if dir := path.Base(path.Dir(file)); dir != "commands" && dir != "." && dir != "/" {
		return dir
	}
	return "commands"
}

func insideDir(file, where string, files map[string]string) error {
	for name := range files {
		if clean := path.Clean(name); clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
			return fmt.Errorf("%s: %s/%s: a file's path is relative and stays inside the directory", file, where, name)
		}
	}
	return nil
}

// commandStepOf compiles one command line of a vector into a cli step; in
// a session the step runs in the check's directory and reads back the
// paths its /files pointers name.
func commandStepOf(file, where string, v commandVector, st commandStep, i int, session bool) (engine.Step, error) {
	match := []engine.Match{{Pointer: "/result/exit", Matcher: float64(*st.Exit)}}
	for i, line := range st.Stdout {
		match = append(match, engine.Match{Pointer: fmt.Sprintf("/result/stdout/%d", i), Matcher: line})
	}
	if st.Stdout != nil {
		match = append(match, engine.Match{Pointer: "/result/stdout", Matcher: map[string]any{"$len": float64(len(st.Stdout))}})
	}
	parse, text := false, false
	var read []any
	for _, ptr := range slices.Sorted(maps.Keys(st.Expect)) {
		top, rest, _ := strings.Cut(strings.TrimPrefix(ptr, "/"), "/")
		if !strings.HasPrefix(ptr, "/") || !slices.Contains([]string{"exit", "stdout", "stderr", "json", "text", "files", "server", "model"}, top) {
			return engine.Step{}, fmt.Errorf("%s: %sexpect/%s: a pointer starts with /exit, /stdout, /stderr, /json, /text, /files, /server or /model", file, where, ptr)
		}
		if top == "files" {
			p := strings.ReplaceAll(strings.ReplaceAll(rest, "~1", "/"), "~0", "~")
			if clean := path.Clean(p); rest == "" || clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
				return engine.Step{}, fmt.Errorf("%s: %sexpect/%s: /files/ names a path inside the directory (a~1b for a/b in one segment, or a/b)", file, where, ptr)
			}
			read = append(read, path.Clean(p))
		}
		if top == "server" && v.Server == nil {
			return engine.Step{}, fmt.Errorf("%s: %sexpect/%s: /server/requests are the requests the vector's server served; the vector declares no server", file, where, ptr)
		}
		parse = parse || top == "json"
		text = text || top == "text"
		match = append(match, engine.Match{Pointer: "/result" + ptr, Matcher: engine.Normalize(st.Expect[ptr])})
	}
	args := make([]any, len(st.Args))
	for i, a := range st.Args {
		args[i] = a
	}
	manifest := ""
	if i == 0 {
		manifest = v.Manifest
	}
	if st.Manifest != nil {
		manifest = *st.Manifest
	}
	params := map[string]any{"name": v.Name, "manifest": manifest, "args": args}
	files := map[string]string{}
	if i == 0 {
		maps.Copy(files, v.Files)
	}
	maps.Copy(files, st.Files)
	if len(files) > 0 {
		params["files"] = engine.Normalize(files)
	}
	if parse {
		params["json"] = true
	}
	if text {
		params["text"] = true
	}
	if v.Server != nil {
		srv, err := serverParam(v.Server, file)
		if err != nil {
			return engine.Step{}, err
		}
		params["server"] = srv
	}
	if session {
		params["session"] = true
		if len(read) > 0 {
			params["read"] = read
		}
	}
	if v.Model != nil || v.Rerun != nil {
		if v.Steps != nil {
			return engine.Step{}, fmt.Errorf("%s: an ask vector gives its further commands in /rerun, not /steps", file)
		}
		more, err := compileAsk(v, file, params)
		if err != nil {
			return engine.Step{}, err
		}
		match = append(match, more...)
	}
	return engine.Step{Source: fmt.Sprintf("%s#%sexpect", file, where), Text: strings.Join(st.Args, " "), Op: engine.OpAct, Name: "cli",
		Params: params, Expect: &engine.Expect{Outcome: "ok", Match: match}}, nil
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
// output: the standard output read as JSON, or as one text (when the step
// asks for them), so a transcript keeps the output once and a replay
// judges what the run judged.
func deriveCommand(ex engine.Exchange) map[string]any {
	parse, text := ex.Params["json"] == true, ex.Params["text"] == true
	if ex.Name != "cli" || ex.Outcome == nil || !parse && !text {
		return nil
	}
	r, ok := engine.Normalize(ex.Outcome.Result).(map[string]any)
	if !ok {
		return nil
	}
	lines, _ := r["stdout"].([]any)
	joined := joinLines(lines)
	out := map[string]any{}
	if parse {
		out["json"] = engine.Normalize(parsedJSON(joined))
	}
	if text {
		out["text"] = joined
	}
	return out
}

// joinLines is the output Lines split: the lines, each ended by a newline
// unless NoNewline follows it.
func joinLines(lines []any) string {
	var b strings.Builder
	for i, l := range lines {
		s, _ := l.(string)
		switch {
		case s == NoNewline && i == len(lines)-1 && i > 0:
			continue
		case i == len(lines)-2 && i+1 < len(lines) && lines[i+1] == NoNewline:
			b.WriteString(s)
		default:
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
