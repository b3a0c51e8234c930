package report

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// site is everything the page shows.
type site struct {
	Suites []*suiteView
	// Generated is the newest start among the runs, so the same inputs
	// give the same page.
	Generated string
	Skipped   []Skipped
}

type suiteView struct {
	Name     string
	Spec     string
	Impls    []*implView
	Profiles []profileRow
	Rules    []*ruleRow
	Levels   []string
	Statuses []string
	Diffs    []diffView
	// Checks per implementation, for the page's script.
	Data suiteData
}

type implView struct {
	Index       int
	Label       string
	Short       string // the run's directory, last two parts, to tell runs of one implementation apart
	Target      string
	Dir         string
	Kind        string // "statement" or "results"
	Tests       results.Summary
	RuleCount   []count
	Claimed     []string
	Partial     bool
	Verified    string // "holds", "does not hold", "" for results
	Problems    []string
	Conditions  string
	Interrupted bool
}

// count is how many rules a run gave one status.
type count struct {
	Status string
	N      int
}

type profileRow struct {
	Name    string
	Summary string
	Cells   []string // per implementation: "n of m pass"
}

type ruleRow struct {
	ID       string
	Section  string
	Link     string
	Level    string
	Profiles []string
	Summary  string
	Cells    []cell
}

type cell struct {
	Rule      string
	ImplLabel string
	Impl      int
	Status    string // "" when the run did not report the rule
	Note      string
	Checks    int
}

type diffView struct {
	Old, New string
	Delta    *results.Delta
}

// suiteData is the JSON the page's script reads for a suite.
type suiteData struct {
	Impls []implData `json:"impls"`
}

type implData struct {
	Label  string           `json:"label"`
	Checks []checkData      `json:"checks"`
	Rules  map[string][]int `json:"rules"` // rule ID → indices into Checks
}

type checkData struct {
	ID      string `json:"id"`
	Title   string `json:"title,omitempty"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	Source  string `json:"source"`
	Lines   string `json:"lines,omitempty"`
	// File is the transcript data file, relative to the page ("" when the
	// check has no exchanges).
	File     string `json:"file,omitempty"`
	Expected string `json:"expected,omitempty"`
}

// transcriptLine is one exchange as the page renders it.
type transcriptLine struct {
	Line     int            `json:"line"`
	Op       string         `json:"op"`
	Agent    string         `json:"agent,omitempty"`
	Name     string         `json:"name,omitempty"`
	Key      string         `json:"key,omitempty"`
	Params   map[string]any `json:"params,omitempty"`
	Outcome  any            `json:"outcome,omitempty"`
	Error    string         `json:"error,omitempty"`
	Expected string         `json:"expected,omitempty"`
	Source   string         `json:"source"`
	// Decided marks the exchange whose answer decided a non-pass verdict.
	Decided bool `json:"decided,omitempty"`
}

// dataFile is one lazily loaded transcript.
type dataFile struct {
	Path string
	Key  string
	Body []transcriptLine
}

// build assembles the page and the transcript files from the runs.
func build(ctx context.Context, runs []*Run, plans map[string]*runner.Plan, skipped []Skipped) (*site, []dataFile, error) {
	s := &site{Skipped: skipped}
	bySuite := map[string][]*Run{}
	for _, r := range runs {
		bySuite[r.Results.Suite] = append(bySuite[r.Results.Suite], r)
		if r.Results.StartedAt > s.Generated {
			s.Generated = r.Results.StartedAt
		}
	}
	var files []dataFile
	for _, name := range sortedKeys(bySuite) {
		plan := plans[name]
		if plan == nil {
			return nil, nil, fmt.Errorf("suite %s: this harness has no such suite", name)
		}
		sv, f := buildSuite(ctx, name, plan, bySuite[name])
		s.Suites = append(s.Suites, sv)
		files = append(files, f...)
	}
	return s, files, nil
}

func buildSuite(ctx context.Context, name string, plan *runner.Plan, runs []*Run) (*suiteView, []dataFile) {
	cat := plan.Catalogue
	sv := &suiteView{Name: name, Spec: cat.Spec.Name + " " + cat.Spec.Version}
	checks := map[string]engine.Check{}
	for _, c := range plan.Checks {
		checks[c.ID] = c
	}
	var files []dataFile
	byRule := make([]map[string]results.Rule, len(runs))
	for i, r := range runs {
		iv := &implView{Index: i, Label: r.Label(), Short: shortDir(r.Dir), Target: r.Results.Target.Name, Dir: filepath.ToSlash(r.Dir), Kind: "results",
			Tests: r.Results.Summary, Interrupted: r.Results.Interrupted}
		if c := r.Results.Conditions; c != nil {
			iv.Conditions = c.String()
		}
		if r.MarkdownOnly {
			iv.Kind, iv.Claimed = "statement", r.Claimed
			iv.Verified = "cannot run: conformance.json and the transcript are not published"
		}
		if d := r.Statement; d != nil {
			iv.Kind, iv.Claimed, iv.Partial = "statement", d.Claimed, d.Partial
			switch {
			case r.TranscriptNotKept:
				iv.Verified = "cannot judge its verdicts again: the transcript is not kept"
			case r.VerifyError != "":
				iv.Verified, iv.Problems = "could not be verified", []string{r.VerifyError}
			case len(r.Problems) > 0:
				iv.Verified, iv.Problems = "does not hold", r.Problems
			default:
				iv.Verified = "holds"
			}
		}
		byRule[i] = map[string]results.Rule{}
		counts := map[string]int{}
		for _, rr := range r.Results.Rules {
			byRule[i][rr.ID] = rr
			counts[rr.Status]++
		}
		have := map[string]bool{}
		for st := range counts {
			have[st] = true
		}
		for _, st := range orderStatuses(have) {
			iv.RuleCount = append(iv.RuleCount, count{st, counts[st]})
		}
		sv.Impls = append(sv.Impls, iv)
		data := implData{Label: iv.Label, Rules: map[string][]int{}}
		index := map[string]int{}
		for k, t := range r.Results.Tests {
			cd := checkData{ID: t.ID, Title: t.Title, Status: string(t.Status), Message: t.Message, Source: t.Source}
			if t.Lines != nil {
				cd.Lines = fmt.Sprintf("%d–%d", t.Lines.From, t.Lines.To)
			}
			if len(t.Transcript) > 0 {
				cd.File = fmt.Sprintf("data/%s/%d/%d.js", slug(name), i, k)
				files = append(files, dataFile{Path: cd.File, Key: cd.File, Body: render(ctx, checks[t.ID], t, plan.Suite.Vocabulary)})
			}
			index[t.ID] = k
			data.Checks = append(data.Checks, cd)
		}
		for _, rr := range r.Results.Rules {
			for _, id := range rr.Evidence {
				if k, ok := index[id]; ok {
					data.Rules[rr.ID] = append(data.Rules[rr.ID], k)
				}
			}
		}
		sv.Data.Impls = append(sv.Data.Impls, data)
	}
	levels, statuses := map[string]bool{}, map[string]bool{}
	for _, rule := range cat.Rules {
		row := &ruleRow{ID: rule.ID, Section: rule.Section, Link: cat.Spec.SectionLink(rule.Section), Level: rule.Level, Profiles: rule.Profiles, Summary: rule.Summary}
		levels[rule.Level] = true
		for i := range runs {
			rr, ok := byRule[i][rule.ID]
			c := cell{Rule: rule.ID, ImplLabel: sv.Impls[i].Label, Impl: i}
			if ok {
				c.Status, c.Note, c.Checks = rr.Status, rr.Note, len(rr.Evidence)
				statuses[rr.Status] = true
			}
			row.Cells = append(row.Cells, c)
		}
		sv.Rules = append(sv.Rules, row)
	}
	sv.Levels = sortedKeys(levels)
	sv.Statuses = orderStatuses(statuses)
	for _, p := range cat.Profiles {
		scope, _ := cat.Closure([]string{p.Name})
		pr := profileRow{Name: p.Name, Summary: p.Summary}
		for i, r := range runs {
			if checked, _ := cat.Closure(r.Results.Profiles); !checked[p.Name] {
				pr.Cells = append(pr.Cells, "not checked")
				continue
			}
			total, pass := 0, 0
			for _, rule := range cat.Rules {
				in, _ := catalogue.Scope(rule, scope, scope)
				rr, reported := byRule[i][rule.ID]
				if !in || !reported {
					continue
				}
				total++
				if rr.Status == results.RulePass || rr.Status == results.RuleNotBlackBox {
					pass++
				}
			}
			if total == 0 {
				pr.Cells = append(pr.Cells, "no rule of its own")
			} else {
				pr.Cells = append(pr.Cells, fmt.Sprintf("%d of %d", pass, total))
			}
		}
		sv.Profiles = append(sv.Profiles, pr)
	}
	// Two runs of one implementation: the later against the earlier.
	for i := range runs {
		for j := i + 1; j < len(runs); j++ {
			a, b := runs[i], runs[j]
			if a.Results.Target.Implementation == "" || a.Results.Target.Implementation != b.Results.Target.Implementation {
				continue
			}
			if b.Results.StartedAt < a.Results.StartedAt {
				a, b = b, a
			}
			if d, err := results.Diff(a.Results, b.Results); err == nil {
				sv.Diffs = append(sv.Diffs, diffView{Old: a.Label() + " (" + a.Dir + ")", New: b.Label() + " (" + b.Dir + ")", Delta: d})
			}
		}
	}
	return sv, files
}

// render pairs each recorded exchange of a test with the step that made it
// and what that step expected, each exchange whole: what the transcript
// left out because the check says it (engine.Rebuild) is put back.
func render(ctx context.Context, c engine.Check, t results.Test, vocab engine.Vocabulary) []transcriptLine {
	expected := expectations(c.Steps)
	// A transcript the check no longer makes shows as far as it rebuilds.
	whole, _ := engine.Rebuild(ctx, c, t.Transcript, vocab)
	out := make([]transcriptLine, len(whole))
	for i, ex := range whole {
		tl := transcriptLine{Op: string(ex.Op), Agent: ex.Agent, Name: ex.Name, Key: ex.Key, Params: ex.Params, Error: ex.Error, Source: ex.Source}
		if t.Lines != nil {
			tl.Line = t.Lines.From + i
		}
		if ex.Outcome != nil {
			tl.Outcome = ex.Outcome
		}
		if i < len(expected) {
			tl.Expected = expected[i]
		}
		out[i] = tl
	}
	if t.Status != engine.Pass && len(out) > 0 {
		for i := len(out) - 1; i >= 0; i-- {
			if out[i].Source == t.Step || (t.Step == "" && i == len(out)-1) {
				out[i].Decided = true
				break
			}
		}
	}
	return out
}

// expectations lists, for every step that sends something (in the order
// the transcript records them), what the check expected of its answer:
// its own expectation and those of the expect steps right after it.
func expectations(steps []engine.Step) []string {
	var out []string
	var last = -1
	var walk func([]engine.Step, bool)
	walk = func(steps []engine.Step, inParallel bool) {
		for _, s := range steps {
			switch s.Op {
			case engine.OpParallel:
				walk(s.Steps, true)
				if s.Expect != nil && last >= 0 {
					out[last] = join(out[last], "together: "+describe(s.Expect))
				}
			case engine.OpExpect:
				if last >= 0 && s.Expect != nil {
					out[last] = join(out[last], describe(s.Expect))
				}
			default:
				out = append(out, "")
				last = len(out) - 1
				if s.Expect != nil {
					out[last] = describe(s.Expect)
				}
			}
		}
	}
	walk(steps, false)
	return out
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// describe says what an expectation asks, in a line.
func describe(e *engine.Expect) string {
	var parts []string
	switch e.Outcome {
	case "ok":
		parts = append(parts, "succeeds")
	case "rejected":
		r := "is rejected"
		if e.Reason != "" {
			r += " with reason " + e.Reason
		}
		if e.NextStep != "" {
			r += ", next step " + e.NextStep
		}
		parts = append(parts, r)
	}
	for _, m := range e.Match {
		raw, _ := json.Marshal(m.Matcher)
		parts = append(parts, m.Pointer+" "+string(raw))
	}
	if e.SameAs != "" {
		parts = append(parts, "indistinguishable from "+e.SameAs)
	}
	return strings.Join(parts, ", ")
}

var statusOrder = []string{results.RulePass, results.RuleFail, results.RuleWarn, results.RuleNotEvidenced, results.RuleNotApplicable,
	results.RuleNotBlackBox, string(engine.Untestable), string(engine.Timeout), string(engine.HarnessError)}

func orderStatuses(have map[string]bool) []string {
	var out []string
	for _, s := range statusOrder {
		if have[s] {
			out = append(out, s)
		}
	}
	for _, s := range sortedKeys(have) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// shortDir is the last two parts of a directory ("peers/kcp-agent-0.27.0").
func shortDir(dir string) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(dir)), "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}
