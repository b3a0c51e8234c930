// Command sifu is the conformance harness's command line: it runs suites
// against implementations, lists rule catalogues and writes reports.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/interrupt"
	"github.com/sifu-dev/sifu/internal/quickstart"
	"github.com/sifu-dev/sifu/internal/registry"
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
	// exitInterrupted and exitTerminated are the shell's codes for a
	// command ended by SIGINT and by SIGTERM: sifu ends with them when
	// either stopped what it was doing.
	exitInterrupted = 130
	exitTerminated  = 143
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopper := interrupt.On(cancel)
	defer stopper.Close()
	cmd := newRoot()
	cmd.SetArgs(args)
	code, msg := exitOf(cmd.ExecuteContext(ctx))
	if msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	if sig := stopper.Signal(); sig != nil && code != exitOK {
		// What failed failed because the command was stopped: the code
		// says so (a command that finished all the same keeps its 0).
		fmt.Fprintf(os.Stderr, "sifu: stopped by %s\n", signalName(sig))
		return interrupt.Code(sig)
	}
	return code
}

// exitOf is the code err ends the command with, and the message, if any,
// sifu prints on stderr.
func exitOf(err error) (int, string) {
	if err == nil {
		return exitOK, ""
	}
	var exit *exitError
	if errors.As(err, &exit) {
		return exit.code, exit.msg
	}
	var harness *fuzz.HarnessError
	if errors.As(err, &harness) {
		// A fault of sifu itself, whatever command met it.
		return exitFail, "sifu: harness_error: " + err.Error()
	}
	var failed *failedError
	if errors.As(err, &failed) {
		return exitFail, "sifu: " + err.Error()
	}
	// A runner.UsageError, a usage problem caught by the command framework
	// (unknown command or flag), or an input the harness could not use.
	return exitUsage, "sifu: " + err.Error()
}

// signalName is how sifu names a signal in its messages.
var signalName = interrupt.Name

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "sifu",
		Short:         "sifu checks implementations of agent-work protocols for conformance",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       registry.VersionLine(),
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%v; see `%s --help`", err, c.CommandPath())
	})
	root.AddCommand(newRunCmd(), newRulesCmd(), newServeCmd(), newVerifyCmd(), newSignCmd(), newReportCmd(), newKeygenCmd(),
		newDiffCmd(), newExpectCmd(), newMergeCmd(), newSelftestCmd(), newFuzzCmd(), newRaceCmd(),
		newACPCmd(), newAgentKitCmd(), newKCPCmd())
	return root
}

func usagef(format string, args ...any) error {
	return &runner.UsageError{Msg: fmt.Sprintf(format, args...)}
}
