package runner_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// TestVectorsDirectoryMustHoldVectors: --vectors replaces the bundled
// vectors (features stay); a directory with no vector of the suite, or with
// only its catalogue, is a usage error, not a run of the features alone.
func TestVectorsDirectoryMustHoldVectors(t *testing.T) {
	catalogue, err := fs.ReadFile(sifu.Assets, "vectors/kungfu/rules.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, fsys := range map[string]fstest.MapFS{
		"empty":          {},
		"catalogue only": {"rules.json": {Data: catalogue}},
		"other files":    {"notes.txt": {Data: []byte("hi")}},
	} {
		_, err := runner.Load(sifu.Assets, kungfu.Suite, runner.WithVectors(fsys, "."))
		var ue *runner.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "holds no kungfu vector") {
			t.Errorf("%s: %v", name, err)
		}
	}
	limits, _ := fs.ReadFile(sifu.Assets, "vectors/kungfu/limits.json")
	plan, err := runner.Load(sifu.Assets, kungfu.Suite, runner.WithVectors(fstest.MapFS{"rules.json": {Data: catalogue}, "limits.json": {Data: limits}}, "."))
	if err != nil {
		t.Fatal(err)
	}
	scenarios, vectors := 0, 0
	for _, c := range plan.Checks {
		if c.Kind == "vector" {
			vectors++
			if !strings.HasPrefix(c.Source, "limits.json") {
				t.Errorf("a bundled vector ran: %s", c.Source)
			}
		} else {
			scenarios++
		}
	}
	if vectors == 0 || scenarios == 0 {
		t.Errorf("%d vectors, %d scenarios: the given vectors replace the bundled ones, and the features stay", vectors, scenarios)
	}
}

// TestEveryCompilerIsLinted: a suite's own vector compiler is linted like
// sifu's, with the suite's vocabulary: a check whose step names an agent in
// a suite whose steps name none, or uses a variable no step captures, is
// refused with its source.
func TestEveryCompilerIsLinted(t *testing.T) {
	for name, step := range map[string]engine.Step{
		"agent in an agentless suite": {Source: "v.json#/cases/0/calls/0", Op: engine.OpAct, Name: "plan", Agent: "alice"},
		"uncaptured variable":         {Source: "v.json#/cases/0/calls/0", Op: engine.OpAct, Name: "plan", Params: map[string]any{"task": "${nope}"}},
	} {
		s := runner.Suite{Name: "kcp", Catalogue: "vectors/kcp/rules.json", Vectors: "vectors/kcp", Schemas: "vectors/schema",
			CompileVector: func(fs.FS, string, *schema.Set) ([]engine.Check, error) {
				return []engine.Check{{ID: "kcp/v/c", Source: "v.json#/cases/0", Rules: []string{"KCP-4"}, Steps: []engine.Step{step}}}, nil
			}}
		_, err := runner.Load(sifu.Assets, s)
		var ue *runner.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "v.json#/cases/0/calls/0") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestAFileOnDiskIsNamedByItsPath: a malformed file in a directory given on
// the command line (--vectors, --features) is named by the path a user can
// open, not by its name inside that directory.
func TestAFileOnDiskIsNamedByItsPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "x.json"), []byte("{bad"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "y.feature"), []byte("Feature: x\n  Scenario: y\n    Given\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, opt := range map[string]runner.LoadOption{
		"vectors":  runner.WithVectorsDir(dir),
		"features": runner.WithFeaturesDir(dir),
	} {
		_, err := runner.Load(sifu.Assets, kungfu.Suite, opt)
		want := filepath.Join(dir, "sub", "x.json")
		if name == "features" {
			want = filepath.Join(dir, "y.feature")
		}
		var ue *runner.UsageError
		if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v; want a usage error that starts with %s", name, err, want)
		}
	}
}
