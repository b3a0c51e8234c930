package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/inproc"
	"github.com/sifu-dev/sifu/declaration"
	ref "github.com/sifu-dev/sifu/reference/kungfu"
	"github.com/sifu-dev/sifu/results"
	"github.com/sifu-dev/sifu/runner"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func declareRun(t *testing.T, opts ...ref.Option) (string, *results.Run, *runner.Plan) {
	t.Helper()
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		k, err := inproc.NewKungfu(opts...)
		return k, func() {}, err
	}}
	run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "inproc", Harness: harness()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := declare(dir, plan, kungfu.Suite, run, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "conformance.json"), run, plan
}

// TestDeclarationOfTheReferenceVerifies: the reference earns a complete
// Full-profile statement that verify confirms; one flipped byte in the
// transcript, or an edited claim, makes verify fail.
func TestDeclarationOfTheReferenceVerifies(t *testing.T) {
	path, _, plan := declareRun(t)
	d, err := declaration.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if d.Partial || !slices.Equal(d.Claimed, []string{"memory", "thread", "task", "full"}) {
		t.Fatalf("the reference should claim every profile: claimed %v, unmet %v", d.Claimed, d.Unmet)
	}
	src := sources(kungfu.Suite)
	if problems, err := declaration.Verify(path, plan.Catalogue, src); err != nil || len(problems) > 0 {
		t.Fatalf("verify: %v %v", err, problems)
	}
	transcript := filepath.Join(filepath.Dir(path), "transcript.jsonl")
	raw, _ := os.ReadFile(transcript)
	raw[len(raw)/2] ^= 1
	os.WriteFile(transcript, raw, 0o644)
	if problems, _ := declaration.Verify(path, plan.Catalogue, src); len(problems) == 0 {
		t.Fatal("a flipped transcript byte went unnoticed")
	}
	raw[len(raw)/2] ^= 1
	os.WriteFile(transcript, raw, 0o644)
	edited, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(string(edited[:len(edited)/2])), 0o644)
	if _, err := declaration.Read(path); err == nil {
		t.Fatal("a truncated declaration was accepted")
	}
}

// TestPlantedFaultMakesAPartialStatement: with a fault planted, the
// statement is partial and lists exactly the rules the run found unmet.
func TestPlantedFaultMakesAPartialStatement(t *testing.T) {
	path, run, plan := declareRun(t, ref.WithFaults(ref.FaultExistenceLeak))
	d, err := declaration.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, r := range run.Rules {
		if r.Status == results.RuleFail {
			failed = append(failed, r.ID)
		}
	}
	var unmet []string
	for _, u := range d.Unmet {
		unmet = append(unmet, u.ID)
	}
	slices.Sort(failed)
	slices.Sort(unmet)
	if !d.Partial || len(failed) == 0 || !slices.Equal(unmet, failed) || slices.Contains(d.Claimed, "memory") {
		t.Fatalf("partial=%v claimed=%v unmet=%v failing rules=%v", d.Partial, d.Claimed, unmet, failed)
	}
	if problems, err := declaration.Verify(path, plan.Catalogue, sources(kungfu.Suite)); err != nil || len(problems) > 0 {
		t.Fatalf("a partial statement must verify too: %v %v", err, problems)
	}
}
