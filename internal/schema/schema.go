// Package schema validates sifu's JSON documents (vectors, rule catalogues,
// binding messages) against the JSON Schemas in vectors/schema, and turns a
// failure into messages that name the file, the JSON pointer and what was
// expected.
package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/inputfile"
)

// Set compiles schemas from one file system, once each.
type Set struct {
	fsys fs.FS
	dir  string

	mu       sync.RWMutex
	compiled map[string]*jsonschema.Schema
}

// NewSet reads schemas from dir inside fsys.
func NewSet(fsys fs.FS, dir string) *Set {
	return &Set{fsys: fsys, dir: dir, compiled: map[string]*jsonschema.Schema{}}
}

// Compile returns the compiled schema with the given file name.
func (s *Set) Compile(name string) (*jsonschema.Schema, error) {
	s.mu.RLock()
	sch, ok := s.compiled[name]
	s.mu.RUnlock()
	if ok {
		return sch, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[name]; ok {
		return sch, nil
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	entries, err := fs.ReadDir(s.fsys, s.dir)
	if err != nil {
		return nil, fmt.Errorf("schema: read %s: %w", s.dir, err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		raw, err := inputfile.ReadFS(s.fsys, path.Join(s.dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(resourceURL(e.Name()), bytes.NewReader(inputfile.Text(raw))); err != nil {
			return nil, fmt.Errorf("schema %s: %w", e.Name(), err)
		}
	}
	sch, err = c.Compile(resourceURL(name))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	s.compiled[name] = sch
	return sch, nil
}

func resourceURL(name string) string { return "https://sifu.dev/schema/" + name }

// Error is a document that does not conform. Problems are sorted and each
// names a JSON pointer.
type Error struct {
	File     string
	Problems []string
}

func (e *Error) Error() string {
	if len(e.Problems) == 1 {
		return fmt.Sprintf("%s: %s", e.File, e.Problems[0])
	}
	return fmt.Sprintf("%s: %d problems:\n  %s", e.File, len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// Validate parses raw JSON and validates it against the named schema. file
// is used in messages. A leading UTF-8 byte order mark is no part of the
// document.
func (s *Set) Validate(name, file string, raw []byte) error {
	raw = inputfile.Text(raw)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return &Error{File: file, Problems: []string{syntaxProblem(raw, err)}}
	}
	if dec.More() {
		return &Error{File: file, Problems: []string{"extra data after the JSON document"}}
	}
	return s.ValidateValue(name, file, doc)
}

// ValidateValue validates a decoded JSON document (as encoding/json decodes
// into an any) against the named schema, for a caller that decodes once and
// uses the value too. file is used in messages.
func (s *Set) ValidateValue(name, file string, doc any) error {
	sch, err := s.Compile(name)
	if err != nil {
		return err
	}
	if err := sch.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return &Error{File: file, Problems: leaves(ve)}
		}
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

func syntaxProblem(raw []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(raw[:min(int(se.Offset), len(raw))], []byte("\n"))
		return fmt.Sprintf("line %d: not valid JSON: %v", line, se)
	}
	return "not valid JSON: " + err.Error()
}

// leaves flattens a validation error into its most specific causes.
func leaves(ve *jsonschema.ValidationError) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := e.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			msg := fmt.Sprintf("at %s: %s", loc, e.Message)
			if !seen[msg] {
				seen[msg] = true
				out = append(out, msg)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}

var (
	bundledOnce sync.Once
	bundled     *Set
)

// Bundled is the one set of the JSON Schemas sifu carries (vectors/schema
// in its assets): every adapter validates binding messages against it, and
// each schema is compiled once per process.
func Bundled() *Set {
	bundledOnce.Do(func() { bundled = NewSet(sifu.Assets, "vectors/schema") })
	return bundled
}

// For is the set of the schemas in dir of fsys: Bundled when they are
// sifu's own, so their compilations are shared, else a new set.
func For(fsys fs.FS, dir string) *Set {
	if e, ok := fsys.(embed.FS); ok && e == sifu.Assets && dir == "vectors/schema" {
		return Bundled()
	}
	return NewSet(fsys, dir)
}
