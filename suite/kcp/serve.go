package kcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
)

// ServeProfile is the profile of the checks on kcp-agent's HTTP server,
// `serve`: its health route, REST routes, API key, Link headers, the
// --public-url self-check and its /mcp endpoint.
const ServeProfile = "serve"

// PortPlaceholder stands for the loopback port sifu starts a server on, in
// ServeRequest.Args and in what the server answered or printed.
const PortPlaceholder = "<port>"

// Serving is a target that can start kcp-agent's HTTP server: `<command>
// serve <port> <args>`, on a free loopback port sifu picks.
type Serving interface {
	// StartServe writes the request's files to a new directory, starts
	// the server there and returns once it answers GET /health. A server
	// that cannot start is a *ServeStartError.
	StartServe(ctx context.Context, req ServeRequest) (ServeSession, error)
}

// ServeRequest is one server to start.
type ServeRequest struct {
	// Args follow `serve <port>`; DirPlaceholder and PortPlaceholder in
	// them stand for the directory and the port.
	Args []string `json:"args"`
	// Files are written to the directory: relative path → text.
	Files map[string]string `json:"files,omitempty"`
}

// ServeSession is one running server. Its MCPServer methods speak MCP to
// the server's /mcp endpoint (streamable HTTP).
type ServeSession interface {
	MCPServer
	// Do sends one HTTP request and returns the answer, with the
	// directory and the port written back as placeholders.
	Do(ctx context.Context, req HTTPRequest) (HTTPResponse, error)
	// Stop ends the server and returns all it printed.
	Stop() ServeOutput
}

// HTTPRequest is one request to a running server.
type HTTPRequest struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers,omitempty"`
	// Body is sent as JSON when set; Raw is sent as is (a body that is
	// no JSON).
	Body any     `json:"body,omitempty"`
	Raw  *string `json:"raw,omitempty"`
}

// HTTPResponse is what a server answered.
type HTTPResponse struct {
	Status int
	// Header holds every header line by its lower-cased name.
	Header map[string][]string
	Body   string
}

// ServeOutput is what a server printed while it ran.
type ServeOutput struct{ Stdout, Stderr string }

// ServeStartError is a server that did not start: it exited, answered
// something that is not HTTP, or did not answer GET /health in time.
// Hint says what to do. A server that could not bind its port
// (PortTaken) says nothing of the implementation: the check is a harness
// error; one that exited or answered no HTTP fails it.
type ServeStartError struct {
	Command   string
	What      string
	Hint      string
	PortTaken bool
}

func (e *ServeStartError) Error() string {
	return fmt.Sprintf("`%s` did not start an HTTP server: %s; %s", e.Command, e.What, e.Hint)
}

// Materialize writes the request's files to a new temporary directory
// and returns the arguments with its path in place of DirPlaceholder;
// remove dir when the server has stopped.
func (r ServeRequest) Materialize() (dir string, args []string, err error) {
	if dir, err = tempFiles("sifu-kcp-serve-", "server", r.Files); err != nil {
		return "", nil, err
	}
	for _, a := range r.Args {
		args = append(args, strings.ReplaceAll(a, DirPlaceholder, dir))
	}
	return dir, args, nil
}

// ServePlaces writes a server's directory and port back as placeholders
// (the port where it follows a host: "127.0.0.1:<port>", "localhost:<port>",
// or the word port: "port <port>").
func ServePlaces(s, dir string, port int) string {
	s = unplace(s, dir, DirPlaceholder)
	s = strings.ReplaceAll(s, fmt.Sprintf("port %d", port), "port "+PortPlaceholder) // "listening on port N"
	for _, host := range []string{"127.0.0.1:", "localhost:", "[::1]:"} {
		s = strings.ReplaceAll(s, fmt.Sprintf("%s%d", host, port), host+PortPlaceholder)
	}
	return s
}

// Place puts the directory and the port in place of DirPlaceholder and
// PortPlaceholder in every string of a request.
func (r HTTPRequest) Place(dir string, port int) HTTPRequest {
	p := fmt.Sprint(port)
	put := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, DirPlaceholder, dir), PortPlaceholder, p)
	}
	out := r
	out.Path = put(r.Path)
	if r.Headers != nil {
		out.Headers = map[string]string{}
		for k, v := range r.Headers {
			out.Headers[k] = put(v)
		}
	}
	if r.Body != nil {
		out.Body = replaceStrings(replaceStrings(r.Body, DirPlaceholder, dir), PortPlaceholder, p)
	}
	if r.Raw != nil {
		raw := put(*r.Raw)
		out.Raw = &raw
	}
	return out
}

// PlaceDir puts dir in place of DirPlaceholder in every string of a
// call's arguments.
func PlaceDir(args map[string]any, dir string) map[string]any {
	out, _ := replaceStrings(args, DirPlaceholder, dir).(map[string]any)
	return out
}

// PlacePort puts the port in place of PortPlaceholder.
func PlacePort(args []string, port int) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, PortPlaceholder, fmt.Sprint(port))
	}
	return out
}

// executeServe performs a serve, http or serve_stop step, and says where
// the MCP steps of a check with a running server go.
func (e *Executor) executeServe(ctx context.Context, step engine.Step) (map[string]any, error) {
	switch step.Name {
	case "serve":
		sv, ok := e.target.(Serving)
		if !ok {
			return nil, fmt.Errorf("the target starts no HTTP server: %w", engine.ErrUnsupported)
		}
		if e.serve != nil {
			return nil, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("a check starts one server")}
		}
		raw, _ := json.Marshal(step.Params)
		var req ServeRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("the serve step's parameters: %v", err)}
		}
		s, err := sv.StartServe(ctx, req)
		var se *ServeStartError
		if errors.As(err, &se) && se.PortTaken {
			return nil, &engine.AdapterError{Step: step.Source, Err: err}
		}
		if err != nil {
			return nil, err
		}
		e.serve = s
		return map[string]any{"started": true}, nil
	case "serve_stop":
		if e.serve == nil {
			return nil, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("no server was started")}
		}
		out := e.serve.Stop()
		e.serve = nil
		return map[string]any{"stdout": out.Stdout, "stderr": out.Stderr}, nil
	}
	if e.serve == nil {
		return nil, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("an http step needs a server started before it")}
	}
	raw, _ := json.Marshal(step.Params)
	var req HTTPRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("the http step's parameters: %v", err)}
	}
	res, err := e.serve.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	return HTTPResult(res), nil
}

// HTTPResult is what checks read of an answer: status, headers (by
// lower-cased name, each a list of lines), body, and json (the body
// parsed, when it is JSON).
func HTTPResult(res HTTPResponse) map[string]any {
	headers := map[string]any{}
	for k, vs := range res.Header {
		list := make([]any, len(vs))
		for i, v := range vs {
			list[i] = v
		}
		headers[strings.ToLower(k)] = list
	}
	out := map[string]any{"status": float64(res.Status), "headers": headers, "body": res.Body}
	var parsed any
	if json.Unmarshal([]byte(res.Body), &parsed) == nil {
		out["json"] = parsed
	}
	return out
}

// deriveHTTP is the body read as JSON, which follows from the body.
func deriveHTTP(ex engine.Exchange) map[string]any {
	if ex.Outcome == nil {
		return nil
	}
	r, ok := engine.Normalize(ex.Outcome.Result).(map[string]any)
	if !ok {
		return nil
	}
	body, _ := r["body"].(string)
	var parsed any
	if json.Unmarshal([]byte(body), &parsed) != nil {
		return nil
	}
	return map[string]any{"json": parsed}
}

// stopServe stops the server a check started and left running.
func (e *Executor) stopServe() {
	if e.serve != nil {
		e.serve.Stop()
		e.serve = nil
	}
}
