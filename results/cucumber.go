package results

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/sifu-dev/sifu/engine"
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

// WriteCucumber writes the scenario checks of a run in the Cucumber JSON
// format, for tools that read it. Steps are the Gherkin steps of each
// scenario: passed up to the step that decided a non-pass verdict, which
// failed, and skipped after it. Vectors are not Gherkin and are left out.
func WriteCucumber(w io.Writer, run *Run, checks []engine.Check) error {
	verdicts := map[string]Test{}
	for _, t := range run.Tests {
		verdicts[t.ID] = t
	}
	var features []cukeFeature
	index := map[string]int{}
	for _, c := range checks {
		t, ran := verdicts[c.ID]
		if c.Kind != "scenario" || !ran {
			continue
		}
		file, line := splitSource(c.Source)
		fi, ok := index[file]
		if !ok {
			fi = len(features)
			index[file] = fi
			features = append(features, cukeFeature{URI: file, ID: file, Keyword: "Feature", Name: file, Line: 1})
		}
		el := cukeElement{ID: c.ID, Keyword: "Scenario", Name: c.Title, Line: line, Type: "scenario", Tags: []cukeTag{}}
		for _, tag := range append(append([]string{}, c.Tags...), c.Rules...) {
			el.Tags = append(el.Tags, cukeTag{Name: "@" + tag})
		}
		status := "passed"
		switch t.Status {
		case engine.NotApplicable, engine.Untestable:
			status = "skipped"
		}
		for _, s := range c.Steps {
			_, l := splitSource(s.Source)
			if n := len(el.Steps); n > 0 && el.Steps[n-1].Line == l {
				continue // several model steps of one Gherkin step
			}
			st := cukeStep{Name: s.Text, Line: l, Result: cukeResult{Status: status}}
			if s.Source == t.Step && status == "passed" && t.Status != engine.Pass {
				st.Result = cukeResult{Status: "failed", Error: string(t.Status) + ": " + t.Message}
				status = "skipped"
			}
			el.Steps = append(el.Steps, st)
		}
		features[fi].Elements = append(features[fi].Elements, el)
	}
	if features == nil {
		features = []cukeFeature{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(features)
}
