// Package kcp is the KCP suite of sifu: the seam any knowledge-manifest
// planner is driven through (in-process, or a planner CLI), the upstream
// vector format compiled into sifu checks, and the executor between them.
package kcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
)

// Target is one planner implementation as sifu sees it.
type Target interface {
	Hello(ctx context.Context) (Hello, error)
	// Plan plans a task over a manifest (raw YAML) and returns the whole
	// plan the implementation made, as JSON data: the library's plan
	// object, or the plan JSON its command line prints. The executor
	// projects it to what a check compares.
	Plan(ctx context.Context, req PlanRequest) (map[string]any, error)
	// Assess runs the confidence gate and returns its verdict as JSON data.
	// A gate that refuses its input returns a *Refusal.
	Assess(ctx context.Context, req AssessRequest) (map[string]any, error)
}

// CommandLine is a target that is a kcp-agent style command line; the
// plan-json checks run it with their own arguments.
type CommandLine interface {
	// RunCLI writes the request's manifest and files to a new directory
	// (Materialize), runs the command line with the arguments, and returns
	// its exit code and output, with the paths written back as
	// placeholders (Unplace).
	RunCLI(ctx context.Context, req CLIRequest) (CLIResult, error)
}

// CLIRequest is one command line to run.
type CLIRequest struct {
	Name     string   `json:"name"`
	Manifest string   `json:"manifest"`
	Args     []string `json:"args"`
	// Files are written beside the manifest, each under its relative path
	// (slash-separated, inside the directory), with "<manifest>" and
	// "<dir>" in their text replaced by the paths (JSON-escaped in a .json
	// file): unit files validate looks for, a saved plan for replay, two
	// plans for diff.
	Files map[string]string `json:"files,omitempty"`
	// Dir, when set, is an existing directory the caller made and removes
	// (a check of several command lines over one state directory): the
	// manifest and files are written into it, an empty Manifest leaving
	// the manifest file as it is, and the target does not remove it.
	Dir string `json:"dir,omitempty"`
	// Server, when set, is a loopback HTTP server the target starts for
	// the command and stops after it (LoopbackServer); CLIResult.Requests
	// lists what it was asked.
	Server *LoopbackServer `json:"server,omitempty"`
	// Model, when set, is a scripted model the adapter serves on loopback
	// while the commands run, its URL in place of ModelPlaceholder.
	Model *ModelScript `json:"model,omitempty"`
	// Rerun are further commands run in the same directory (CLIRerun).
	Rerun []CLIRerun `json:"rerun,omitempty"`
}

// CLIResult is what a command line did.
type CLIResult struct {
	Exit   int
	Stdout string
	Stderr string
	// Requests are the requests the request's LoopbackServer served, in
	// order ("GET /knowledge.yaml"; nil without a server).
	Requests []string
	// Model is what the scripted model received during this command, when
	// the request had one.
	Model []ModelRequest
	// Reruns are the results of the request's Rerun, in order.
	Reruns []CLIResult
}

// ManifestPlaceholder stands for the manifest file in CLIRequest.Args and
// CLIResult.Stdout.
const ManifestPlaceholder = "<manifest>"

// DirPlaceholder stands for the directory the manifest and the request's
// files are written to, in CLIRequest.Args and Files and in the output;
// and for a tool call's directory in its arguments and result (ToolCall).
const DirPlaceholder = "<dir>"

// PerProcess is a target that starts a process for every call; property
// checks then generate fewer cases (PerProcessRuns).
type PerProcess interface{ PerProcess() bool }

// PerProcessRuns caps the generated cases of one property step on a
// per-process target: two plans per case, so 25 cases are 50 processes,
// a few seconds for a Node command line.
const PerProcessRuns = 25

// Hello describes a planner.
type Hello struct {
	Implementation string `json:"implementation"`
	Version        string `json:"version"`
}

// PlanRequest is one planning call.
type PlanRequest struct {
	Name     string         `json:"name"`
	Manifest string         `json:"manifest"`
	Task     string         `json:"task"`
	Options  map[string]any `json:"options"`
}

// AssessRequest is one confidence-gate call, as an assess vector gives it.
type AssessRequest struct {
	Task           string         `json:"task"`
	Answer         string         `json:"answer"`
	Units          []any          `json:"units"`
	Options        map[string]any `json:"options"`
	Evaluator      map[string]any `json:"evaluator,omitempty"`
	EvaluatorError *string        `json:"evaluatorError,omitempty"`
}

// Refusal is a planner or gate that rejected its input with a message (the
// implementation's error, which vectors may expect).
type Refusal struct{ Message string }

func (r *Refusal) Error() string { return r.Message }

// Executor runs compiled KCP steps against a Target.
type Executor struct {
	target Target
	dir    string       // the check's directory (session.go), once a step made it
	serve  ServeSession // the server a serve step started, until serve_stop
	// running is the command a cli_start step started, until cli_stop.
	running RunningCLI
}

// NewExecutor returns an executor for one check.
func NewExecutor(t Target) *Executor { return &Executor{target: t} }

// Execute performs a plan, assess, cli, mcp_tools, mcp_call, serve, http,
// serve_stop or properties step. A plan's result is its outcome projection (with the selected
// units' reasons when the step asks for them), an assess's the verdict
// projection, a cli's the exit code and the output's lines, an MCP step's
// what executeMCP says.
func (e *Executor) Execute(ctx context.Context, step engine.Step) (engine.Outcome, error) {
	raw, _ := json.Marshal(step.Params)
	var result map[string]any
	var err error
	switch step.Name {
	case "plan":
		var req PlanRequest
		_ = json.Unmarshal(raw, &req)
		var plan map[string]any
		if plan, err = e.target.Plan(ctx, req); err == nil {
			reasons, _ := step.Params["reasons"].(bool)
			governance, _ := step.Params["governance"].(bool)
			result = Project(plan, ProjectOptions{Reasons: reasons, Governance: governance})
		}
	case "assess":
		var req AssessRequest
		_ = json.Unmarshal(raw, &req)
		var verdict map[string]any
		if verdict, err = e.target.Assess(ctx, req); err == nil {
			result = ProjectVerdict(verdict)
		}
	case "cli":
		cl, ok := e.target.(CommandLine)
		if !ok {
			return engine.Outcome{}, fmt.Errorf("the target is not a command line: %w", engine.ErrUnsupported)
		}
		var req CLIRequest
		_ = json.Unmarshal(raw, &req)
		session, _ := step.Params["session"].(bool)
		if session {
			if req.Dir, err = e.sessionDir(req.Name); err != nil {
				return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: err}
			}
		}
		var res CLIResult
		if res, err = cl.RunCLI(ctx, req); err == nil {
			parse, _ := step.Params["json"].(bool)
			result = cliResult(res, parse)
			if len(req.Rerun) > 0 {
				reruns := make([]any, len(res.Reruns))
				for i, r := range res.Reruns {
					reruns[i] = cliResult(r, true)
				}
				result["rerun"] = reruns
			}
			if req.Server != nil {
				requests := make([]any, len(res.Requests))
				for i, r := range res.Requests {
					requests[i] = r
				}
				result["server"] = map[string]any{"requests": requests}
			}
			if text, _ := step.Params["text"].(bool); text {
				result["text"] = res.Stdout
			}
			if read := stringsOf(step.Params["read"]); session && len(read) > 0 {
				files, rerr := readBack(req.Dir, filepath.Join(req.Dir, req.Name+".yaml"), read)
				if rerr != nil {
					return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: rerr}
				}
				result["files"] = files
			}
		}
	case "mcp_tools", "mcp_call":
		result, err = e.executeMCP(ctx, step)
	case "serve", "http", "serve_stop":
		result, err = e.executeServe(ctx, step)
	case "cli_start", "cli_await", "cli_stop":
		result, err = e.executeBackground(ctx, step)
	case "properties":
		runs, _ := step.Params["runs"].(float64)
		seed, _ := step.Params["seed"].(float64)
		n := int(runs)
		if pp, ok := e.target.(PerProcess); ok && pp.PerProcess() && n > PerProcessRuns {
			n = PerProcessRuns
		}
		var violations []any
		violations, err = checkProperties(ctx, e.target, n, uint64(seed))
		result = map[string]any{"runs": runs, "ran": float64(n), "seed": seed, "violations": violations}
	default:
		return engine.Outcome{}, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("the kcp suite cannot execute %q", step.Name)}
	}
	if refusal, ok := err.(*Refusal); ok {
		return engine.Outcome{Rejection: &engine.Rejection{Reason: "error", Message: refusal.Message}}, nil
	}
	if err != nil {
		return engine.Outcome{}, err
	}
	return engine.Outcome{OK: true, Result: engine.Normalize(result)}, nil
}

// stringsOf is a step parameter's list of strings.
func stringsOf(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// parsedJSON is a command's standard output read as one JSON value, for
// a step that judges it by its members (step param "json"); output that is
// no JSON is nil, which no pointer into it finds.
func parsedJSON(stdout string) any {
	var v any
	if json.Unmarshal([]byte(stdout), &v) != nil {
		return nil
	}
	return v
}

// Lines splits a command's output into lines, each without its newline;
// output that does not end with one gets a last line "\\ no newline at end".
func Lines(s string) []any {
	out := []any{}
	for s != "" {
		line, rest, found := strings.Cut(s, "\n")
		out = append(out, line)
		if !found {
			out = append(out, NoNewline)
		}
		s = rest
	}
	return out
}

// NoNewline is the line Lines adds when output does not end with a
// newline.
const NoNewline = "\\ no newline at end"

// UnplaceManifest writes the manifest file's path back as
// ManifestPlaceholder in a command's output, where the output names it
// as a JSON string does (kcp-agent prints it as manifest.source).
func UnplaceManifest(out, file string) string {
	return unplace(out, file, ManifestPlaceholder)
}

// Unplace writes the manifest file's path back as ManifestPlaceholder, and
// then the directory's as DirPlaceholder, in a command's output, raw or
// JSON-escaped (a file beside the manifest is printed as "<dir>/name").
func Unplace(out, dir, file string) string {
	return unplace(UnplaceManifest(out, file), dir, DirPlaceholder)
}

func unplace(out, path, placeholder string) string {
	out = strings.ReplaceAll(out, jsonEscaped(path), placeholder)
	return strings.ReplaceAll(out, path, placeholder)
}

func jsonEscaped(s string) string {
	quoted, _ := json.Marshal(s)
	return strings.Trim(string(quoted), `"`)
}

// Materialize writes the request's manifest to <a new temporary
// directory>/<name>.yaml (or <Dir>/<name>.yaml), and its files beside it,
// and returns the arguments with the paths in place of
// ManifestPlaceholder and DirPlaceholder; Release dir when the command
// has run. A file whose path is absolute or leaves the directory is
// refused.
func (r CLIRequest) Materialize() (dir, manifest string, args []string, err error) {
	if dir = r.Dir; dir == "" {
		if dir, err = stableDir(r.Name); err != nil {
			return "", "", nil, err
		}
	}
	manifest = filepath.Join(dir, r.Name+".yaml")
	place := func(s string, escape bool) string {
		m, d := manifest, dir
		if escape {
			m, d = jsonEscaped(m), jsonEscaped(d)
		}
		return strings.ReplaceAll(strings.ReplaceAll(s, ManifestPlaceholder, m), DirPlaceholder, d)
	}
	fail := func(e error) (string, string, []string, error) {
		r.Release(dir)
		return "", "", nil, e
	}
	if r.Dir == "" || r.Manifest != "" {
		if err := os.WriteFile(manifest, []byte(r.Manifest), 0o644); err != nil {
			return fail(err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Files)) {
		clean := path.Clean(name)
		if name == "" || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(name, `\`) {
			return fail(fmt.Errorf("files: %q is not a relative path inside the directory", name))
		}
		file := filepath.Join(dir, filepath.FromSlash(clean))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(file, []byte(place(r.Files[name], strings.HasSuffix(name, ".json"))), 0o644); err != nil {
			return fail(err)
		}
	}
	for _, a := range r.Args {
		args = append(args, place(a, false))
	}
	return dir, manifest, args, nil
}

// stableDir makes a new directory for a command named name: the same path
// on every run (sifu-kcp-cmd-<name> in the temporary directory), so an
// output that hashes what it read there (ask --memory's episode id) is the
// same from run to run, as SOURCE_DATE_EPOCH promises of the evidence. A
// path already there (a check running beside another of its name, another
// run, a leftover) is never reused: the directory is then a fresh random one.
func stableDir(name string) (string, error) {
	if name != "" && !strings.ContainsAny(name, `/\`) {
		dir := filepath.Join(os.TempDir(), "sifu-kcp-cmd-"+name)
		if err := os.Mkdir(dir, 0o700); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp("", "sifu-kcp-")
}

// Release removes the directory Materialize made; a directory the caller
// gave (Dir) stays for its next command line.
func (r CLIRequest) Release(dir string) {
	if r.Dir == "" {
		os.RemoveAll(dir)
	}
}

// LoopbackServer is an HTTP server a check declares (a command or an mcp
// vector's "server"): the adapter starts it on 127.0.0.1 before the
// command or call and stops it after. ServerPlaceholder stands for its
// base URL (http://127.0.0.1:port) in the arguments, the manifest, the
// files and the routes' bodies and redirects, and is written back in the
// output.
type LoopbackServer struct {
	// Routes are the paths it answers (each starting with /); any other
	// path is 404. It records every request it serves, "GET /path?query",
	// which a check expects at /server/requests.
	Routes map[string]Route `json:"routes"`
}

// Route is one path's answer.
type Route struct {
	// Status is the status code: 200 by default, 302 with Redirect.
	Status int `json:"status,omitempty"`
	// Redirect is the Location header.
	Redirect string `json:"redirect,omitempty"`
	// Type is the Content-Type: text/yaml for a .yaml or .yml path and
	// text/plain for any other when not given.
	Type string `json:"type,omitempty"`
	// Body is the body's text.
	Body string `json:"body,omitempty"`
	// Size, when larger than the body, pads it with YAML comment lines to
	// this many bytes.
	Size int64 `json:"size,omitempty"`
	// Streamed sends the body without a Content-Length (chunked).
	Streamed bool `json:"streamed,omitempty"`
}

// ServerPlaceholder stands for a LoopbackServer's base URL.
const ServerPlaceholder = "<server>"

// WithServer is the request with base in place of ServerPlaceholder in its
// manifest, files and arguments.
func (r CLIRequest) WithServer(base string) CLIRequest {
	if base == "" {
		return r
	}
	r.Manifest = strings.ReplaceAll(r.Manifest, ServerPlaceholder, base)
	args := make([]string, len(r.Args))
	for i, a := range r.Args {
		args[i] = strings.ReplaceAll(a, ServerPlaceholder, base)
	}
	r.Args = args
	files := make(map[string]string, len(r.Files))
	for k, v := range r.Files {
		files[k] = strings.ReplaceAll(v, ServerPlaceholder, base)
	}
	r.Files = files
	return r
}

// UnplaceServer writes a LoopbackServer's base URL back as
// ServerPlaceholder (JSON-escaped too).
func UnplaceServer(out, base string) string {
	if base == "" {
		return out
	}
	return unplace(out, base, ServerPlaceholder)
}
