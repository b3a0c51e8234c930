// Command sifu is the conformance harness's command line: it runs suites
// against implementations, lists rule catalogues and writes reports.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/quickstart"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// init runs after every imported package's initialisation: PATH, hidden
// from godog's start-up by quickstart, is back before anything runs.
func init() { quickstart.Restore() }

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // a conformance check did not pass, or the harness failed
	exitUsage = 2 // the request or an input file is malformed
	// exitInterrupted is the shell's code for a command ended by SIGINT.
	exitInterrupted = 130
)

// failedError reports a run that completed but did not conform.
type failedError struct{ msg string }

func (e *failedError) Error() string { return e.msg }

// exitError ends the command with an exact exit code and stderr message,
// for commands that must behave like another tool (sifu kcp).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first Ctrl-C ends the run and reports what ended; a second one
	// kills the process at once.
	go func() { <-ctx.Done(); stop() }()
	cmd := newRoot()
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var exit *exitError
	if errors.As(err, &exit) {
		if exit.msg != "" {
			fmt.Fprintln(os.Stderr, exit.msg)
		}
		return exit.code
	}
	var harness *fuzz.HarnessError
	if errors.As(err, &harness) {
		// A fault of sifu itself, whatever command met it.
		fmt.Fprintln(os.Stderr, "sifu: harness_error:", err)
		return exitFail
	}
	var failed *failedError
	if errors.As(err, &failed) {
		fmt.Fprintln(os.Stderr, "sifu:", err)
		return exitFail
	}
	var usage *runner.UsageError
	if errors.As(err, &usage) {
		fmt.Fprintln(os.Stderr, "sifu:", err)
		return exitUsage
	}
	// Anything else is a usage problem caught by the command framework
	// (unknown command or flag) or an input the harness could not use.
	fmt.Fprintln(os.Stderr, "sifu:", err)
	return exitUsage
}

// epoch is SOURCE_DATE_EPOCH (results.SourceDateEpoch); a malformed one is
// a usage error.
func epoch() (time.Time, bool, error) {
	at, set, err := results.SourceDateEpoch()
	if err != nil {
		return at, set, usagef("%v", err)
	}
	return at, set, nil
}
