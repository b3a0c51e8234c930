package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/runner"
)

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "sifu",
		Short:         "sifu checks implementations of agent-work protocols for conformance",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       registry.VersionLine(),
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%v; see `%s --help`", err, c.CommandPath())
	})
	root.AddCommand(newRunCmd(), newRulesCmd(), newServeCmd(), newVerifyCmd(), newSignCmd(), newReportCmd(), newKeygenCmd(),
		newDiffCmd(), newExpectCmd(), newMergeCmd(), newSelftestCmd(), newFuzzCmd(), newRaceCmd(),
		newACPCmd(), newAgentKitCmd(), newKCPCmd())
	return root
}

func usagef(format string, args ...any) error {
	return &runner.UsageError{Msg: fmt.Sprintf(format, args...)}
}
