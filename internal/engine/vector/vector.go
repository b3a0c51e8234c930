// Package vector compiles portable JSON vector files into engine checks.
// Every file is validated against vectors/schema/vector.schema.json first.
package vector

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/schema"
)

// SchemaName is the schema vector files must satisfy.
const SchemaName = "vector.schema.json"

type fileDoc struct {
	Suite       string     `json:"suite"`
	Description string     `json:"description"`
	Checks      []checkDoc `json:"checks"`
}

type checkDoc struct {
	ID    string    `json:"id"`
	Title string    `json:"title"`
	Rules []string  `json:"rules"`
	Tags  []string  `json:"tags"`
	Steps []stepDoc `json:"steps"`
}

type stepDoc struct {
	Act      string            `json:"act"`
	Read     string            `json:"read"`
	Control  string            `json:"control"`
	Parallel []stepDoc         `json:"parallel"`
	Agent    string            `json:"agent"`
	Key      string            `json:"key"`
	Params   map[string]any    `json:"params"`
	Capture  map[string]string `json:"capture"`
	Expect   *expectDoc        `json:"expect"`
	Subject  string            `json:"subject"`
}

type expectDoc struct {
	Outcome  string         `json:"outcome"`
	Reason   string         `json:"reason"`
	NextStep string         `json:"next_step"`
	Match    map[string]any `json:"match"`
	SameAs   string         `json:"same_as"`
	Mask     []string       `json:"mask"`
}

// Compile reads one vector file and returns its checks. suite is the suite
// the caller runs; a file for another suite is an error.
func Compile(fsys fs.FS, file, suite string, set *schema.Set) ([]engine.Check, error) {
	raw, err := inputfile.ReadFS(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("vector file: %w", err)
	}
	raw = inputfile.Text(raw)
	if err := set.Validate(SchemaName, file, raw); err != nil {
		return nil, err
	}
	var doc fileDoc
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if doc.Suite != suite {
		return nil, fmt.Errorf("%s: at /suite: the file is for suite %q, not %q", file, doc.Suite, suite)
	}
	stem := strings.TrimSuffix(path.Base(file), path.Ext(file))
	seen := map[string]bool{}
	var checks []engine.Check
	for i, cd := range doc.Checks {
		ptr := fmt.Sprintf("/checks/%d", i)
		if seen[cd.ID] {
			return nil, fmt.Errorf("%s: at %s/id: check id %q is used twice in the file; ids must be unique", file, ptr, cd.ID)
		}
		seen[cd.ID] = true
		c := engine.Check{
			ID:     suite + "/" + stem + "/" + cd.ID,
			Kind:   "vector",
			Title:  cd.Title,
			Source: file + "#" + ptr,
			Rules:  cd.Rules,
			Tags:   cd.Tags,
		}
		for j, sd := range cd.Steps {
			c.Steps = append(c.Steps, compileStep(sd, fmt.Sprintf("%s#%s/steps/%d", file, ptr, j)))
		}
		checks = append(checks, c)
	}
	return checks, nil
}

// compileStep turns one vector step into an engine step. A step that both
// acts and expects stays one step: the engine judges a step's own outcome.
func compileStep(sd stepDoc, source string) engine.Step {
	s := engine.Step{Source: source, Agent: sd.Agent, Key: sd.Key, Params: normalizeParams(sd.Params),
		Capture: sd.Capture, Subject: sd.Subject, Expect: compileExpect(sd.Expect)}
	switch {
	case sd.Act != "":
		s.Op, s.Name = engine.OpAct, sd.Act
	case sd.Read != "":
		s.Op, s.Name = engine.OpRead, sd.Read
	case sd.Control != "":
		s.Op, s.Name = engine.OpControl, sd.Control
	case len(sd.Parallel) > 0:
		s.Op = engine.OpParallel
		for k, sub := range sd.Parallel {
			s.Steps = append(s.Steps, compileStep(sub, fmt.Sprintf("%s/parallel/%d", source, k)))
		}
	default:
		s.Op = engine.OpExpect
	}
	s.Text = describe(s)
	return s
}

func compileExpect(ed *expectDoc) *engine.Expect {
	if ed == nil {
		return nil
	}
	e := &engine.Expect{Outcome: ed.Outcome, Reason: ed.Reason, NextStep: ed.NextStep, SameAs: ed.SameAs, Mask: ed.Mask}
	ptrs := make([]string, 0, len(ed.Match))
	for p := range ed.Match {
		ptrs = append(ptrs, p)
	}
	sort.Strings(ptrs)
	for _, p := range ptrs {
		e.Match = append(e.Match, engine.Match{Pointer: p, Matcher: engine.Normalize(ed.Match[p])})
	}
	return e
}

func normalizeParams(p map[string]any) map[string]any {
	if p == nil {
		return nil
	}
	n, _ := engine.Normalize(p).(map[string]any)
	return n
}

func describe(s engine.Step) string {
	switch s.Op {
	case engine.OpAct:
		return fmt.Sprintf("%s performs %s", s.Agent, s.Name)
	case engine.OpRead:
		return fmt.Sprintf("%s reads %s", s.Agent, s.Name)
	case engine.OpControl:
		return fmt.Sprintf("control %s %s", s.Name, s.Agent)
	case engine.OpParallel:
		return fmt.Sprintf("%d steps at once", len(s.Steps))
	}
	return "expect"
}
