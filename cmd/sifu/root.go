package main

import (
	"context"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// version is the harness version; release builds may set it with -ldflags.
var version = "0.1.0-dev"

func harness() results.Harness {
	h := results.Harness{Name: "sifu", Version: version}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				h.Commit = s.Value
			}
		}
	}
	return h
}

// versionLine is what --version prints: the version and, from the build
// information Go records, the commit it was built from and whether the
// tree had changes.
func versionLine() string {
	info, _ := debug.ReadBuildInfo()
	return versionFrom(version, info)
}

func versionFrom(v string, info *debug.BuildInfo) string {
	commit, modified := "", false
	if info != nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	switch {
	case commit == "":
		return v + " (commit unknown: built without version control information, as go run and -buildvcs=false build)"
	case modified:
		return v + " (commit " + commit + ", with uncommitted changes)"
	}
	return v + " (commit " + commit + ")"
}

// suiteEntry is one suite the CLI can run, with the targets it knows and
// the suite's own commands. A target is built from the run's flags (for
// example the URL of a server). Each suite registers itself from its own
// file (suite_<name>.go), so adding a suite touches no shared code.
type suiteEntry struct {
	suite    runner.Suite
	targets  map[string]func(runFlags) (runner.Target, error)
	commands []func() *cobra.Command
	// mutants are the reference with one planted fault each, for sifu
	// selftest; the unmutated reference is targets["inproc"].
	mutants func() []selftest.Mutant
	// fuzz runs the suite's lockstep fuzzer against a target.
	fuzz func(ctx context.Context, req fuzzRequest) (fuzz.Result, error)
	// fuzzFromChecks says the fuzzer starts from the suite's checks, so
	// fuzz --check narrows what it mutates; other fuzzers refuse --check.
	fuzzFromChecks bool
}

var registry = map[string]suiteEntry{}

// register adds a suite to the CLI; called from init in suite_<name>.go.
func register(name string, e suiteEntry) {
	if _, dup := registry[name]; dup {
		panic("sifu: suite registered twice: " + name)
	}
	registry[name] = e
}

func suites() map[string]suiteEntry { return registry }

func lookupSuite(name string) (suiteEntry, error) {
	all := suites()
	e, ok := all[name]
	if !ok {
		return suiteEntry{}, &runner.UsageError{Msg: fmt.Sprintf("unknown suite %q; available: %v", name, slices.Sorted(maps.Keys(all)))}
	}
	return e, nil
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "sifu",
		Short:         "sifu checks implementations of agent-work protocols for conformance",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &runner.UsageError{Msg: fmt.Sprintf("%v; see `%s --help`", err, c.CommandPath())}
	})
	root.AddCommand(newRunCmd(), newRulesCmd(), newServeCmd(), newVerifyCmd(), newSignCmd(), newReportCmd(), newKeygenCmd(), newDiffCmd(), newExpectCmd(), newMergeCmd(), newSelftestCmd(), newFuzzCmd(), newRaceCmd())
	for _, name := range slices.Sorted(maps.Keys(registry)) {
		for _, c := range registry[name].commands {
			root.AddCommand(c())
		}
	}
	return root
}
