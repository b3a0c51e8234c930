package declaration_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/knownfail"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/schema"
)

// TestEveryReportSaysTheRunFailedOnItsExpectations: a run whose only fault
// is in its expectations — an entry gone stale, or a check that ended with
// another status than its entry expects — fails in every report alike:
// results.json's summary, junit.xml, cucumber.json, the text summary and
// conformance.md; a run whose failures are all excused is green in each.
func TestEveryReportSaysTheRunFailedOnItsExpectations(t *testing.T) {
	cat, err := catalogue.Load(sifu.Assets, "vectors/kungfu/rules.json", schema.NewSet(sifu.Assets, "vectors/schema"))
	if err != nil {
		t.Fatal(err)
	}
	checks := []engine.Check{
		{ID: "kungfu/x/leaks", Kind: "vector", Source: "vectors/kungfu/x.json#/checks/0", Rules: []string{"KF-12-07"},
			Steps: []engine.Step{{Source: "vectors/kungfu/x.json#/checks/0/steps/0", Op: engine.OpAct, Text: "a reads"}}},
		{ID: "kungfu/x/leaks-too", Kind: "vector", Source: "vectors/kungfu/x.json#/checks/1", Rules: []string{"KF-12-07"},
			Steps: []engine.Step{{Source: "vectors/kungfu/x.json#/checks/1/steps/0", Op: engine.OpAct, Text: "a reads"}}},
	}
	const file = "expected_failures:\n  - rule: KF-12-07\n    checks: [kungfu/x/leaks, kungfu/x/leaks-too]\n    reason: a known leak\n"
	for _, tc := range []struct {
		name      string
		statuses  [2]engine.Status
		failed    bool
		saysWhere string // what conformance.md says of the entry
	}{
		{"all excused", [2]engine.Status{engine.Fail, engine.Fail}, false, ""},
		{"stale only", [2]engine.Status{engine.Fail, engine.Pass}, true, "**stale**"},
		{"wrong status", [2]engine.Status{engine.Fail, engine.Timeout}, true, "**not as expected**"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := &results.Run{Suite: "kungfu", StartedAt: "2026-12-01T10:00:00Z"}
			for i, c := range checks {
				tr := results.Test{ID: c.ID, Kind: c.Kind, Source: c.Source, Rules: c.Rules, Status: tc.statuses[i]}
				if tr.Status != engine.Pass {
					tr.Step, tr.Message = c.Steps[0].Source, "answered 403"
				}
				run.Tests = append(run.Tests, tr)
				run.Summary.Add(tc.statuses[i])
			}
			p := filepath.Join(t.TempDir(), "sifu.expect.yaml")
			if err := os.WriteFile(p, []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			f, raw, err := knownfail.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := knownfail.Apply(f, raw, "sifu.expect.yaml", run, cat, checks); err != nil {
				t.Fatal(err)
			}

			says := map[string]bool{} // report → says the run failed
			var js bytes.Buffer
			if err := results.WriteJSON(&js, run); err != nil {
				t.Fatal(err)
			}
			back, err := results.ReadJSON(&js)
			if err != nil {
				t.Fatal(err)
			}
			says["results.json"] = back.Summary.Failed()

			var ju bytes.Buffer
			if err := results.WriteJUnit(&ju, run); err != nil {
				t.Fatal(err)
			}
			var suites struct {
				Failures int `xml:"failures,attr"`
				Errors   int `xml:"errors,attr"`
			}
			if err := xml.Unmarshal(ju.Bytes(), &suites); err != nil {
				t.Fatal(err)
			}
			says["junit.xml"] = suites.Failures+suites.Errors > 0

			var cu bytes.Buffer
			if err := results.WriteCucumber(&cu, run, checks); err != nil {
				t.Fatal(err)
			}
			var features []struct {
				Elements []struct {
					Steps []struct {
						Result struct {
							Status string `json:"status"`
						} `json:"result"`
					} `json:"steps"`
				} `json:"elements"`
			}
			if err := json.Unmarshal(cu.Bytes(), &features); err != nil {
				t.Fatal(err)
			}
			for _, f := range features {
				for _, el := range f.Elements {
					for _, s := range el.Steps {
						says["cucumber.json"] = says["cucumber.json"] || s.Result.Status == "failed"
					}
				}
			}

			var text bytes.Buffer
			results.WriteSummary(&text, run)
			says["summary"] = strings.Contains(text.String(), "result: FAIL")

			md := declaration.Markdown(&declaration.Declaration{Deviations: declaration.Deviations(run)}, cat)
			says["conformance.md"] = strings.Contains(md, "which fails the run")
			if tc.saysWhere != "" && !strings.Contains(md, tc.saysWhere) {
				t.Errorf("conformance.md does not say %s:\n%s", tc.saysWhere, md)
			}

			for report, failed := range says {
				if failed != tc.failed {
					t.Errorf("%s says failed=%v, want %v", report, failed, tc.failed)
				}
			}
			if tc.name == "wrong status" && !strings.Contains(ju.String(), "expected fail by KF-12-07, but it was timeout") {
				t.Errorf("junit.xml does not say what was expected of the check:\n%s", ju.String())
			}
			if tc.name == "stale only" && !strings.Contains(cu.String(), "stale expectation KF-12-07: kungfu/x/leaks-too pass(es) now") {
				t.Errorf("cucumber.json does not name the stale entry's passing check:\n%s", cu.String())
			}
		})
	}
}
