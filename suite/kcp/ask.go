package kcp

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ModelPlaceholder stands for the base URL of the scripted model a command
// vector declares (CLIRequest.Model), in the arguments: the adapter starts
// the model on loopback for the vector and writes its URL in
// (http://127.0.0.1:PORT/v1, the base an OpenAI-compatible client posts
// <base>/chat/completions to).
const ModelPlaceholder = "<model>"

// ModelScript is the scripted OpenAI-compatible model of one command
// vector: its replies, each served once, to the first request it fits
// (ModelReply.When), in order.
type ModelScript struct {
	Replies []ModelReply `json:"replies"`
}

// ModelReply is one scripted answer: an assistant message with Content, or
// a raw HTTP answer (Status, Body) for a model that fails or answers
// garbage. A request no reply fits is answered 500 and recorded, so a
// check that expects fewer calls sees it.
type ModelReply struct {
	When    *ModelWhen `json:"when,omitempty"`
	Content *string    `json:"content,omitempty"`
	Status  int        `json:"status,omitempty"`
	Body    *string    `json:"body,omitempty"`
}

// ModelWhen is a reply's predicate on a request: its model id equals
// Model, and some message's content contains Contains.
type ModelWhen struct {
	Model    string `json:"model,omitempty"`
	Contains string `json:"contains,omitempty"`
}

// Fits reports whether the reply may answer a request for model whose
// messages' contents are given.
func (r ModelReply) Fits(model string, contents []string) bool {
	if r.When == nil {
		return true
	}
	if r.When.Model != "" && r.When.Model != model {
		return false
	}
	if r.When.Contains == "" {
		return true
	}
	for _, c := range contents {
		if strings.Contains(c, r.When.Contains) {
			return true
		}
	}
	return false
}

// CLIRerun is a further command run in the same directory after the
// first (and the ones before it), with the same scripted model: Files are
// written (over what is there) first, and Args, when nil, are the first
// command's.
type CLIRerun struct {
	Files map[string]string `json:"files,omitempty"`
	Args  []string          `json:"args,omitempty"`
}

// ModelRequest is one request the scripted model received: the method
// and path, its Authorization header, the body (read as JSON), and Text,
// its messages' contents joined by a blank line (what a check looks
// through for what the model was, or was not, shown).
type ModelRequest struct {
	Path          string `json:"path"`
	Authorization string `json:"authorization"`
	Body          any    `json:"body"`
	Text          string `json:"text"`
}

// cliResult is what a cli step's result holds of one command run.
func cliResult(res CLIResult, parse bool) map[string]any {
	out := map[string]any{"exit": float64(res.Exit), "stdout": Lines(res.Stdout), "stderr": res.Stderr}
	if parse {
		out["json"] = parsedJSON(res.Stdout)
	}
	if res.Model != nil {
		reqs := make([]any, len(res.Model))
		for i, r := range res.Model {
			reqs[i] = map[string]any{"path": r.Path, "authorization": r.Authorization, "body": r.Body, "text": r.Text}
		}
		out["model"] = map[string]any{"requests": reqs}
	}
	return out
}

// Rerun writes a rerun's files into the directory a request was
// materialized in (dir, its manifest file manifest), with the placeholders
// replaced as Materialize replaces them, and returns its arguments placed:
// the rerun's, or first's when it gives none.
func (r CLIRerun) Rerun(dir, manifest string, first []string) ([]string, error) {
	for _, name := range slices.Sorted(maps.Keys(r.Files)) {
		if !pathInside(name) {
			return nil, fmt.Errorf("rerun files: %q is not a relative path inside the directory", name)
		}
		file := filepath.Join(dir, filepath.FromSlash(path.Clean(name)))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(file, []byte(placed(r.Files[name], dir, manifest, strings.HasSuffix(name, ".json"))), 0o644); err != nil {
			return nil, err
		}
	}
	args := r.Args
	if args == nil {
		args = first
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = placed(a, dir, manifest, false)
	}
	return out, nil
}

func placed(s, dir, manifest string, escape bool) string {
	if escape {
		dir, manifest = jsonEscaped(dir), jsonEscaped(manifest)
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, ManifestPlaceholder, manifest), DirPlaceholder, dir)
}

// PlaceModel writes the scripted model's base URL in place of
// ModelPlaceholder in the arguments.
func PlaceModel(args []string, url string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, ModelPlaceholder, url)
	}
	return out
}
