// Package declaration turns a run's results into a conformance statement
// (§10.1, §10.3 of the Kungfu spec, and the same shape for every suite):
// conformance.json for machines, conformance.md for people, bound to their
// evidence by SHA-256, and verifiable offline.
//
// Profiles are computed, never asserted: a profile is claimed only when
// every rule in its scope has passing evidence (or cannot be observed from
// outside, with the reason recorded).
package declaration

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// Format identifies the declaration format and its version.
const Format = "sifu.conformance/v1"

// Declaration is conformance.json.
type Declaration struct {
	Format         string          `json:"format"`
	Suite          string          `json:"suite"`
	Spec           Spec            `json:"spec"`
	Implementation Implementation  `json:"implementation"`
	Harness        results.Harness `json:"harness"`
	Date           string          `json:"date"`
	// Checked are the profiles the run checked; Claimed those fully
	// evidenced. Partial is set when a checked profile is not claimed.
	Checked     []string      `json:"profiles_checked"`
	Claimed     []string      `json:"profiles_claimed"`
	Partial     bool          `json:"partial"`
	Unmet       []Unmet       `json:"unmet_rules"`
	Deviations  []Deviation   `json:"known_deviations"`
	Rules       []RuleEntry   `json:"rules"`
	NotBlackBox []NotBlackBox `json:"not_black_box"`
	Evidence    Evidence      `json:"evidence"`
}

// Spec names the specification.
type Spec struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Implementation names what was checked.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Commit  string `json:"commit,omitempty"`
	Target  string `json:"target"`
}

// Unmet is a rule that keeps a profile from being claimed.
type Unmet struct {
	ID       string   `json:"id"`
	Level    string   `json:"level"`
	Profiles []string `json:"profiles"`
	Status   string   `json:"status"`
	Checks   []string `json:"checks"`
}

// Deviation is a failure the implementer declared expected, with why: an
// entry of the expectations file, the status it expects of the checks it
// names (Checks fail in every run, Intermittent ones in some), and what
// the run made of it: Stale lists its checks that pass now, Unexpected
// those that ended otherwise ("check: status"); either fails the run.
type Deviation struct {
	ID           string   `json:"id"`
	Status       string   `json:"status,omitempty"`
	Checks       []string `json:"checks,omitempty"`
	Intermittent []string `json:"intermittent,omitempty"`
	Reason       string   `json:"reason"`
	Link         string   `json:"link,omitempty"`
	Stale        []string `json:"stale,omitempty"`
	Unexpected   []string `json:"unexpected,omitempty"`
}

// Deviations are the known deviations of a run: the entries of the
// expectations file it applied, each with its stale and unexpected checks.
func Deviations(run *results.Run) []Deviation {
	ex := run.Expectations
	if ex == nil {
		return nil
	}
	var out []Deviation
	for _, e := range ex.Entries {
		d := Deviation{ID: e.Entry, Status: string(e.Status), Checks: e.Checks, Intermittent: e.Intermittent, Reason: e.Reason, Link: e.Link}
		for _, s := range ex.Stale {
			for _, c := range s.Passed {
				if s.Entry == e.Entry && slices.Contains(e.Checks, c) {
					d.Stale = append(d.Stale, c)
				}
			}
		}
		for _, t := range run.Tests {
			if t.Unexpected() && t.Expected.Entry == e.Entry && t.Expected.Status == e.Status &&
				(slices.Contains(e.Checks, t.ID) || slices.Contains(e.Intermittent, t.ID)) {
				d.Unexpected = append(d.Unexpected, t.ID+": "+string(t.Status))
			}
		}
		out = append(out, d)
	}
	return out
}

// RuleEntry is one rule's verdict and the checks behind it.
type RuleEntry struct {
	ID       string      `json:"id"`
	Level    string      `json:"level"`
	Profiles []string    `json:"profiles"`
	Status   string      `json:"status"`
	Evidence []Evidenced `json:"evidence"`
}

// Evidenced is one check behind a rule and its lines in the transcript.
// Where the check is written (its source) results.json says, once per
// check.
type Evidenced struct {
	Check  string             `json:"check"`
	Status string             `json:"status"`
	Lines  *results.LineRange `json:"transcript_lines,omitempty"`
}

// NotBlackBox is a rule no outside observer can check, with the reason.
type NotBlackBox struct {
	ID     string `json:"id"`
	Level  string `json:"level"`
	Reason string `json:"reason"`
}

// Evidence binds the declaration to the files it rests on.
type Evidence struct {
	Catalogue    Digest  `json:"catalogue"`
	Features     Digest  `json:"features"`
	Vectors      Digest  `json:"vectors"`
	Expectations *Digest `json:"expectations,omitempty"`
	Results      Digest  `json:"results"`
	// Transcript is empty when TranscriptNotKept is set.
	Transcript Digest `json:"transcript,omitzero"`
	// TranscriptNotKept is set when the statement is kept without its
	// transcript (WithoutTranscript): the bundled references' statements
	// under conformance/, whose evidence a run makes again in seconds.
	TranscriptNotKept *NotKept `json:"transcript_not_kept,omitempty"`
}

// NotKept says how to make again the transcript a statement is kept
// without: Remake is the command that makes the whole statement.
type NotKept struct {
	Remake string `json:"remake"`
}

// Digest is the SHA-256 of a file, or of a set of files (the hash of the
// sorted "path sha256" lines).
type Digest struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Files  int    `json:"files,omitempty"`
}

// Sum is the hex SHA-256 of b.
func Sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TreeDigest hashes every file under dir in fsys whose name ends with ext,
// skipping the files in skip.
func TreeDigest(fsys fs.FS, dir, ext string, skip ...string) (Digest, error) {
	var lines []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		// A surface map among the vectors says how to reach a node; it
		// changes no check, so no statement's evidence.
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ext) || slices.Contains(skip, p) || strings.HasSuffix(p, runner.MapSuffix) {
			return err
		}
		raw, err := inputfile.ReadFS(fsys, p)
		if err != nil {
			return err
		}
		lines = append(lines, p+" "+Sum(raw))
		return nil
	})
	if err != nil {
		return Digest{}, err
	}
	sort.Strings(lines)
	return Digest{Path: dir, SHA256: Sum([]byte(strings.Join(lines, "\n"))), Files: len(lines)}, nil
}

// blocking are the rule statuses that keep a profile from being claimed.
func blocking(status string) bool {
	switch status {
	case results.RulePass, results.RuleNotBlackBox, results.RuleWarn, results.RuleNotApplicable:
		return false
	}
	return true
}

// Claims computes, from a run's rule verdicts, which of the checked
// profiles are fully evidenced and which rules are unmet. A rule in a
// profile's scope that the run did not report counts as not evidenced.
func Claims(cat *catalogue.Catalogue, run *results.Run) (claimed []string, unmet []Unmet, err error) {
	checked, err := cat.Closure(run.Profiles)
	if err != nil {
		return nil, nil, fmt.Errorf("profiles: %w", err)
	}
	var offered []string
	offered = append(offered, run.Profiles...)
	for _, p := range run.Target.Profiles {
		if slices.Contains(cat.ProfileNames(), p) {
			offered = append(offered, p)
		}
	}
	available, _ := cat.Closure(offered)
	byID := map[string]results.Rule{}
	for _, r := range run.Rules {
		byID[r.ID] = r
	}
	unmetByID := map[string]bool{}
	for _, p := range cat.Profiles {
		if p.Name == "core" || !checked[p.Name] {
			continue
		}
		scope, _ := cat.Closure([]string{p.Name})
		ok := true
		for _, r := range cat.Rules {
			in, needs := catalogue.Scope(r, scope, available)
			if !in {
				continue
			}
			got, reported := byID[r.ID]
			status := got.Status
			switch {
			case r.Evidence == catalogue.NotBlackBox:
				status = results.RuleNotBlackBox
			case len(needs) > 0:
				status = results.RuleNotApplicable
			case !reported:
				status = results.RuleNotEvidenced
			}
			if blocking(status) {
				ok = false
				if !unmetByID[r.ID] {
					unmetByID[r.ID] = true
					unmet = append(unmet, Unmet{ID: r.ID, Level: r.Level, Profiles: r.Profiles, Status: status, Checks: nonNil(got.Evidence)})
				}
			}
		}
		if ok {
			claimed = append(claimed, p.Name)
		}
	}
	sort.Slice(unmet, func(i, j int) bool { return ruleOrder(cat, unmet[i].ID) < ruleOrder(cat, unmet[j].ID) })
	return nonNil(claimed), unmet, nil
}

func ruleOrder(cat *catalogue.Catalogue, id string) int {
	for i, r := range cat.Rules {
		if r.ID == id {
			return i
		}
	}
	return len(cat.Rules)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
