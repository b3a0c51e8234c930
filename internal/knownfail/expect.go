// Package expect applies an implementer's expectations file: known failures,
// each with a reason, that do not fail the run — and that fail it as stale
// the moment their checks pass, so the list can never quietly outlive the
// bugs it excuses.
package knownfail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/results"
)

// File is sifu.expect.yaml.
type File struct {
	Suite            string  `yaml:"suite"`
	ExpectedFailures []Entry `yaml:"expected_failures"`
}

// Entry names a check ID or a rule ID that is known not to pass.
type Entry struct {
	ID     string `yaml:"id"`
	Reason string `yaml:"reason"`
	Link   string `yaml:"link,omitempty"`
}

// Load reads and checks an expectations file: unknown fields, missing
// reasons and duplicate entries are errors naming the entry.
func Load(path string) (*File, []byte, error) {
	raw, err := inputfile.Read(path)
	if err != nil {
		return nil, nil, err
	}
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(inputfile.Text(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	for i, e := range f.ExpectedFailures {
		switch {
		case e.ID == "":
			return nil, nil, fmt.Errorf("%s: expected_failures[%d] has no id (a rule ID or a check ID)", path, i)
		case e.Reason == "":
			return nil, nil, fmt.Errorf("%s: expected_failures[%d] (%s) has no reason; every exclusion says why", path, i, e.ID)
		case strings.HasPrefix(strings.TrimSpace(e.Reason), "TODO"):
			return nil, nil, fmt.Errorf("%s: expected_failures[%d] (%s) still has the TODO reason `sifu expect update` wrote; replace it with why the failure is expected", path, i, e.ID)
		case seen[e.ID]:
			return nil, nil, fmt.Errorf("%s: expected_failures[%d] (%s) appears twice", path, i, e.ID)
		}
		seen[e.ID] = true
	}
	return &f, raw, nil
}

// Apply marks the run's failures that the file expects, finds stale entries
// and records both in the run. An entry naming neither a check of the plan
// nor a rule of the catalogue is an error.
func Apply(f *File, raw []byte, path string, run *results.Run, cat *catalogue.Catalogue, checkIDs []string) error {
	if f.Suite != "" && f.Suite != run.Suite {
		return fmt.Errorf("%s: suite is %q, the run is of %q", path, f.Suite, run.Suite)
	}
	sum := sha256.Sum256(raw)
	rep := &results.Expectations{File: path, SHA256: hex.EncodeToString(sum[:]), Entries: []results.Expected{}, Stale: []results.Expected{}}
	for _, e := range f.ExpectedFailures {
		_, isRule := cat.Rule(e.ID)
		if !isRule && !slices.Contains(checkIDs, e.ID) {
			return fmt.Errorf("%s: %s is neither a check ID nor a rule ID of the %s suite", path, e.ID, run.Suite)
		}
		ex := results.Expected{Entry: e.ID, Reason: e.Reason, Link: e.Link}
		rep.Entries = append(rep.Entries, ex)
		covered, failing := 0, 0
		for i := range run.Tests {
			t := &run.Tests[i]
			if t.ID != e.ID && !slices.Contains(t.Rules, e.ID) {
				continue
			}
			if t.Status == engine.NotApplicable {
				continue
			}
			covered++
			if t.Status != engine.Pass {
				failing++
				if t.Expected == nil {
					t.Expected = &ex
				}
			}
		}
		if covered > 0 && failing == 0 {
			rep.Stale = append(rep.Stale, ex)
		}
	}
	run.Summary.ExpectedFail, run.Summary.Stale = 0, len(rep.Stale)
	for _, t := range run.Tests {
		if t.Expected != nil && t.Status != engine.Warn {
			run.Summary.ExpectedFail++
		}
	}
	run.Expectations = rep
	return nil
}

// Update writes an expectations file listing every check of a run that did
// not pass, keeping the reasons of entries still needed.
func Update(run *results.Run, old *File) *File {
	reasons := map[string]Entry{}
	if old != nil {
		for _, e := range old.ExpectedFailures {
			reasons[e.ID] = e
		}
	}
	out := &File{Suite: run.Suite, ExpectedFailures: []Entry{}}
	for _, t := range run.Tests {
		if t.Status == engine.Pass || t.Status == engine.NotApplicable {
			continue
		}
		e, ok := reasons[t.ID]
		if !ok && t.Expected != nil {
			e, ok = reasons[t.Expected.Entry]
			e.ID = t.ID
		}
		if !ok {
			e = Entry{ID: t.ID, Reason: "TODO: say why " + string(t.Status) + " is expected (" + firstLine(t.Message) + ")"}
		}
		out.ExpectedFailures = append(out.ExpectedFailures, e)
	}
	sort.Slice(out.ExpectedFailures, func(i, j int) bool { return out.ExpectedFailures[i].ID < out.ExpectedFailures[j].ID })
	return out
}

// Marshal renders a file as YAML.
func Marshal(f *File) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# Known failures of this implementation against sifu. Every entry needs a reason.\n")
	b.WriteString("# An entry whose checks all pass fails the run as stale: delete it then.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
