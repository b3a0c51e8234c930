package registry_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/sifu-dev/sifu/internal/registry"
)

// TestCoverageDocIsCurrent: docs/kungfu-coverage.md is what
// `sifu rules --suite kungfu --axes` prints today.
func TestCoverageDocIsCurrent(t *testing.T) {
	plan, err := registry.Kungfu.Plan()
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := plan.WriteAxes(&want, false); err != nil {
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
