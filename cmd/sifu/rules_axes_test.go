package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// TestCoverageDocIsCurrent: docs/kungfu-coverage.md is what
// `sifu rules --suite kungfu --axes` prints today.
func TestCoverageDocIsCurrent(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := printAxes(&want, plan, false); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../docs/kungfu-coverage.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("docs/kungfu-coverage.md is stale; regenerate it with: go run ./cmd/sifu rules --suite kungfu --axes > docs/kungfu-coverage.md")
	}
}
