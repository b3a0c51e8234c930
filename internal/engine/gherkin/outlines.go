package gherkin

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	gherkinparser "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"
)

// placeholder matches an outline's <column>, as Gherkin fills it from an
// example row.
var placeholder = regexp.MustCompile(`<([^<>\s][^<>]*)>`)

// outlineProblems refuses the outlines Gherkin would compile to a check
// that does not check what it says: one without Examples runs its steps
// with the placeholders' own text ("<x>"), an Examples table without rows
// compiles to no check at all, and a placeholder no column fills is run
// as written. Each problem names the file and line.
func outlineProblems(file string, doc *messages.GherkinDocument) []string {
	if doc.Feature == nil {
		return nil
	}
	var outlineKeywords []string
	if d := gherkinparser.DialectsBuiltin().GetDialect(doc.Feature.Language); d != nil {
		outlineKeywords = d.ScenarioOutlineKeywords()
	}
	var problems []string
	told := map[string]bool{}
	eachChild(doc, func([]*messages.Step) {}, func(s *messages.Scenario) {
		at := fmt.Sprintf("%s:%d", file, s.Location.Line)
		if len(s.Examples) == 0 {
			if slices.Contains(outlineKeywords, s.Keyword) {
				problems = append(problems, fmt.Sprintf("%s: %s %q has no Examples%s; add an Examples table with at least one row, or make it a plain Scenario",
					at, s.Keyword, s.Name, placeholdersOf(s)))
			}
			return
		}
		for _, ex := range s.Examples {
			if ex.TableHeader == nil || len(ex.TableBody) == 0 {
				problems = append(problems, fmt.Sprintf("%s: %s %q has an Examples table (line %d) with no row, so it would check nothing; add at least one row under the table's header (each row is one check), or remove the table",
					at, s.Keyword, s.Name, ex.Location.Line))
				continue
			}
			columns := cellValues(ex.TableHeader)
			for _, t := range templates(s) {
				for _, m := range placeholder.FindAllStringSubmatch(t.text, -1) {
					where := fmt.Sprintf("%s:%d", file, t.line)
					if slices.Contains(columns, m[1]) || told[where+m[0]] {
						continue
					}
					told[where+m[0]] = true
					problems = append(problems, fmt.Sprintf("%s: %s names the placeholder %s, but the Examples table at line %d has no column %q (its columns: %s), so it would run as written; add the column, or correct the placeholder",
						where, t.what, m[0], ex.Location.Line, m[1], strings.Join(columns, ", ")))
				}
			}
		}
	})
	return problems
}

// template is a text of an outline Gherkin fills from an example row.
type template struct {
	what, text string
	line       int64
}

// templates are the outline's name and every text of its steps that
// Gherkin fills from an example row: the step, its doc string and its
// table's cells.
func templates(s *messages.Scenario) []template {
	out := []template{{what: "the title", text: s.Name, line: s.Location.Line}}
	for _, st := range s.Steps {
		what := fmt.Sprintf("the step %q", strings.TrimSpace(st.Keyword)+" "+st.Text)
		out = append(out, template{what: what, text: st.Text, line: st.Location.Line})
		if d := st.DocString; d != nil {
			out = append(out, template{what: "the doc string of " + what, text: d.Content, line: d.Location.Line})
		}
		if tb := st.DataTable; tb != nil {
			for _, row := range tb.Rows {
				for _, cell := range row.Cells {
					out = append(out, template{what: "the table of " + what, text: cell.Value, line: row.Location.Line})
				}
			}
		}
	}
	return out
}

// placeholdersOf says, for a message, which placeholders of an outline
// would run as written.
func placeholdersOf(s *messages.Scenario) string {
	var seen []string
	for _, t := range templates(s) {
		for _, m := range placeholder.FindAllString(t.text, -1) {
			if !slices.Contains(seen, m) {
				seen = append(seen, m)
			}
		}
	}
	if len(seen) == 0 {
		return ""
	}
	return ", so its steps would run with the placeholders' own text (" + strings.Join(seen, ", ") + ")"
}
