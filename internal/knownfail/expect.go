// Package knownfail applies an implementer's expectations file: known
// failures, each naming the checks it excuses, the status it expects of
// them and a reason, that do not fail the run — and that fail it the
// moment a check ends otherwise, or passes (as stale), so the list can
// never quietly outlive, or outgrow, the bugs it excuses.
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

// Entry excuses the checks it names when they end with Status (fail when
// not given). Checks fail in every run, and an entry one of whose Checks
// passes is stale; Intermittent checks catch the fault in some runs only,
// so their passes are not stale. Rule, when given, is the rule every
// listed check evidences. ID is the older form of an entry of one check:
// `id: <check ID>` is `checks: [<check ID>]`; a rule ID there is refused,
// for it would excuse every check of the rule.
type Entry struct {
	ID           string        `yaml:"id,omitempty"`
	Rule         string        `yaml:"rule,omitempty"`
	Status       engine.Status `yaml:"status,omitempty"`
	Checks       []string      `yaml:"checks,omitempty"`
	Intermittent []string      `yaml:"intermittent,omitempty"`
	Reason       string        `yaml:"reason"`
	Link         string        `yaml:"link,omitempty"`
}

// Label names the entry in reports: its rule, or its checks.
func (e Entry) Label() string {
	switch {
	case e.Rule != "":
		return e.Rule
	case e.ID != "":
		return e.ID
	}
	return strings.Join(e.Checks, ", ")
}

// status is the status the entry expects: fail when it gives none.
func (e Entry) status() engine.Status {
	if e.Status == "" {
		return engine.Fail
	}
	return e.Status
}

// named lists every check the entry names: its checks, then its
// intermittent ones.
func (e Entry) named() []string {
	if e.ID != "" {
		return append([]string{e.ID}, e.Intermittent...)
	}
	return append(slices.Clone(e.Checks), e.Intermittent...)
}

// expectable are the statuses an entry may expect. A pass and a
// not_applicable check need no excuse, and a harness error is sifu's fault,
// never the implementation's: report it rather than expect it.
var expectable = []engine.Status{engine.Fail, engine.Warn, engine.Untestable, engine.Timeout}

// Load reads and checks an expectations file: unknown fields, entries that
// name no check, missing or TODO reasons, statuses an entry cannot expect
// and checks named twice are errors naming the entry. Whether the IDs are
// checks and rules of the suite Apply checks, against the plan.
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
	seen := map[string]int{}
	for i, e := range f.ExpectedFailures {
		at := fmt.Sprintf("%s: expected_failures[%d]", path, i)
		if l := e.Label(); l != "" {
			at += " (" + l + ")"
		}
		switch {
		case e.ID == "" && e.Rule == "" && len(e.Checks) == 0:
			return nil, nil, fmt.Errorf("%s names no check: list the checks it excuses under checks: (with rule: the rule they evidence), or give one check ID as id:", at)
		case e.ID != "" && (e.Rule != "" || len(e.Checks) > 0):
			return nil, nil, fmt.Errorf("%s gives id: and rule:/checks: together; an entry names its checks one way: id: <one check ID>, or checks: [...] (with rule:)", at)
		case e.ID == "" && len(e.Checks) == 0 && len(e.Intermittent) > 0:
			return nil, nil, fmt.Errorf("%s lists only intermittent checks, so it could never be found stale; list under checks: at least one check that fails in every run", at)
		case e.ID == "" && len(e.Checks) == 0:
			return nil, nil, fmt.Errorf("%s names rule %s but no checks: an entry excuses only the checks it lists; list the checks of %s that fail for this reason under checks: (`sifu expect update results.json` writes them)", at, e.Rule, e.Rule)
		case e.Status != "" && !slices.Contains(expectable, e.Status):
			return nil, nil, fmt.Errorf("%s expects status %q; an entry expects one of %s (a harness_error is sifu's fault: report it, do not expect it)", at, e.Status, statusList())
		case e.Reason == "":
			return nil, nil, fmt.Errorf("%s has no reason; every exclusion says why", at)
		case strings.HasPrefix(strings.TrimSpace(e.Reason), "TODO"):
			return nil, nil, fmt.Errorf("%s still has the TODO reason `sifu expect update` wrote; replace it with why the failure is expected", at)
		}
		for _, c := range e.named() {
			if j, twice := seen[c]; twice {
				if j == i {
					return nil, nil, fmt.Errorf("%s names check %s twice (a check is either one that fails in every run, under checks:, or intermittent)", at, c)
				}
				return nil, nil, fmt.Errorf("%s names check %s, which expected_failures[%d] names already; a check has one expectation", at, c, j)
			}
			seen[c] = i
		}
	}
	return &f, raw, nil
}

func statusList() string {
	var s []string
	for _, st := range expectable {
		s = append(s, string(st))
	}
	return strings.Join(s, ", ")
}

// Apply marks the run's checks that the file's entries name, finds the
// stale entries and records both in the run. A check named by an entry
// is excused only when it ends with the status the entry expects; with
// any other status it fails the run, marked with what was expected. An ID
// that is no check of the plan, a rule that is not the catalogue's, a
// check listed under a rule it does not evidence, and a rule ID given as
// id: are errors.
func Apply(f *File, raw []byte, path string, run *results.Run, cat *catalogue.Catalogue, checks []engine.Check) error {
	if f.Suite != "" && f.Suite != run.Suite {
		return fmt.Errorf("%s: suite is %q, the run is of %q", path, f.Suite, run.Suite)
	}
	rulesOf := map[string][]string{}
	for _, c := range checks {
		rulesOf[c.ID] = c.Rules
	}
	for i, e := range f.ExpectedFailures {
		if err := e.check(i, path, run.Suite, cat, checks, rulesOf); err != nil {
			return err
		}
	}
	tests := map[string]*results.Test{}
	for i := range run.Tests {
		tests[run.Tests[i].ID] = &run.Tests[i]
	}
	sum := sha256.Sum256(raw)
	rep := &results.Expectations{File: path, SHA256: hex.EncodeToString(sum[:]), Entries: []results.ExpectEntry{}, Stale: []results.StaleEntry{}}
	for _, e := range f.ExpectedFailures {
		every := e.Checks
		if e.ID != "" {
			every = []string{e.ID}
		}
		rep.Entries = append(rep.Entries, results.ExpectEntry{Entry: e.Label(), Status: e.status(), Checks: slices.Clone(every),
			Intermittent: slices.Clone(e.Intermittent), Reason: e.Reason, Link: e.Link})
		ex := results.Expected{Entry: e.Label(), Status: e.status(), Reason: e.Reason, Link: e.Link}
		var passed []string
		for _, id := range e.named() {
			t, ran := tests[id]
			if !ran || t.Status == engine.NotApplicable {
				continue
			}
			if t.Status == engine.Pass {
				if slices.Contains(every, id) {
					passed = append(passed, id)
				}
				continue
			}
			mark := ex
			t.Expected = &mark
		}
		if len(passed) > 0 {
			rep.Stale = append(rep.Stale, results.StaleEntry{Entry: e.Label(), Reason: e.Reason, Passed: passed})
		}
	}
	run.Summary.ExpectedFail, run.Summary.Stale, run.Summary.Unexpected = 0, len(rep.Stale), 0
	for _, t := range run.Tests {
		switch {
		case t.Excused() && t.Status != engine.Warn:
			run.Summary.ExpectedFail++
		case t.Unexpected():
			run.Summary.Unexpected++
		}
	}
	run.Expectations = rep
	return nil
}

// check is Apply's check of one entry against the plan.
func (e Entry) check(i int, path, suite string, cat *catalogue.Catalogue, checks []engine.Check, rulesOf map[string][]string) error {
	at := fmt.Sprintf("%s: expected_failures[%d] (%s)", path, i, e.Label())
	if e.ID != "" {
		if _, isCheck := rulesOf[e.ID]; !isCheck {
			if _, isRule := cat.Rule(e.ID); isRule {
				return fmt.Errorf("%s: %s is a rule ID, and an entry excuses only the checks it names, with the status it expects; write it as\n  - rule: %s\n    status: fail\n    checks: [the checks of %s that fail for this reason: %s]\n    reason: …\n(`sifu expect update results.json` rewrites the file so from a run)",
					at, e.ID, e.ID, e.ID, strings.Join(checksOf(e.ID, checks), ", "))
			}
			return fmt.Errorf("%s: %s is not a check ID of the %s suite (`sifu run --suite %s --list` lists them)", at, e.ID, suite, suite)
		}
	}
	if e.Rule != "" {
		if _, isRule := cat.Rule(e.Rule); !isRule {
			return fmt.Errorf("%s: rule %s is not a rule of the %s suite's catalogue", at, e.Rule, suite)
		}
	}
	for _, id := range e.named() {
		rules, isCheck := rulesOf[id]
		switch {
		case !isCheck:
			return fmt.Errorf("%s: %s is not a check ID of the %s suite (`sifu run --suite %s --list` lists them)", at, id, suite, suite)
		case e.Rule != "" && !slices.Contains(rules, e.Rule):
			return fmt.Errorf("%s: check %s does not evidence rule %s (it evidences %s); list it in an entry of its own rule", at, id, e.Rule, strings.Join(rules, ", "))
		}
	}
	return nil
}

func checksOf(rule string, checks []engine.Check) []string {
	var ids []string
	for _, c := range checks {
		if slices.Contains(c.Rules, rule) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// Update writes an expectations file from a run: every check that did not
// pass is named, with the status it ended with. A check an entry of old
// names stays in that entry (intermittent if it was), with its reason; a
// check of a rule an older `id: <rule ID>` entry names goes to an entry of
// that rule with its reason; the others go to new entries, one per rule
// and status, with a TODO reason. Checks of old that pass now are left
// out, but for intermittent ones, which stay.
func Update(run *results.Run, old *File) *File {
	type key struct {
		from   int // index in old, or -1
		rule   string
		status engine.Status
	}
	type group struct {
		key
		every, sometimes []string
		reason, link     string
	}
	var groups []*group
	byKey := map[key]*group{}
	add := func(k key, id string, intermittent bool, reason, link string) {
		g := byKey[k]
		if g == nil {
			g = &group{key: k, reason: reason, link: link}
			byKey[k] = g
			groups = append(groups, g)
		}
		if intermittent {
			g.sometimes = append(g.sometimes, id)
		} else {
			g.every = append(g.every, id)
		}
	}
	isCheck := map[string]bool{}
	for _, t := range run.Tests {
		isCheck[t.ID] = true
	}
	named := map[string]int{} // check ID → index of the old entry naming it
	intermittent := map[string]bool{}
	legacyRule := map[string]int{} // rule ID of an `id: <rule>` entry → its index
	var entries []Entry
	if old != nil {
		entries = old.ExpectedFailures
	}
	for i, e := range entries {
		if e.ID != "" && !isCheck[e.ID] {
			if _, dup := legacyRule[e.ID]; !dup {
				legacyRule[e.ID] = i
			}
			continue
		}
		for _, c := range e.named() {
			if _, dup := named[c]; !dup {
				named[c] = i
			}
		}
		for _, c := range e.Intermittent {
			intermittent[c] = true
		}
	}
	for _, t := range run.Tests {
		if t.Status == engine.NotApplicable || (t.Status == engine.Pass && !intermittent[t.ID]) {
			continue
		}
		if i, ok := named[t.ID]; ok {
			e := entries[i]
			st := t.Status
			if st == engine.Pass {
				st = e.status()
			}
			add(key{i, e.Rule, st}, t.ID, intermittent[t.ID], e.Reason, e.Link)
			continue
		}
		if t.Status == engine.Pass {
			continue
		}
		legacy := -1
		for _, r := range t.Rules {
			if i, ok := legacyRule[r]; ok && (legacy < 0 || i < legacy) {
				legacy = i
			}
		}
		if legacy >= 0 {
			e := entries[legacy]
			add(key{legacy, e.ID, t.Status}, t.ID, false, e.Reason, e.Link)
			continue
		}
		rule := ""
		if len(t.Rules) > 0 {
			rule = t.Rules[0]
		}
		add(key{-1, rule, t.Status}, t.ID, false, "TODO: say why "+string(t.Status)+" is expected ("+firstLine(t.Message)+")", "")
	}
	out := &File{Suite: run.Suite, ExpectedFailures: []Entry{}}
	for _, g := range groups {
		if len(g.every) == 0 && len(g.sometimes) == 0 {
			continue
		}
		if len(g.every) == 0 {
			// Only intermittent checks remain: those that failed now
			// are the entry's checks, or it is gone.
			var kept []string
			for _, id := range g.sometimes {
				if t := testOf(run, id); t != nil && t.Status != engine.Pass {
					g.every = append(g.every, id)
				} else {
					kept = append(kept, id)
				}
			}
			if len(g.every) == 0 {
				continue
			}
			g.sometimes = kept
		}
		sort.Strings(g.every)
		sort.Strings(g.sometimes)
		out.ExpectedFailures = append(out.ExpectedFailures, Entry{Rule: g.rule, Status: g.status, Checks: g.every,
			Intermittent: g.sometimes, Reason: g.reason, Link: g.link})
	}
	sort.SliceStable(out.ExpectedFailures, func(i, j int) bool {
		a, b := out.ExpectedFailures[i], out.ExpectedFailures[j]
		if a.Label() != b.Label() {
			return a.Label() < b.Label()
		}
		return a.Status < b.Status
	})
	return out
}

func testOf(run *results.Run, id string) *results.Test {
	for i := range run.Tests {
		if run.Tests[i].ID == id {
			return &run.Tests[i]
		}
	}
	return nil
}

// Marshal renders a file as YAML.
func Marshal(f *File) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# Known failures of this implementation against sifu. Every entry names the checks it excuses,\n")
	b.WriteString("# the status it expects of them and a reason; a check that ends otherwise fails the run.\n")
	b.WriteString("# A check under checks: that passes makes the entry stale, which fails the run: take it out then.\n")
	b.WriteString("# A check that catches its fault in some runs only goes under intermittent: (its passes are not stale).\n")
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
