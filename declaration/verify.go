package declaration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/catalogue"
	"github.com/sifu-dev/sifu/results"
)

// Read decodes a declaration strictly: unknown fields, a truncated file or
// another format are errors that name the problem.
func Read(path string) (*Declaration, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d Declaration
	if err := strictDecode(raw, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if d.Format != Format {
		return nil, fmt.Errorf("%s: /format is %q; this harness reads %q", path, d.Format, Format)
	}
	if d.Suite == "" {
		return nil, fmt.Errorf("%s: /suite is missing", path)
	}
	return &d, nil
}

// ReadResults decodes results.json strictly.
func ReadResults(path string) (*results.Run, []byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var r results.Run
	if err := strictDecode(raw, &r); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.Harness.Name != "sifu" {
		return nil, nil, fmt.Errorf("%s: /harness/name is %q; only sifu results can be read", path, r.Harness.Name)
	}
	if r.Suite == "" {
		return nil, nil, fmt.Errorf("%s: /suite is missing", path)
	}
	return &r, raw, nil
}

func strictDecode(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not a valid document (truncated or edited?): %w", err)
	}
	if dec.More() {
		return fmt.Errorf("extra data after the document")
	}
	return nil
}

// Verify re-checks a declaration at path against its evidence files (beside
// it) and against the suite files and catalogue of this harness. It returns
// every problem found; none means the declaration holds.
func Verify(path string, cat *catalogue.Catalogue, src Sources) ([]string, error) {
	d, err := Read(path)
	if err != nil {
		return nil, err
	}
	if d.Suite != cat.Suite {
		return nil, fmt.Errorf("%s: /suite is %q, but the catalogue given is for %q", path, d.Suite, cat.Suite)
	}
	dir := filepath.Dir(path)
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	catD, featD, vecD, err := src.Digests()
	if err != nil {
		return nil, err
	}
	for _, c := range []struct {
		field     string
		have, got Digest
	}{{"/evidence/catalogue", d.Evidence.Catalogue, catD}, {"/evidence/features", d.Evidence.Features, featD}, {"/evidence/vectors", d.Evidence.Vectors, vecD}} {
		if c.have.SHA256 != c.got.SHA256 {
			bad("%s: the declaration was made with other suite files (sha256 %s) than this harness carries (%s); verify it with harness %s %s",
				c.field, short(c.have.SHA256), short(c.got.SHA256), d.Harness.Name, d.Harness.Version)
		}
	}
	resultsPath := filepath.Join(dir, d.Evidence.Results.Path)
	run, raw, err := ReadResults(resultsPath)
	if err != nil {
		bad("/evidence/results: %v", err)
		return problems, nil
	}
	if got := Sum(raw); got != d.Evidence.Results.SHA256 {
		bad("/evidence/results: %s has sha256 %s, the declaration says %s", resultsPath, short(got), short(d.Evidence.Results.SHA256))
	}
	transcriptPath := filepath.Join(dir, d.Evidence.Transcript.Path)
	if tr, err := os.ReadFile(transcriptPath); err != nil {
		bad("/evidence/transcript: %v", err)
	} else {
		got := Sum(tr)
		if got != d.Evidence.Transcript.SHA256 {
			bad("/evidence/transcript: %s has sha256 %s, the declaration says %s", transcriptPath, short(got), short(d.Evidence.Transcript.SHA256))
		}
		if run.Transcript == nil || run.Transcript.SHA256 != got {
			bad("/transcript/sha256 of results.json does not match %s", transcriptPath)
		}
	}
	if d.Evidence.Expectations != nil {
		p := filepath.Join(dir, filepath.Base(d.Evidence.Expectations.Path))
		if raw, err := os.ReadFile(p); err != nil {
			bad("/evidence/expectations: %v (keep a copy of the expectations file beside the declaration)", err)
		} else if got := Sum(raw); got != d.Evidence.Expectations.SHA256 {
			bad("/evidence/expectations: %s has sha256 %s, the declaration says %s", p, short(got), short(d.Evidence.Expectations.SHA256))
		}
	}
	if run.Suite != d.Suite {
		bad("/suite: the results are for %q, the declaration for %q", run.Suite, d.Suite)
	}
	if !slices.Equal(run.Profiles, d.Checked) {
		bad("/profiles_checked: %v, but the results checked %v", d.Checked, run.Profiles)
	}
	claimed, unmet, err := Claims(cat, run)
	if err != nil {
		bad("claims: %v", err)
		return problems, nil
	}
	if !slices.Equal(claimed, d.Claimed) {
		bad("/profiles_claimed: the declaration claims %v, the results support %v", d.Claimed, claimed)
	}
	if got, want := unmetIDs(d.Unmet), unmetIDs(unmet); !slices.Equal(got, want) {
		bad("/unmet_rules: the declaration lists %v, the results leave unmet %v", got, want)
	}
	ruleStatus := map[string]results.Rule{}
	for _, r := range run.Rules {
		ruleStatus[r.ID] = r
	}
	tests := map[string]results.Test{}
	for _, t := range run.Tests {
		tests[t.ID] = t
	}
	for i, r := range d.Rules {
		got, ok := ruleStatus[r.ID]
		if !ok || got.Status != r.Status {
			bad("/rules/%d (%s): status %q, the results say %q", i, r.ID, r.Status, got.Status)
			continue
		}
		for j, e := range r.Evidence {
			t, ok := tests[e.Check]
			if !ok || string(t.Status) != e.Status || !sameLines(t.Lines, e.Lines) {
				bad("/rules/%d/evidence/%d (%s): check %s %s does not match the results", i, j, r.ID, e.Check, e.Status)
			}
		}
	}
	return problems, nil
}

func sameLines(a, b *results.LineRange) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func unmetIDs(u []Unmet) []string {
	ids := make([]string, len(u))
	for i, x := range u {
		ids[i] = x.ID
	}
	slices.Sort(ids)
	return ids
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return strings.TrimSpace(h)
}
