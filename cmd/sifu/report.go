package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/report"
	"github.com/sifu-dev/sifu/internal/runner"
)

func newReportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report --out DIR RUN…",
		Short: "Write a static page of rules × implementations, with every verdict's checks and transcript a click away",
		Long: `Report reads runs — results directories (--out of sifu run) and statement
directories (--declare, such as conformance/kungfu or conformance/peers/*) — and
writes DIR/index.html: per suite, the implementations with their counts and
claims (and whether sifu verify holds for each statement), the rules of each
profile, and a matrix of rules × implementations, filterable by profile,
level and status, whose cells open the checks behind each verdict with their
transcripts; for two runs of one implementation, what changed. The page needs
no server and no network: open it from disk. A directory of run directories
(conformance/peers) is read as its runs.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return &runner.UsageError{Msg: "report needs --out DIR, e.g. --out site"}
			}
			sum, err := report.Make(cmd.Context(), out, args, registry.Suites)
			for _, s := range sum.Skipped {
				fmt.Fprintf(cmd.ErrOrStderr(), "sifu: skipped %s: %s\n", s.Path, s.Why)
			}
			if err != nil {
				return &runner.UsageError{Msg: err.Error()}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s/index.html: %d run(s) of %d suite(s), %d file(s)\n", out, sum.Runs, sum.Suites, sum.Files)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for the site (index.html and data/)")
	return cmd
}
