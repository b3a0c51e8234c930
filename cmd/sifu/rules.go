package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/catalogue"
	"github.com/sifu-dev/sifu/runner"
)

func newRulesCmd() *cobra.Command {
	var suite string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Print a suite's rule catalogue and the checks that cover each rule",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			entry, err := lookupSuite(suite)
			if err != nil {
				return err
			}
			plan, err := runner.Load(sifu.Assets, entry.suite)
			if err != nil {
				return err
			}
			return printRules(cmd.OutOrStdout(), plan, asJSON)
		},
	}
	cmd.Flags().StringVar(&suite, "suite", "kungfu", "suite whose catalogue to print")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

// ruleCoverage is one catalogue rule with the checks that name it.
type ruleCoverage struct {
	catalogue.Rule
	Checks []string `json:"checks"`
}

func printRules(w io.Writer, plan *runner.Plan, asJSON bool) error {
	covered := map[string][]string{}
	for _, c := range plan.Checks {
		for _, id := range c.Rules {
			covered[id] = append(covered[id], c.ID)
		}
	}
	rows := make([]ruleCoverage, len(plan.Catalogue.Rules))
	for i, r := range plan.Catalogue.Rules {
		rows[i] = ruleCoverage{Rule: r, Checks: covered[r.ID]}
		if rows[i].Checks == nil {
			rows[i].Checks = []string{}
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"suite": plan.Catalogue.Suite, "spec": plan.Catalogue.Spec, "rules": rows})
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tLEVEL\tPROFILE\tEVIDENCE\tCHECKS\tSUMMARY")
	for _, r := range rows {
		profile := strings.Join(r.Profiles, ",")
		if len(r.ExercisedWith) > 0 {
			profile += " (with " + strings.Join(r.ExercisedWith, ",") + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", r.ID, r.Level, profile, r.Evidence, len(r.Checks), r.Summary)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	n := 0
	for _, r := range rows {
		if len(r.Checks) > 0 {
			n++
		}
	}
	fmt.Fprintf(w, "\n%d rules, %d covered by at least one of %d checks (sifu rules --json lists the check IDs)\n", len(rows), n, len(plan.Checks))
	return nil
}
