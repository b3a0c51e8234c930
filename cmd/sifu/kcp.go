package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	refkcp "github.com/sifu-dev/sifu/reference/kcp"
)

const kcpUsage = `Usage: sifu kcp plan --task "<task>" --manifest <file> [--json] [--env E] [--as-of YYYY-MM-DD]
         [--max-units N] [--strict] [--role R] [--methods a,b] [--credentials a,b] [--attest P]
         [--budget N] [--currency C] [--context-budget N] [--correlation-id ID]
       sifu kcp validate --manifest <file> [--json] [--as-of YYYY-MM-DD]

The flags, defaults, JSON output and exit codes are kcp-agent's (0 ok, 1 the
manifest could not be read or parsed, 2 usage), so sifu is a drop-in planner.`

func newKCPCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "kcp", Short: "The reference KCP planner, with kcp-agent's command line"}
	cmd.AddCommand(&cobra.Command{
		Use:                "plan",
		Short:              "Plan a task over a knowledge manifest (kcp-agent plan)",
		DisableFlagParsing: true,
		RunE:               func(cmd *cobra.Command, args []string) error { return kcpPlan(cmd.OutOrStdout(), args) },
	})
	cmd.AddCommand(&cobra.Command{
		Use:                "validate",
		Short:              "Check a knowledge manifest (kcp-agent validate)",
		DisableFlagParsing: true,
		RunE:               func(cmd *cobra.Command, args []string) error { return kcpValidate(cmd.OutOrStdout(), args) },
	})
	return cmd
}

// readManifest reads and parses a manifest file, failing like kcp-agent.
func readManifest(loc string) (refkcp.Manifest, []byte, error) {
	if strings.Contains(loc, "://") {
		return refkcp.Manifest{}, nil, &exitError{code: refkcp.ExitFailure, msg: refkcp.FetchFailedMessage(loc, fmt.Errorf("remote manifests are not fetched by sifu"))}
	}
	raw, err := os.ReadFile(loc)
	if err != nil {
		return refkcp.Manifest{}, nil, &exitError{code: refkcp.ExitFailure, msg: refkcp.FetchFailedMessage(loc, err)}
	}
	m, err := refkcp.ParseManifest(raw)
	if err != nil {
		return refkcp.Manifest{}, nil, &exitError{code: refkcp.ExitFailure, msg: refkcp.ParseFailedMessage(loc, err)}
	}
	m.Source = loc
	return m, raw, nil
}

func kcpPlan(out io.Writer, args []string) error {
	inv, err := refkcp.ParsePlanArgs(args)
	if err != nil {
		return &exitError{code: refkcp.ExitUsage, msg: err.Error()}
	}
	if inv.Help {
		fmt.Fprintln(out, kcpUsage)
		return nil
	}
	m, _, err := readManifest(inv.Manifest)
	if err != nil {
		return err
	}
	if inv.Options.AsOf == "" {
		inv.Options.AsOf = refkcp.DefaultAsOf(time.Now())
	}
	p := refkcp.Plan(inv.Task, m, inv.Options)
	if inv.JSON {
		_, err := out.Write(refkcp.PlanJSON(p, refkcp.Envelope{CorrelationID: inv.CorrelationID}))
		return err
	}
	o := refkcp.Outcome(p)
	fmt.Fprintf(out, "plan for %q over %s (as of %s)\n", inv.Task, inv.Manifest, inv.Options.AsOf)
	for _, s := range o.Selected {
		eligible := "load-eligible"
		if !s.LoadEligible {
			eligible = "not load-eligible"
		}
		fmt.Fprintf(out, "  select %-30s score %-4d %s\n", s.ID, s.Score, eligible)
	}
	for _, s := range o.Skipped {
		fmt.Fprintf(out, "  skip   %-30s %s\n", s.ID, s.Reason)
	}
	for _, w := range o.Warnings {
		fmt.Fprintf(out, "  warning: %s\n", w)
	}
	return nil
}

func kcpValidate(out io.Writer, args []string) error {
	var loc, asOf string
	asJSON := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--json":
			asJSON = true
		case a == "--help" || a == "-h":
			fmt.Fprintln(out, kcpUsage)
			return nil
		case (a == "--manifest" || a == "--as-of") && i+1 < len(args):
			if a == "--manifest" {
				loc = args[i+1]
			} else {
				asOf = args[i+1]
			}
			i++
		case strings.HasPrefix(a, "--manifest="):
			loc = strings.TrimPrefix(a, "--manifest=")
		case strings.HasPrefix(a, "--as-of="):
			asOf = strings.TrimPrefix(a, "--as-of=")
		case strings.HasPrefix(a, "-"):
			return &exitError{code: refkcp.ExitUsage, msg: "Unknown option: " + a}
		default:
			loc = a
		}
	}
	if loc == "" {
		return &exitError{code: refkcp.ExitUsage, msg: "Missing manifest."}
	}
	m, _, err := readManifest(loc)
	if err != nil {
		return err
	}
	v := refkcp.Validate(m, refkcp.ValidateOptions{Source: loc, AsOf: asOf, Files: os.DirFS(filepath.Dir(loc))})
	if asJSON {
		if _, err := out.Write(refkcp.ValidationJSON(v)); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "%s\n", refkcp.ValidationJSON(v))
	}
	if code := v.ExitCode(); code != refkcp.ExitOK {
		return &exitError{code: code}
	}
	return nil
}
