package results

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
)

type cukeFeature struct {
	URI      string        `json:"uri"`
	ID       string        `json:"id"`
	Keyword  string        `json:"keyword"`
	Name     string        `json:"name"`
	Line     int           `json:"line"`
	Elements []cukeElement `json:"elements"`
}

type cukeElement struct {
	ID      string     `json:"id"`
	Keyword string     `json:"keyword"`
	Name    string     `json:"name"`
	Line    int        `json:"line"`
	Type    string     `json:"type"`
	Tags    []cukeTag  `json:"tags"`
	Steps   []cukeStep `json:"steps"`
}

type cukeTag struct {
	Name string `json:"name"`
	Line int    `json:"line"`
}

type cukeStep struct {
	Keyword string     `json:"keyword"`
	Name    string     `json:"name"`
	Line    int        `json:"line"`
	Result  cukeResult `json:"result"`
}

type cukeResult struct {
	Status   string `json:"status"`
	Duration int64  `json:"duration,omitempty"`
	Error    string `json:"error_message,omitempty"`
}

// splitSource splits "file:line" into its parts.
func splitSource(src string) (string, int) {
	i := strings.LastIndexByte(src, ':')
	if i < 0 {
		return src, 0
	}
	n, err := strconv.Atoi(src[i+1:])
	if err != nil {
		return src, 0
	}
	return src[:i], n
}

// WriteCucumber writes every check of a run in the Cucumber JSON format,
// for tools that read it: a scenario under its feature file with its
// Gherkin steps and keywords, a vector under its vector file with one step
// per model step (keyword from what the step does). Steps pass up to the
// step that decided a non-pass verdict, which fails, and are skipped after
// it. As in JUnit, only what fails the run fails here: a warning, a
// not_applicable check and an excused failure are skipped, with the reason;
// a check an expectation names that ended otherwise fails, saying so; and
// every stale expectation is a failing scenario of the expectations file.
func WriteCucumber(w io.Writer, run *Run, checks []engine.Check) error {
	verdicts := map[string]Test{}
	for _, t := range run.Tests {
		verdicts[t.ID] = t
	}
	var features []cukeFeature
	index := map[string]int{}
	for _, c := range checks {
		t, ran := verdicts[c.ID]
		if !ran {
			continue
		}
		file, line := splitSource(c.Source)
		if c.Kind != "scenario" {
			file, _, _ = strings.Cut(c.Source, "#")
			line = 0
		}
		fi, ok := index[file]
		if !ok {
			fi = len(features)
			index[file] = fi
			features = append(features, cukeFeature{URI: file, ID: file, Keyword: "Feature", Name: file, Line: 1})
		}
		el := cukeElement{ID: c.ID, Keyword: "Scenario", Name: c.Title, Line: line, Type: "scenario", Tags: []cukeTag{}}
		if el.Name == "" {
			el.Name = c.ID
		}
		for _, tag := range append(append([]string{}, c.Tags...), c.Rules...) {
			el.Tags = append(el.Tags, cukeTag{Name: "@" + tag})
		}
		el.Steps = cukeSteps(c, t)
		features[fi].Elements = append(features[fi].Elements, el)
	}
	if ex := run.Expectations; ex != nil && len(ex.Stale) > 0 {
		// A stale expectation fails the run: as in JUnit, each is a
		// failing scenario of its own, under the expectations file.
		f := cukeFeature{URI: ex.File, ID: ex.File, Keyword: "Feature", Name: "expectations " + ex.File, Line: 1}
		for _, e := range ex.Stale {
			f.Elements = append(f.Elements, cukeElement{ID: "expectations/" + e.Entry, Keyword: "Scenario", Name: "expected failure " + e.Entry,
				Type: "scenario", Tags: []cukeTag{{Name: "@stale"}},
				Steps: []cukeStep{{Keyword: "Then ", Name: "the checks of " + e.Entry + " still fail (" + e.Reason + ")",
					Result: cukeResult{Status: "failed", Error: "stale: " + ex.StaleMessage(e)}}}})
		}
		features = append(features, f)
	}
	if features == nil {
		features = []cukeFeature{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(features)
}

// cukeSteps lists a check's steps (one per Gherkin line for a scenario)
// with their results.
func cukeSteps(c engine.Check, t Test) []cukeStep {
	var steps []cukeStep
	var decided bool // the step that decided the verdict has been listed
	for _, s := range c.Steps {
		_, l := splitSource(s.Source)
		if c.Kind == "scenario" && len(steps) > 0 && steps[len(steps)-1].Line == l {
			if s.Source == t.Step {
				decided = true
				steps[len(steps)-1].Result = cukeVerdict(t)
			}
			continue // several model steps of one Gherkin step
		}
		st := cukeStep{Keyword: s.Keyword, Name: s.Text, Line: l}
		if c.Kind != "scenario" {
			st.Keyword, st.Line = opKeyword(s.Op), 0
		}
		switch {
		case decided:
			st.Result = cukeResult{Status: "skipped"}
		case t.Step != "" && s.Source == t.Step:
			decided = true
			st.Result = cukeVerdict(t)
		default:
			st.Result = cukeResult{Status: "passed"}
		}
		steps = append(steps, st)
	}
	if t.Status == engine.Pass || decided || len(steps) == 0 {
		return steps
	}
	// No step decided the verdict (a preset, or the target could not be
	// prepared): the first step carries it and the rest are skipped.
	steps[0].Result = cukeVerdict(t)
	for i := 1; i < len(steps); i++ {
		steps[i].Result = cukeResult{Status: "skipped"}
	}
	return steps
}

// cukeVerdict is the result of the step that decided a non-pass verdict.
func cukeVerdict(t Test) cukeResult {
	msg := string(t.Status) + ": " + t.Message
	switch {
	case t.Excused():
		return cukeResult{Status: "skipped", Error: fmt.Sprintf("expected %s (%s: %s): %s", t.Status, t.Expected.Entry, t.Expected.Reason, t.Message)}
	case t.Unexpected():
		return cukeResult{Status: "failed", Error: string(t.Status) + ": " + t.ExpectedNote() + ": " + t.Message}
	case t.Status == engine.Warn, t.Status == engine.NotApplicable:
		return cukeResult{Status: "skipped", Error: msg}
	}
	return cukeResult{Status: "failed", Error: msg}
}

// opKeyword gives a vector step the Gherkin keyword of what it does.
func opKeyword(op engine.Op) string {
	switch op {
	case engine.OpControl:
		return "Given "
	case engine.OpExpect:
		return "Then "
	}
	return "When "
}

// WriteCucumberFile writes cucumber.json into dir (see WriteCucumber).
func WriteCucumberFile(dir string, run *Run, checks []engine.Check) error {
	return writeFile(filepath.Join(dir, "cucumber.json"), func(w io.Writer) error { return WriteCucumber(w, run, checks) })
}
