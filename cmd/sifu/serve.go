package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/runner"
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
expectations file catch a real failure.`,
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
	cmd.Flags().StringVar(&o.Fault, "fault", "", "plant this known bug in the reference (a name sifu selftest --suite kungfu lists)")
	return cmd
}
