// Package report makes a static site of conformance runs: per suite, a
// matrix of rules × implementations, each cell the rule's verdict with the
// checks behind it one click away, their transcripts rendered readably and
// loaded only when asked for; the diff between two runs of one
// implementation; and each statement's claims with whether it verifies.
// The site needs no server and no network: it opens from file://.
package report

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// Run is one input of a report: a results directory (results.json and its
// transcript), or a statement directory (conformance.json beside them).
type Run struct {
	Dir       string
	Results   *results.Run
	Statement *declaration.Declaration
	// Problems are what `sifu verify` finds wrong with the statement
	// (empty when it holds); nil for a results directory.
	Problems []string
	// VerifyError is set when the statement could not be verified at all.
	VerifyError string
	// TranscriptNotKept is set for a statement kept without its
	// transcript: verify checks all of it but its verdicts (VerifyError
	// says so).
	TranscriptNotKept bool
	// MarkdownOnly is set for a directory with conformance.md but neither
	// conformance.json nor, so, a statement verify can check; Claimed are
	// the claims results.json supports.
	MarkdownOnly bool
	Claimed      []string
}

// Label names the implementation of a run for people.
func (r *Run) Label() string {
	t := r.Results.Target
	name := t.Implementation
	if name == "" {
		name = t.Name
	}
	if t.Version != "" {
		name += " " + t.Version
	}
	return name
}

// Suites gives the harness's plan of a suite and the files a statement of
// it is bound to.
type Suites func(name string) (*runner.Plan, declaration.Sources, error)

// Skipped is an argument that held no run, and why.
type Skipped struct {
	Path string
	Why  string
}

// Load reads the runs named by paths. A path is a results or statement
// directory, a results.json or conformance.json in one, or a directory of
// such directories (conformance/peers), each read with every run directory
// under it; anything else is skipped with the reason. Statements are verified (as sifu verify does) as they are read.
func Load(ctx context.Context, paths []string, suites Suites) ([]*Run, []Skipped, error) {
	var runs []*Run
	var skipped []Skipped
	seen := map[string]bool{}
	add := func(dir string) error {
		dir = filepath.Clean(dir)
		if seen[dir] {
			return nil
		}
		seen[dir] = true
		r, err := loadDir(ctx, dir, suites)
		if err != nil {
			return err
		}
		runs = append(runs, r)
		return nil
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		if !st.IsDir() {
			switch filepath.Base(p) {
			case "results.json", "conformance.json":
				if err := add(filepath.Dir(p)); err != nil {
					return nil, nil, err
				}
			default:
				skipped = append(skipped, Skipped{p, "not a results or statement directory"})
			}
			continue
		}
		if isReport(p) {
			continue // a report of earlier runs (out/report among out/*)
		}
		// Every run directory under p: a peer may hold one run per way it
		// was reached (conformance/peers/kcp-agent-0.27.0/cli).
		found := false
		err = filepath.WalkDir(p, func(sub string, e fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case !e.IsDir():
				return nil
			case sub != p && (strings.HasPrefix(e.Name(), ".") || isReport(sub)):
				return filepath.SkipDir
			case !hasRun(sub):
				return nil
			}
			found = true
			return add(sub)
		})
		if err != nil {
			return nil, nil, err
		}
		if !found {
			skipped = append(skipped, Skipped{p, "holds no results.json, and no directory under it does"})
		}
	}
	if len(runs) == 0 {
		return nil, skipped, errors.New("no run to report: give results or statement directories (with results.json)")
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Dir < runs[j].Dir })
	return runs, skipped, nil
}

// isReport reports whether dir holds a page sifu report wrote.
func isReport(dir string) bool {
	raw, err := inputfile.Read(filepath.Join(dir, "index.html"))
	return err == nil && strings.Contains(string(raw), `<meta name="generator" content="sifu report">`)
}

func hasRun(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "results.json"))
	return err == nil
}

func loadDir(ctx context.Context, dir string, suites Suites) (*Run, error) {
	resultsPath := filepath.Join(dir, "results.json")
	run, _, err := declaration.ReadResults(resultsPath)
	if err != nil {
		return nil, err
	}
	if err := results.LoadTranscript(resultsPath, run); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	r := &Run{Dir: dir, Results: run}
	statement := filepath.Join(dir, "conformance.json")
	if _, err := os.Stat(statement); err != nil {
		if _, err := os.Stat(filepath.Join(dir, "conformance.md")); err == nil {
			// A statement published without its machine-readable half and
			// transcript (a peer whose transcript holds its own words): its
			// claims are computed from results.json, and it cannot be verified.
			r.MarkdownOnly = true
			if plan, _, err := suites(run.Suite); err == nil {
				r.Claimed, _, _ = declaration.Claims(plan.Catalogue, run)
			}
		}
		return r, nil
	}
	if r.Statement, err = declaration.Read(statement); err != nil {
		return nil, err
	}
	plan, src, err := suites(run.Suite)
	if err != nil {
		r.VerifyError = err.Error()
		return r, nil
	}
	problems, err := declaration.Verify(ctx, statement, plan, src, declaration.VerifyOptions{})
	var notKept *declaration.TranscriptNotKeptError
	switch {
	case errors.As(err, &notKept):
		r.TranscriptNotKept, r.VerifyError = true, err.Error()
	case err != nil:
		r.VerifyError = err.Error()
	default:
		r.Problems = append([]string{}, problems...)
	}
	return r, nil
}

// slug makes a string safe as a file or element name.
func slug(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
				b.WriteByte('-')
			}
		}
	}
	return strings.Trim(b.String(), "-")
}
