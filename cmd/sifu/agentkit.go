package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/reference/agentkitref"
)

func newAgentKitCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agentkit",
		Short: "The agent-kit suite's reference gateway and config generator",
	}
	cmd.AddCommand(newAgentKitGatewayCmd(), newAgentKitConfigCmd())
	return cmd
}

func newAgentKitGatewayCmd() *cobra.Command {
	var dir string
	var faults []string
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Serve sifu's reference agent-kit gateway from app.yaml in --dir",
		Long: `Gateway reads app.yaml (with agents/*.yaml and namespaces/*.yaml) from
--dir, checks the assembly rules and serves the HTTP contract on serving.addr
until it is killed or interrupted. A configuration that breaks a rule exits
1 with the message on stderr. --fault plants a named bug (for negative
controls).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs, err := agentkitref.ParseFaults(faults)
			if err != nil {
				return usagef("%v", err)
			}
			if err := agentkitref.Serve(cmd.Context(), dir, fs); err != nil {
				return &exitError{code: exitFail, msg: "agentkit: " + err.Error()}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "directory holding app.yaml")
	cmd.Flags().StringSliceVar(&faults, "fault", nil, "plant a named fault (repeatable)")
	return cmd
}

func newAgentKitConfigCmd() *cobra.Command {
	var out, addr, stubAddr, approval string
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Write the configuration sifu generates for a gateway (for --target http)",
		Long: `Config renders sifu's default gateway configuration into --out: app.yaml and
agents/*.yaml, listening on --addr and pointing the model and the tools at
sifu's stub on --stub. Start your gateway there, then run
  sifu run --suite agentkit --target http --url http://ADDR --target-config FILE
with stub_addr: STUB in FILE.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("--out is required: the directory to write app.yaml into")
			}
			if err := registry.WriteAgentKitConfig(out, addr, stubAddr, approval); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote the generated configuration (app.yaml, agents/, namespaces/) in %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory to write into")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "serving.addr of the gateway")
	cmd.Flags().StringVar(&stubAddr, "stub", "127.0.0.1:18080", "address of sifu's stub model and tools")
	cmd.Flags().StringVar(&approval, "approval", "interactive", "approval.mode of the assistant agent")
	return cmd
}
