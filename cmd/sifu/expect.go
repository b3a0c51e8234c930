package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/knownfail"
	"github.com/sifu-dev/sifu/internal/runner"
)

func newExpectCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "expect", Short: "Maintain an expectations file (known failures, each with a reason)"}
	var file string
	update := &cobra.Command{
		Use:   "update results.json",
		Short: "Write the expectations file from a run: every check that did not pass, keeping existing reasons",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run, _, err := declaration.ReadResults(args[0])
			if err != nil {
				return &runner.UsageError{Msg: err.Error()}
			}
			var old *knownfail.File
			if _, statErr := os.Stat(file); statErr == nil {
				if old, _, err = knownfail.Load(file); err != nil {
					return &runner.UsageError{Msg: err.Error()}
				}
			}
			f := knownfail.Update(run, old)
			raw, err := knownfail.Marshal(f)
			if err != nil {
				return err
			}
			if err := os.WriteFile(file, raw, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d expected failure(s); replace every TODO with the reason\n", file, len(f.ExpectedFailures))
			return nil
		},
	}
	update.Flags().StringVar(&file, "file", "sifu.expect.yaml", "the expectations file to write")
	cmd.AddCommand(update)
	return cmd
}
