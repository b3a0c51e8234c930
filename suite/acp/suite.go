package acp

import (
	"context"
	"slices"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/steps/acpsteps"
)

// Suite is where the ACP suite's data lives in sifu's assets.
var Suite = runner.Suite{
	Name:          "acp",
	Catalogue:     "vectors/acp/rules.json",
	Features:      "features/acp",
	Vectors:       "vectors/acp",
	Schemas:       "vectors/schema",
	Register:      acpsteps.Register,
	CompileVector: CompileVector,
	Uses:          Uses,
	// A step records the folder's state once: what follows from it (the
	// parsed event log, protocol.json's phase, the validator's findings)
	// a transcript leaves out and a replay rebuilds.
	Vocabulary: engine.Vocabulary{Derived: Derived},
}

// Profiles of the ACP catalogue: the tools and the validator as upstream
// behaves; strict, sifu's stricter reading of the quirks; compat, the
// upstream verdicts on the quirks reproduced on request; v1 and v2, the
// schemas (a check speaks one of them, a target claims those it speaks).
var Profiles = []string{"tools", "validator", "strict", "compat", "v1", "v2"}

// Schemas are the ACP schemas: a check of one applies only to targets that
// speak it.
var Schemas = []string{"v1", "v2"}

// SchemaOf is the schema a check speaks: v2 when tagged v2, else v1.
func SchemaOf(c engine.Check) string {
	if slices.Contains(c.Tags, "v2") {
		return "v2"
	}
	return "v1"
}

// Controls every ACP target offers: the folder is on the local disk, so the
// executor edits documents itself.
var Controls = []string{"fixture", "write"}

// Uses names the profiles a check's calls need: its schema, the validator
// for validate calls, compat for calls that ask for the upstream verdicts.
func Uses(c engine.Check) []string {
	used := map[string]bool{SchemaOf(c): true}
	var walk func([]engine.Step)
	walk = func(ss []engine.Step) {
		for _, s := range ss {
			walk(s.Steps)
			if s.Name == "validate" && s.Op == engine.OpRead {
				used["validator"] = true
			}
			if s.Params["compat"] == true {
				used["compat"] = true
			}
		}
	}
	walk(c.Steps)
	var out []string
	for _, p := range Profiles {
		if used[p] {
			out = append(out, p)
		}
	}
	return out
}

// Factory makes a Target for one check.
type Factory func(ctx context.Context) (Target, func(), error)

// RunTarget adapts a Factory to the runner.
type RunTarget struct {
	New Factory
	// Claims are the profiles the target offers (default: every profile).
	Claims []string
}

func (rt RunTarget) seam() runner.Seam[Target] {
	return runner.Seam[Target]{New: rt.New, Hello: rt.hello, Executor: func(_ context.Context, t Target) (engine.Executor, func(), error) {
		return NewExecutor(t)
	}}
}

// hello is what the runner records of a target: its hello, the profiles
// it claims and the controls every ACP target offers.
func (rt RunTarget) hello(ctx context.Context, t Target) (results.TargetInfo, error) {
	h, err := t.Hello(ctx)
	if err != nil {
		return results.TargetInfo{}, err
	}
	claims := rt.Claims
	if claims == nil {
		claims = Profiles
	}
	return results.TargetInfo{Implementation: h.Implementation, Version: h.Version, Profiles: slices.Clone(claims), Controls: Controls}, nil
}

// Describe asks one target for its hello.
func (rt RunTarget) Describe(ctx context.Context) (results.TargetInfo, error) {
	return rt.seam().Describe(ctx)
}

// NewExecutor makes a target and an executor over it for one check.
func (rt RunTarget) NewExecutor(ctx context.Context) (engine.Executor, func(), error) {
	return rt.seam().NewExecutor(ctx)
}
