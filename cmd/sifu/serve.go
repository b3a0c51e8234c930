package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/runner"
)

func newServeCmd() *cobra.Command {
	var addr, db, tokenFile, fault, syncMode string
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
			return serve(cmd.Context(), cmd, addr, db, tokenFile, fault, syncMode, overStdio)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on")
	cmd.Flags().StringVar(&db, "db", "kungfu.db", "SQLite database file, or :memory:")
	cmd.Flags().StringVar(&tokenFile, "control-token-file", "", "file holding the token control requests must present")
	cmd.Flags().BoolVar(&overStdio, "stdio", false, "speak the binding on standard input and output instead of HTTP")
	cmd.Flags().StringVar(&syncMode, "sync", "full", "full: every fact is synced to the disk before the answer; normal: written to the file before the answer, synced at checkpoints")
	cmd.Flags().StringVar(&fault, "fault", "", "plant this known bug in the reference (a name sifu selftest --suite kungfu lists)")
	return cmd
}

func serve(ctx context.Context, cmd *cobra.Command, addr, db, tokenFile, fault, syncMode string, overStdio bool) error {
	o := registry.ServeKungfu{Addr: addr, DB: db, Fault: fault}
	if db != ":memory:" {
		// --db out/kungfu.db works on a fresh checkout: the folder is made.
		if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
			return usagef("--db %s: %v", db, err)
		}
	}
	switch syncMode {
	case "full":
	case "normal":
		o.SyncNormal = true
	default:
		return usagef("--sync %q: use full or normal", syncMode)
	}
	if tokenFile != "" {
		raw, err := inputfile.Read(tokenFile)
		if err != nil {
			return usagef("--control-token-file: %v", err)
		}
		o.ControlToken = strings.TrimSpace(string(raw))
	}
	if overStdio {
		o.Stdin, o.Stdout = os.Stdin, os.Stdout
	}
	planted := ""
	if fault != "" {
		planted = ", with the planted fault " + fault
	}
	o.Ready = func(at string) {
		fmt.Fprintf(cmd.OutOrStdout(), "sifu: serving the Kungfu reference on http://%s (store %s%s)\n", at, db, planted)
	}
	return o.Serve(ctx)
}
