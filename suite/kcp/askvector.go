package kcp

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
)

// rerunVector is a further command of a command vector (its /rerun): run
// in the same directory, after the files are written, and judged by its
// exit code and pointers into what it did (/exit, /stdout, /stderr, /json,
// /model), its standard output always read as JSON too.
type rerunVector struct {
	Description string            `json:"description"`
	Files       map[string]string `json:"files"`
	Args        []string          `json:"args"`
	Exit        *int              `json:"exit"`
	Expect      map[string]any    `json:"expect"`
}

// compileAsk adds a command vector's scripted model and reruns to its cli
// step's params and returns the reruns' matchers (under /result/rerun/N).
func compileAsk(v commandVector, file string, params map[string]any) ([]engine.Match, error) {
	if v.Model != nil {
		for i, r := range v.Model.Replies {
			if (r.Content != nil) == (r.Body != nil || r.Status != 0) {
				return nil, fmt.Errorf("%s: /model/replies/%d: a reply has either content (the assistant's message) or status and body (a raw HTTP answer)", file, i)
			}
			if r.Body != nil && r.Status == 0 {
				return nil, fmt.Errorf("%s: /model/replies/%d: a raw answer needs its status", file, i)
			}
		}
		params["model"] = engine.Normalize(v.Model)
	}
	var match []engine.Match
	var reruns []any
	for i, r := range v.Rerun {
		src := fmt.Sprintf("%s: /rerun/%d", file, i)
		if r.Exit == nil {
			return nil, fmt.Errorf("%s/exit is required", src)
		}
		for name := range r.Files {
			if !pathInside(name) {
				return nil, fmt.Errorf("%s/files/%s: a file's path is relative and stays inside the directory", src, name)
			}
		}
		at := fmt.Sprintf("/result/rerun/%d", i)
		match = append(match, engine.Match{Pointer: at + "/exit", Matcher: float64(*r.Exit)})
		for _, ptr := range slices.Sorted(maps.Keys(r.Expect)) {
			top, _, _ := strings.Cut(strings.TrimPrefix(ptr, "/"), "/")
			if !strings.HasPrefix(ptr, "/") || !slices.Contains([]string{"exit", "stdout", "stderr", "json", "model"}, top) {
				return nil, fmt.Errorf("%s/expect/%s: a pointer starts with /exit, /stdout, /stderr, /json or /model", src, ptr)
			}
			match = append(match, engine.Match{Pointer: at + ptr, Matcher: engine.Normalize(r.Expect[ptr])})
		}
		rr := map[string]any{}
		if r.Files != nil {
			rr["files"] = engine.Normalize(r.Files)
		}
		if r.Args != nil {
			args := make([]any, len(r.Args))
			for j, a := range r.Args {
				args[j] = a
			}
			rr["args"] = args
		}
		reruns = append(reruns, rr)
	}
	if reruns != nil {
		params["rerun"] = reruns
	}
	return match, nil
}

func pathInside(name string) bool {
	clean := path.Clean(name)
	return name != "" && clean != ".." && !strings.HasPrefix(clean, "../") && !strings.HasPrefix(clean, "/") && !strings.Contains(name, `\`)
}
