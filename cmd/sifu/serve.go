package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/adapters/kungfuhttp"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/adapters/kungfustdio"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/reference/kungfuref/sqlitestore"
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
	var storeOpts []sqlitestore.Option
	switch syncMode {
	case "full":
	case "normal":
		storeOpts = append(storeOpts, sqlitestore.SyncNormal())
	default:
		return &runner.UsageError{Msg: fmt.Sprintf("--sync %q: use full or normal", syncMode)}
	}
	opts := kungfuhttp.ServerOptions{}
	var refOpts []kungfuref.Option
	if fault != "" {
		if !slices.Contains(kungfuref.Faults, kungfuref.Fault(fault)) {
			return &runner.UsageError{Msg: fmt.Sprintf("--fault %q is not a planted fault of the Kungfu reference; `sifu selftest --suite kungfu` lists them", fault)}
		}
		refOpts = append(refOpts, kungfuref.WithFaults(kungfuref.Fault(fault)))
	}
	if tokenFile != "" {
		raw, err := os.ReadFile(tokenFile)
		if err != nil {
			return &runner.UsageError{Msg: fmt.Sprintf("--control-token-file: %v", err)}
		}
		opts.ControlToken = strings.TrimSpace(string(raw))
	}
	var logs kungfuinproc.Logs = &kungfuinproc.MemoryLogs{}
	if db == ":memory:" {
		opts.CredentialKey = make([]byte, 32)
		_, _ = rand.Read(opts.CredentialKey)
	} else {
		st, err := sqlitestore.Open(db, storeOpts...)
		if err != nil {
			return &runner.UsageError{Msg: err.Error()}
		}
		defer st.Close()
		key, err := st.Secret("credential-key")
		if err != nil {
			return &runner.UsageError{Msg: err.Error()}
		}
		opts.CredentialKey = key
		logs = st
	}
	// One reference per scope (docs/binding.md): checks that move their
	// clock or restart touch only their own, however many share the server.
	target, err := kungfuinproc.NewScopes(logs, refOpts...)
	if err != nil {
		return fmt.Errorf("start the reference: %w", err)
	}
	if overStdio {
		return kungfustdio.Serve(ctx, target, os.Stdin, os.Stdout)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &runner.UsageError{Msg: fmt.Sprintf("--addr %s: %v", addr, err)}
	}
	srv := &http.Server{Handler: kungfuhttp.NewHandler(target, opts), ReadHeaderTimeout: 10 * time.Second}
	planted := ""
	if fault != "" {
		planted = ", with the planted fault " + fault
	}
	fmt.Fprintf(cmd.OutOrStdout(), "sifu: serving the Kungfu reference on http://%s (store %s%s)\n", ln.Addr(), db, planted)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shut)
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
