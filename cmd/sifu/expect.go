package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/registry"
)

func newExpectCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "expect", Short: "Maintain an expectations file (known failures, each with a reason)"}
	var file string
	update := &cobra.Command{
		Use:   "update results.json",
		Short: "Write the expectations file from a run: every check that did not pass, keeping existing reasons",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := registry.UpdateExpectations(args[0], file)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d expected failure(s); replace every TODO with the reason\n", file, n)
			return nil
		},
	}
	update.Flags().StringVar(&file, "file", "sifu.expect.yaml", "the expectations file to write")
	cmd.AddCommand(update)
	return cmd
}
