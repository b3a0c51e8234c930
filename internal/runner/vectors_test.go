package runner_test

import (
	"errors"
	"io/fs"
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
