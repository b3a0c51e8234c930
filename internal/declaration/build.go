package declaration

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/recordjson"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// Sources are the suite files a declaration is bound to.
type Sources struct {
	FS        fs.FS
	Catalogue string
	Features  string
	Vectors   string
}

// Digests hashes the suite's catalogue, features and vectors.
func (s Sources) Digests() (cat, features, vectors Digest, err error) {
	raw, err := inputfile.ReadFS(s.FS, s.Catalogue)
	if err != nil {
		return cat, features, vectors, err
	}
	cat = Digest{Path: s.Catalogue, SHA256: Sum(raw)}
	if features, err = TreeDigest(s.FS, s.Features, ".feature"); err != nil {
		return
	}
	vectors, err = TreeDigest(s.FS, s.Vectors, ".json", s.Catalogue)
	return
}

// Build makes the declaration of a run. resultsJSON is results.json exactly
// as written; the run must carry its transcript digest (results.WriteDir).
func Build(cat *catalogue.Catalogue, src Sources, run *results.Run, resultsJSON []byte, deviations []Deviation, expectations *Digest, now time.Time) (*Declaration, error) {
	if run.Transcript == nil {
		return nil, fmt.Errorf("the run has no transcript file; write the results first")
	}
	if run.Interrupted {
		return nil, fmt.Errorf("the run was interrupted before every check ended; a statement needs a whole run")
	}
	claimed, unmet, err := Claims(cat, run)
	if err != nil {
		return nil, err
	}
	catD, featD, vecD, err := src.Digests()
	if err != nil {
		return nil, fmt.Errorf("hash the suite files: %w", err)
	}
	d := &Declaration{
		Format:         Format,
		Suite:          run.Suite,
		Spec:           Spec{Name: cat.Spec.Name, Version: cat.Spec.Version},
		Implementation: Implementation{Name: run.Target.Implementation, Version: run.Target.Version, Commit: run.Target.Commit, Target: run.Target.Name},
		Harness:        run.Harness,
		Date:           now.UTC().Format("2006-01-02"),
		Checked:        nonNil(run.Profiles),
		Claimed:        claimed,
		Unmet:          nonNil(unmet),
		Deviations:     nonNil(deviations),
		Evidence: Evidence{Catalogue: catD, Features: featD, Vectors: vecD, Expectations: expectations,
			Results:    Digest{Path: "results.json", SHA256: Sum(resultsJSON)},
			Transcript: Digest{Path: run.Transcript.File, SHA256: run.Transcript.SHA256}},
	}
	checkedClosure, _ := cat.Closure(run.Profiles)
	for p := range checkedClosure {
		if p != "core" && !slices.Contains(claimed, p) {
			d.Partial = true
		}
	}
	tests := map[string]results.Test{}
	for _, t := range run.Tests {
		tests[t.ID] = t
	}
	for _, r := range run.Rules {
		e := RuleEntry{ID: r.ID, Level: r.Level, Profiles: r.Profile, Status: r.Status, Evidence: []Evidenced{}}
		for _, id := range r.Evidence {
			t := tests[id]
			e.Evidence = append(e.Evidence, Evidenced{Check: id, Status: string(t.Status), Lines: t.Lines})
		}
		d.Rules = append(d.Rules, e)
		if r.Status == results.RuleNotBlackBox {
			rule, _ := cat.Rule(r.ID)
			d.NotBlackBox = append(d.NotBlackBox, NotBlackBox{ID: r.ID, Level: r.Level, Reason: rule.Reason})
		}
	}
	d.Rules = nonNil(d.Rules)
	d.NotBlackBox = nonNil(d.NotBlackBox)
	return d, nil
}

// Write stores conformance.json and conformance.md in dir.
func Write(dir string, d *Declaration, cat *catalogue.Catalogue) error {
	js, err := recordjson.Marshal(d)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "conformance.json"), js, 0o644); err != nil {
		return fmt.Errorf("write conformance.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "conformance.md"), []byte(Markdown(d, cat)), 0o644); err != nil {
		return fmt.Errorf("write conformance.md: %w", err)
	}
	return nil
}

// Markdown renders a declaration for people, with each rule's section and
// what it says taken from the catalogue. It follows from conformance.json
// and the catalogue alone, so verify can write it again and compare.
func Markdown(d *Declaration, cat *catalogue.Catalogue) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Conformance statement: %s %s\n\n", d.Spec.Name, d.Spec.Version)
	w("| | |\n|---|---|\n")
	w("| Implementation | %s %s%s (target `%s`) |\n", orDash(d.Implementation.Name), d.Implementation.Version, commit(d.Implementation.Commit), d.Implementation.Target)
	w("| Harness | %s %s%s |\n", d.Harness.Name, d.Harness.Version, commit(d.Harness.Commit))
	w("| Date | %s |\n", d.Date)
	w("| Profiles checked | %s |\n", strings.Join(d.Checked, ", "))
	w("| Profiles claimed | %s |\n", orDash(strings.Join(d.Claimed, ", ")))
	kind := "complete: every rule of the checked profiles has passing evidence or cannot be observed from outside"
	if d.Partial {
		kind = fmt.Sprintf("**partial**: %d rule(s) unmet, listed below (§10.1)", len(d.Unmet))
	}
	w("| Statement | %s |\n\n", kind)
	if len(d.Unmet) > 0 {
		w("## Unmet rules\n\n| rule | level | profiles | status | checks |\n|---|---|---|---|---|\n")
		for _, u := range d.Unmet {
			w("| %s | %s | %s | %s | %s |\n", u.ID, u.Level, strings.Join(u.Profiles, ", "), u.Status, orDash(strings.Join(u.Checks, "<br>")))
		}
		w("\n")
	}
	w("## Known deviations\n\n")
	if len(d.Deviations) == 0 {
		w("None declared.\n\n")
	} else {
		for _, dv := range d.Deviations {
			w("- **%s**%s: %s%s\n", dv.ID, deviationScope(dv), dv.Reason, link(dv.Link))
			if len(dv.Stale) > 0 {
				w("  - **stale**, which fails the run: %s pass(es) now\n", codes(dv.Stale))
			}
			if len(dv.Unexpected) > 0 {
				w("  - **not as expected**, which fails the run: %s\n", codes(dv.Unexpected))
			}
		}
		w("\n")
	}
	notKept := d.Evidence.TranscriptNotKept
	if notKept == nil {
		w("## Rules and evidence\n\nTranscript lines refer to `%s`; a check that did not pass is marked ✗.\n\n| rule | § | level | status | what it says | evidence (check, transcript lines) |\n|---|---|---|---|---|---|\n", d.Evidence.Transcript.Path)
	} else {
		w("## Rules and evidence\n\nThe transcript is not kept with this statement (`%s` makes the whole statement); a check that did not pass is marked ✗.\n\n| rule | § | level | status | what it says | evidence (check) |\n|---|---|---|---|---|---|\n", notKept.Remake)
	}
	for _, r := range d.Rules {
		if r.Status == results.RuleNotBlackBox {
			continue
		}
		var ev []string
		for _, e := range r.Evidence {
			lines := ""
			if e.Lines != nil {
				lines = fmt.Sprintf(" (lines %d–%d)", e.Lines.From, e.Lines.To)
			}
			mark := ""
			if e.Status != "pass" {
				mark = "✗ "
			}
			ev = append(ev, fmt.Sprintf("%s`%s` %s%s", mark, e.Check, e.Status, lines))
		}
		section, says := "", ""
		if rule, ok := cat.Rule(r.ID); ok {
			section, says = rule.Section, rule.Summary
			if l := cat.Spec.SectionLink(rule.Section); l != "" {
				section = "[" + section + "](" + l + ")"
			}
		}
		w("| %s | %s | %s | %s | %s | %s |\n", r.ID, orDash(section), r.Level, r.Status, orDash(cell(says)), orDash(strings.Join(ev, "<br>")))
	}
	w("\n## Rules that cannot be observed from outside\n\n| rule | level | why |\n|---|---|---|\n")
	for _, n := range d.NotBlackBox {
		w("| %s | %s | %s |\n", n.ID, n.Level, n.Reason)
	}
	w("\n## Evidence\n\n| what | path | SHA-256 |\n|---|---|---|\n")
	for _, e := range []struct {
		name string
		d    *Digest
	}{{"rule catalogue", &d.Evidence.Catalogue}, {"features", &d.Evidence.Features}, {"vectors", &d.Evidence.Vectors},
		{"expectations", d.Evidence.Expectations}, {"results", &d.Evidence.Results}, {"transcript", &d.Evidence.Transcript}} {
		switch {
		case e.name == "transcript" && notKept != nil:
			w("| transcript | not kept | — |\n")
		case e.d != nil:
			w("| %s | `%s` | `%s` |\n", e.name, e.d.Path, e.d.SHA256)
		}
	}
	if notKept != nil {
		w("\nThis statement is kept without its transcript: `sifu verify conformance.json` checks its hashes, its claims and this page, but cannot judge its verdicts again. `%s` makes the whole statement, which it verifies.\n", notKept.Remake)
		return b.String()
	}
	w("\nCheck this statement offline with `sifu verify conformance.json`.\n")
	return b.String()
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func commit(c string) string {
	if c == "" {
		return ""
	}
	if len(c) > 12 {
		c = c[:12]
	}
	return " (" + c + ")"
}

// deviationScope says which checks a deviation excuses, with what status.
func deviationScope(dv Deviation) string {
	if dv.Status == "" {
		return ""
	}
	s := " (" + dv.Status + ": " + codes(dv.Checks)
	if len(dv.Intermittent) > 0 {
		s += "; in some runs only: " + codes(dv.Intermittent)
	}
	return s + ")"
}

func codes(ids []string) string {
	var out []string
	for _, id := range ids {
		out = append(out, "`"+id+"`")
	}
	return strings.Join(out, ", ")
}

func link(l string) string {
	if l == "" {
		return ""
	}
	return " (" + l + ")"
}

// Declare writes a run's evidence (results.json, junit.xml, cucumber.json,
// transcript.jsonl) and its conformance statement into dir. A copy of the
// expectations file (expectRaw, if the run applied one) is kept beside the
// statement as sifu.expect.yaml, so that verify can check it. The
// statement is dated at.
func Declare(dir string, plan *runner.Plan, src Sources, run *results.Run, expectRaw []byte, at time.Time) (*Declaration, error) {
	if err := results.WriteDir(dir, run); err != nil {
		return nil, err
	}
	if err := results.WriteCucumberFile(dir, run, plan.Checks); err != nil {
		return nil, err
	}
	raw, err := inputfile.Read(filepath.Join(dir, "results.json"))
	if err != nil {
		return nil, err
	}
	var deviations []Deviation
	var expectations *Digest
	if ex := run.Expectations; ex != nil {
		if err := os.WriteFile(filepath.Join(dir, "sifu.expect.yaml"), expectRaw, 0o644); err != nil {
			return nil, err
		}
		expectations = &Digest{Path: "sifu.expect.yaml", SHA256: Sum(expectRaw)}
		deviations = Deviations(run)
	}
	d, err := Build(plan.Catalogue, src, run, raw, deviations, expectations, at)
	if err != nil {
		return nil, err
	}
	return d, Write(dir, d, plan.Catalogue)
}

// Said is what sifu prints of a statement it wrote to dir.
func (d *Declaration) Said(dir string) string {
	if d.Partial {
		return fmt.Sprintf("declared a partial statement (%d unmet rule(s); profiles claimed: %v) in %s/conformance.md", len(d.Unmet), d.Claimed, dir)
	}
	return fmt.Sprintf("declared complete conformance (profiles claimed: %v) in %s/conformance.md", d.Claimed, dir)
}
