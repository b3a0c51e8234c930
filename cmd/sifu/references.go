package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/acpref"
	"github.com/sifu-dev/sifu/reference/agentkitref"
	"github.com/sifu-dev/sifu/reference/kcpref/kcpcli"
)

func newServeCmd() *cobra.Command {
	var o registry.ServeKungfu
	var overStdio bool
	cmd := &cobra.Command{
		Use:   "serve kungfu",
		Short: "Serve the bundled Kungfu reference over the sifu HTTP binding",
		Long: `Serve runs the reference implementation behind the binding of
docs/binding.md. Facts go to an embedded SQLite database (--db, default
kungfu.db) and are on disk before a success is answered; --db :memory: keeps
them in memory. --sync normal writes each fact to the file before the answer
but syncs the file to the disk only at checkpoints: a killed process loses
nothing it answered (what the restart control needs), an operating-system
crash may lose the last facts. Checks that move the clock or restart stay
inside their own scope: the server keeps one reference per scope. With --control-token-file, control requests must present
that token. --fault plants one of the reference's known bugs (the names
sifu selftest --suite kungfu lists), to see a run, a CI gate or an
expectations file catch a real failure. --mcp serves the reference behind
the MCP tools of a surface map instead (docs/kungfu-mcp.md).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || args[0] != "kungfu" {
				return &runner.UsageError{Msg: "serve takes one suite name; only `sifu serve kungfu` exists today"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if overStdio {
				o.Stdin, o.Stdout = os.Stdin, os.Stdout
			}
			planted := ""
			if o.Fault != "" {
				planted = ", with the planted fault " + o.Fault
			}
			if o.MCP {
				planted += ", as MCP tools (Streamable HTTP) at /mcp"
			}
			o.Ready = func(at string) {
				fmt.Fprintf(cmd.OutOrStdout(), "sifu: serving the Kungfu reference on http://%s (store %s%s)\n", at, o.DB, planted)
			}
			return o.Serve(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&o.Addr, "addr", "127.0.0.1:8080", "address to listen on")
	cmd.Flags().StringVar(&o.DB, "db", "kungfu.db", "SQLite database file, or :memory:")
	cmd.Flags().StringVar(&o.TokenFile, "control-token-file", "", "file holding the token control requests must present")
	cmd.Flags().BoolVar(&overStdio, "stdio", false, "speak the binding on standard input and output instead of HTTP")
	cmd.Flags().StringVar(&o.Sync, "sync", "full", "full: every fact is synced to the disk before the answer; normal: written to the file before the answer, synced at checkpoints")
	cmd.Flags().BoolVar(&o.MCP, "mcp", false, "serve the tools of a surface map over MCP (Streamable HTTP at /mcp, or --stdio) instead of the binding")
	cmd.Flags().StringVar(&o.Map, "map", "", "with --mcp: the surface map to serve (default the bundled Kungfu 3.0 map)")
	cmd.Flags().StringVar(&o.Fault, "fault", "", "plant this known bug in the reference (a name sifu selftest --suite kungfu lists)")
	return cmd
}

func newKCPCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kcp",
		Short: "The reference KCP planner, with kcp-agent's command line",
		Long: `The reference KCP planner, with kcp-agent's command line (plan, validate,
replay, diff; --help prints its usage), or with --serve as a planner runner:
newline-delimited JSON requests on standard input, one answer per line
(docs/kcp-runner.md).`,
		// Every argument is the planner command line's, --help and no
		// command included, so that sifu kcp is a drop-in for kcp-agent.
		DisableFlagParsing: true,
		RunE:               kcpRun,
	}
	for name, short := range map[string]string{"plan": "Plan a task over a knowledge manifest (kcp-agent plan)", "validate": "Check a knowledge manifest (kcp-agent validate)",
		"replay": "Replay a saved plan against today's manifest (kcp-agent replay)", "diff": "Compare two saved plans (kcp-agent diff)",
		"mcp": "Serve the planner as MCP tools on stdin/stdout (kcp-agent mcp)", "serve": "Serve the planner over HTTP: REST routes and /mcp (kcp-agent serve)"} {
		cmd.AddCommand(&cobra.Command{Use: name, Short: short, DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error { return kcpRun(cmd, append([]string{name}, args...)) }})
	}
	return cmd
}

// kcpRun runs one planner command line through the planner's own command
// line (reference/kcp/kcpcli), keeping its exact exit codes and messages.
func kcpRun(cmd *cobra.Command, args []string) error {
	var stderr strings.Builder
	cli := kcpcli.CLI{Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: &stderr} // stdin: read by --serve only
	if len(args) > 0 && args[0] == "serve" {
		// a server warns while it runs
		cli.Stderr = cmd.ErrOrStderr()
	}
	if code := cli.Main(args); code != 0 {
		return &exitError{code: code, msg: strings.TrimSuffix(stderr.String(), "\n")}
	}
	return nil
}

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
