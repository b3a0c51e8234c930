package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sifu-dev/sifu/declaration"
	"github.com/sifu-dev/sifu/suite/kungfu"
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

// TestCommittedDeclarationIsCurrent: the reference's own statement in
// conformance/kungfu verifies against its evidence and says what a fresh run
// says. Regenerate it with:
//
//	go run ./cmd/sifu run --declare conformance/kungfu
func TestCommittedDeclarationIsCurrent(t *testing.T) {
	committed := filepath.Join("..", "..", "conformance", "kungfu", "conformance.json")
	old, err := declaration.Read(committed)
	if err != nil {
		t.Fatalf("%v; regenerate with: go run ./cmd/sifu run --declare conformance/kungfu", err)
	}
	fresh, _, plan := declareRun(t)
	problems, err := declaration.Verify(committed, plan.Catalogue, sources(kungfu.Suite))
	if err != nil || len(problems) > 0 {
		t.Fatalf("the committed declaration does not verify (%v %v); regenerate with: go run ./cmd/sifu run --declare conformance/kungfu", err, problems)
	}
	now, err := declaration.Read(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := substance(old), substance(now); !reflect.DeepEqual(a, b) {
		t.Fatalf("conformance/kungfu is stale: a fresh run declares something else; regenerate with: go run ./cmd/sifu run --declare conformance/kungfu")
	}
}
