package kcp

import (
	"fmt"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/schema"
)

// ServeSchema is the JSON Schema of a serve vector.
const ServeSchema = "kcp-serve.schema.json"

// ServeMCPRule is the rule every mcp check evidences again over serve's
// /mcp: the tools answer there as they do over stdio.
const ServeMCPRule = "KCP-serve-mcp"

// serveVector is a check on kcp-agent's HTTP server (sifu's format, kind
// "serve"): the server is started with args over the files, then each step
// sends an HTTP request, lists or calls the MCP tools over /mcp, or stops
// the server and reads what it printed.
type serveVector struct {
	Name        string            `json:"name"`
	Kind        string            `json:"kind"`
	Description string            `json:"description"`
	Rules       []string          `json:"rules"`
	Args        []string          `json:"args"`
	Files       map[string]string `json:"files"`
	Steps       []serveStep       `json:"steps"`
}

type serveStep struct {
	mcpStep
	Request *HTTPRequest `json:"request"`
	Stop    bool         `json:"stop"`
}

// compileServe compiles a serve vector into one check: a serve step, the
// vector's steps, and a serve_stop step when the vector has none.
func compileServe(schemas *schema.Set, raw []byte, file, stem string) (engine.Check, error) {
	if schemas != nil {
		if err := schemas.Validate(ServeSchema, file, raw); err != nil {
			return engine.Check{}, err
		}
	}
	var v serveVector
	if err := strictly(raw, &v); err != nil {
		return engine.Check{}, fmt.Errorf("%s: not a serve vector: %v", file, err)
	}
	switch {
	case v.Name != stem:
		return engine.Check{}, fmt.Errorf("%s: /name is %q; it must equal the file name %q", file, v.Name, stem)
	case len(v.Rules) == 0:
		return engine.Check{}, fmt.Errorf("%s: /rules (the rule IDs the check evidences) is missing", file)
	case len(v.Steps) == 0:
		return engine.Check{}, fmt.Errorf("%s: /steps is empty", file)
	}
	if err := insideDir(file, "/files", v.Files); err != nil {
		return engine.Check{}, err
	}
	steps := []engine.Step{startStep(file+"#/args", v.Args, v.Files)}
	stopped := false
	for i, s := range v.Steps {
		src := fmt.Sprintf("%s#/steps/%d", file, i)
		kinds := 0
		for _, set := range []bool{s.Tools, s.Call != "", s.Request != nil, s.Stop} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			return engine.Check{}, fmt.Errorf("%s: a step has exactly one of request (an HTTP request), tools (true), call (a tool name) and stop (true)", src)
		}
		if stopped {
			return engine.Check{}, fmt.Errorf("%s: a step after stop: the server has stopped", src)
		}
		var step engine.Step
		var err error
		switch {
		case s.Request != nil:
			if s.Request.Method == "" || !strings.HasPrefix(s.Request.Path, "/") {
				return engine.Check{}, fmt.Errorf("%s/request: a request has a method and a path starting with /", src)
			}
			step, err = stepWith(src, s.mcpStep, "http", s.Request.Method+" "+s.Request.Path, engine.Normalize(s.Request).(map[string]any))
		case s.Stop:
			stopped = true
			step, err = stepWith(src, s.mcpStep, "serve_stop", "stop the server", map[string]any{})
		default:
			step, err = compileMCPStep(src, file, s.mcpStep, nil, nil)
		}
		if err != nil {
			return engine.Check{}, err
		}
		steps = append(steps, step)
	}
	return engine.Check{ID: "kcp/serve/" + stem, Kind: "serve", Title: orName(v.Description, v.Name), Source: file,
		Rules: v.Rules, Tags: []string{"serve"}, Steps: steps}, nil
}

// startStep starts the server with args over files.
func startStep(src string, args []string, files map[string]string) engine.Step {
	params := map[string]any{"args": []any{}}
	for _, a := range args {
		params["args"] = append(params["args"].([]any), a)
	}
	if files != nil {
		fm := map[string]any{}
		for k, t := range files {
			fm[k] = t
		}
		params["files"] = fm
	}
	text := strings.TrimSpace("serve <port> " + strings.Join(args, " "))
	return engine.Step{Source: src, Text: text, Op: engine.OpAct, Name: "serve", Params: params, Expect: &engine.Expect{Outcome: "ok"}}
}

// serveTwin is an mcp check run again over serve's /mcp: the same steps
// after starting the server, evidencing ServeMCPRule.
func serveTwin(c engine.Check) engine.Check {
	twin := c
	twin.ID = "kcp/serve/mcp/" + strings.TrimPrefix(c.ID, "kcp/mcp/")
	twin.Kind = "serve"
	twin.Title = "over serve's /mcp: " + c.Title
	twin.Rules = []string{ServeMCPRule}
	twin.Tags = []string{"serve"}
	twin.Steps = append([]engine.Step{startStep(c.Source+"#/steps", nil, nil)}, c.Steps...)
	return twin
}
