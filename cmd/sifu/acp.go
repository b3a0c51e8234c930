package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/reference/acpref"
)

// Environment variables sifu acp honours, so a harness can make its runs
// reproducible without flags the upstream tools lack.
const (
	acpNowEnv    = "SIFU_ACP_NOW"    // RFC 3339 time to stamp events with
	acpCompatEnv = "SIFU_ACP_COMPAT" // "1": upstream verdicts on every quirk
)

func newACPCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "The reference ACP tools: init, append, next, wait, validate",
		Long: `The Agent Collaboration Protocol tools, with the upstream scripts' flags,
output and exit codes (validate: 0 valid, 1 warnings, 2 invalid).

--compat (or ` + acpCompatEnv + `=1) reproduces the upstream verdicts on every
quirk instead of sifu's stricter reading; ` + acpNowEnv + `=<RFC 3339 time>
fixes the clock. See docs/acp.md.`,
	}
	for _, tool := range []string{"init", "append", "next", "wait", "validate"} {
		cmd.AddCommand(&cobra.Command{
			Use:                acpref.Usage[tool],
			Short:              "ACP " + tool,
			DisableFlagParsing: true,
			RunE: func(c *cobra.Command, args []string) error {
				tools, err := acpTools()
				if err != nil {
					return err
				}
				code := tools.Main(c.Context(), "sifu acp", append([]string{tool}, args...), c.OutOrStdout(), c.ErrOrStderr())
				if code != 0 {
					return &exitError{code: code}
				}
				return nil
			},
		})
	}
	return cmd
}

func acpTools() (*acpref.Tools, error) {
	opts := acpref.Options{Compat: os.Getenv(acpCompatEnv) == "1"}
	if v := strings.TrimSpace(os.Getenv(acpNowEnv)); v != "" {
		now, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return nil, &exitError{code: 2, msg: fmt.Sprintf("sifu acp: %s=%q is not an RFC 3339 time such as 2026-01-02T03:04:05Z", acpNowEnv, v)}
		}
		opts.Now = func() time.Time { return now }
	}
	return acpref.New(opts), nil
}
