package main

import (
	"context"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/adapters/exec"
	"github.com/sifu-dev/sifu/adapters/inproc"
	"github.com/sifu-dev/sifu/results"
	"github.com/sifu-dev/sifu/runner"
	"github.com/sifu-dev/sifu/suite/kcp"
	"github.com/sifu-dev/sifu/suite/kungfu"
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

// suiteEntry is one suite the CLI can run, with the targets it knows. A
// target is built from the run's flags (for example the URL of a server).
type suiteEntry struct {
	suite   runner.Suite
	targets map[string]func(runFlags) (runner.Target, error)
}

func suites() map[string]suiteEntry {
	return map[string]suiteEntry{
		"kungfu": {
			suite: kungfu.Suite,
			targets: map[string]func(runFlags) (runner.Target, error){
				"inproc": func(runFlags) (runner.Target, error) {
					return kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
						t, err := inproc.NewKungfu()
						return t, func() {}, err
					}}, nil
				},
				"http":  httpTarget,
				"stdio": stdioTarget,
			},
		},
		"kcp": {
			suite: kcp.Suite,
			targets: map[string]func(runFlags) (runner.Target, error){
				"inproc": func(runFlags) (runner.Target, error) {
					return kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) {
						return inproc.KCP{}, func() {}, nil
					}}, nil
				},
				"exec": func(f runFlags) (runner.Target, error) {
					if strings.TrimSpace(f.command) == "" {
						return nil, &runner.UsageError{Msg: `--target exec needs --cmd, e.g. --cmd "sifu kcp" or --cmd "kcp-agent"`}
					}
					return kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) {
						return exec.Planner{Command: f.command}, func() {}, nil
					}}, nil
				},
			},
		},
	}
}

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
		Version:       version,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &runner.UsageError{Msg: fmt.Sprintf("%v; see `%s --help`", err, c.CommandPath())}
	})
	root.AddCommand(newRunCmd(), newRulesCmd(), newServeCmd(), newVerifyCmd(), newDiffCmd(), newExpectCmd(), newMergeCmd(), newKCPCmd())
	return root
}
