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

// TestCommittedPeerStatementsVerify: every statement of a real peer under
// conformance/peers that carries its conformance.json verifies, verdicts
// judged again from its transcript, against this harness's suite files. A
// change of a suite's checks makes it stale: take the peer's verdict again.
func TestCommittedPeerStatementsVerify(t *testing.T) {
	var found int
	err := filepath.WalkDir(filepath.Join("..", "..", "conformance", "peers"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "conformance.json" {
			return err
		}
		found++
		_, problems, err := registry.Verify(context.Background(), path, declaration.VerifyOptions{})
		if err != nil || len(problems) > 0 {
			t.Errorf("%s does not verify (%v): %v; take the peer's verdict again (its README says how)", path, err, problems)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no peer statement found under conformance/peers")
	}
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
