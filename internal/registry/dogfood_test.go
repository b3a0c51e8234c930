package registry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/report"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// substance is what a declaration says, without what changes on every run
// (date, timings, and so the hashes of results and transcript).
func substance(d *declaration.Declaration) string {
	c := *d
	c.Date = ""
	c.Harness.Commit = ""
	c.Evidence.Results, c.Evidence.Transcript = declaration.Digest{}, declaration.Digest{}
	raw, _ := json.MarshalIndent(c, "", " ")
	return string(raw)
}

// TestCommittedDeclarationsAreCurrent: each bundled reference's own
// statement in conformance/<suite> verifies against its evidence and says
// what a fresh run says. Regenerate one with:
//
//	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) go run ./cmd/sifu run --suite <suite> --declare conformance/<suite>
func TestCommittedDeclarationsAreCurrent(t *testing.T) {
	for _, name := range registry.Names() {
		t.Run(name, func(t *testing.T) {
			regenerate := "regenerate with: SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) go run ./cmd/sifu run --suite " + name + " --declare conformance/" + name
			committed := filepath.Join("..", "..", "conformance", name, "conformance.json")
			old, err := declaration.Read(committed)
			if err != nil {
				t.Fatalf("%v; %s", err, regenerate)
			}
			s, err := registry.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := s.Plan()
			if err != nil {
				t.Fatal(err)
			}
			problems, err := declaration.Verify(context.Background(), committed, plan, s.Sources(), declaration.VerifyOptions{})
			if err != nil || len(problems) > 0 {
				t.Fatalf("the committed declaration does not verify (%v %v); %s", err, problems, regenerate)
			}
			target, err := s.Open(registry.Spec{})
			if err != nil {
				t.Fatal(err)
			}
			run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "inproc", Harness: registry.Harness()})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if _, err := declaration.Declare(dir, plan, s.Sources(), run, nil, time.Now()); err != nil {
				t.Fatal(err)
			}
			now, err := declaration.Read(filepath.Join(dir, "conformance.json"))
			if err != nil {
				t.Fatal(err)
			}
			if a, b := substance(old), substance(now); !reflect.DeepEqual(a, b) {
				t.Fatalf("conformance/%s is stale: a fresh run declares something else; %s", name, regenerate)
			}
		})
	}
}

// TestCommittedPeerStatementsVerify: every real peer's directory under
// conformance/peers holds a statement with its transcript, and it
// verifies: hashes, every verdict judged again from the transcript,
// expectations applied again, claims — against this harness's suite files.
// A change of a suite's checks makes a peer's statement stale: the failure
// then names, peer by peer, every check whose verdict the change would
// alter (judged again from the peer's transcript with the checks as they
// are now), so a reviewer sees what a change does to the real peers before
// their verdicts are taken again (each peer's README says how).
func TestCommittedPeerStatementsVerify(t *testing.T) {
	root := filepath.Join("..", "..", "conformance", "peers")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var peers []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		// A peer may hold one statement per way it was reached (kcp-agent:
		// its runner, and its command line under cli/).
		err := filepath.WalkDir(filepath.Join(root, e.Name()), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "results.json" {
				peers = append(peers, filepath.Dir(path))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(peers) == 0 {
		t.Fatal("no peer verdict found under conformance/peers")
	}
	for _, dir := range peers {
		name, _ := filepath.Rel(root, dir)
		t.Run(filepath.ToSlash(name), func(t *testing.T) {
			for _, f := range []string{"conformance.json", "conformance.md", "transcript.jsonl"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Fatalf("peer %s has no %s: a peer's verdict is kept with its statement and transcript, so that it can be judged again", name, f)
				}
			}
			statement := filepath.Join(dir, "conformance.json")
			d, problems, err := registry.Verify(context.Background(), statement, declaration.VerifyOptions{})
			if err != nil {
				t.Fatalf("peer %s: %v", name, err)
			}
			if len(problems) == 0 {
				return
			}
			t.Errorf("peer %s: its statement does not verify: %v", name, problems)
			for _, p := range changedVerdicts(t, d.Suite, filepath.Join(dir, "results.json")) {
				t.Errorf("peer %s: with the checks as they are now, %s", name, p)
			}
			t.Logf("take peer %s's verdict again (its README says how)", name)
		})
	}
}

// changedVerdicts judges a run again from its transcript with the suite's
// checks as they are now, whatever suite files the run was made with: the
// checks whose verdict a change of the suite would alter, and the checks
// the run lacks.
func changedVerdicts(t *testing.T, suite, resultsPath string) []runner.Problem {
	t.Helper()
	plan, _, err := registry.Suites(suite)
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := declaration.ReadResults(resultsPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := results.LoadTranscript(resultsPath, run); err != nil {
		t.Fatal(err)
	}
	return plan.Rejudge(context.Background(), run)
}

// TestCommittedReportIsCurrent: conformance/report is the report of the
// committed statements, references' and peers', as sifu report writes it
// now. Regenerate it with:
//
//	go run ./cmd/sifu report --out conformance/report conformance/*
func TestCommittedReportIsCurrent(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	root := "conformance"
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, e := range entries {
		args = append(args, filepath.Join(root, e.Name()))
	}
	out := t.TempDir()
	if _, err := report.Make(context.Background(), out, args, registry.Suites); err != nil {
		t.Fatalf("sifu report: %v", err)
	}
	committed := filepath.Join(root, "report")
	regenerate := "regenerate with: go run ./cmd/sifu report --out conformance/report conformance/*"
	var want, got []string
	for dir, list := range map[string]*[]string{committed: &want, out: &got} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				*list = append(*list, rel)
			}
			return nil
		})
	}
	if !slices.Equal(want, got) {
		t.Fatalf("conformance/report holds %d files, the report now %d; %s", len(want), len(got), regenerate)
	}
	for _, rel := range got {
		a, _ := os.ReadFile(filepath.Join(committed, rel))
		b, _ := os.ReadFile(filepath.Join(out, rel))
		if !bytes.Equal(a, b) {
			t.Fatalf("conformance/report/%s is stale; %s", rel, regenerate)
		}
	}
}
