package main

import (
	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/reference/acpref"
)

// Environment variables sifu acp honours (registry.ACPTools).
const acpNowEnv, acpCompatEnv = registry.ACPNowEnv, registry.ACPCompatEnv

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
	tools, err := registry.ACPTools()
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: "sifu acp: " + err.Error()}
	}
	return tools, nil
}
