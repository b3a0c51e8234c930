package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/reference/kcpref/kcpcli"
)

func newKCPCmd() *cobra.Command {
	var serve bool
	cmd := &cobra.Command{
		Use:   "kcp",
		Short: "The reference KCP planner, with kcp-agent's command line",
		Long: `The reference KCP planner, with kcp-agent's command line (plan, validate),
or with --serve as a planner runner: newline-delimited JSON requests on
standard input, one answer per line (docs/kcp-runner.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !serve {
				return cmd.Help()
			}
			return kcpRun(cmd, "--serve", nil)
		},
	}
	cmd.Flags().BoolVar(&serve, "serve", false, "answer the planner runner protocol on stdin/stdout (docs/kcp-runner.md)")
	for name, short := range map[string]string{"plan": "Plan a task over a knowledge manifest (kcp-agent plan)", "validate": "Check a knowledge manifest (kcp-agent validate)"} {
		cmd.AddCommand(&cobra.Command{Use: name, Short: short, DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error { return kcpRun(cmd, name, args) }})
	}
	return cmd
}

// kcpRun runs one planner command through the planner's own command line
// (reference/kcp/kcpcli), keeping its exact exit codes and messages.
func kcpRun(cmd *cobra.Command, name string, args []string) error {
	var stderr strings.Builder
	cli := kcpcli.CLI{Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: &stderr} // stdin: read by --serve only
	if code := cli.Main(append([]string{name}, args...)); code != 0 {
		return &exitError{code: code, msg: strings.TrimSuffix(stderr.String(), "\n")}
	}
	return nil
}
