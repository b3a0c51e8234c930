// Command sifu is the conformance harness's command line: it runs suites
// against implementations, lists rule catalogues and writes reports.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/quickstart"
	"github.com/sifu-dev/sifu/internal/results"
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
	ended := onSignal(cancel)
	defer ended.close()
	cmd := newRoot()
	cmd.SetArgs(args)
	code, msg := exitOf(cmd.ExecuteContext(ctx))
	if msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	if sig := ended.signal(); sig != nil && code != exitOK {
		// What failed failed because the command was stopped: the code
		// says so (a command that finished all the same keeps its 0).
		fmt.Fprintf(os.Stderr, "sifu: stopped by %s\n", signalName(sig))
		return signalCode(sig)
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

// stopGrace is how long a command has, after SIGINT or SIGTERM, to end on
// its own (end its targets' processes, write what it ran) before sifu
// exits regardless: no operation that misses the cancellation keeps sifu
// alive.
const stopGrace = 10 * time.Second

// stopper is the command's signal handling: the first SIGINT or SIGTERM
// cancels the command's context; a second one, or stopGrace without the
// command ending, ends the process with the signal's code.
type stopper struct {
	sigs chan os.Signal
	done chan struct{}
	got  atomic.Pointer[os.Signal]
}

func onSignal(cancel context.CancelFunc) *stopper {
	s := &stopper{sigs: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(s.sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		var sig os.Signal
		select {
		case sig = <-s.sigs:
		case <-s.done:
			return
		}
		s.got.Store(&sig)
		cancel()
		// Go's own handling again: a second signal ends the process at once.
		signal.Stop(s.sigs)
		select {
		case <-s.done:
		case <-time.After(stopGrace):
			fmt.Fprintf(os.Stderr, "sifu: stopped by %s, and the command did not end within %s; exiting\n", signalName(sig), stopGrace)
			os.Exit(signalCode(sig))
		}
	}()
	return s
}

// signal is the signal that stopped the command, or nil.
func (s *stopper) signal() os.Signal {
	if p := s.got.Load(); p != nil {
		return *p
	}
	return nil
}

func (s *stopper) close() {
	signal.Stop(s.sigs)
	close(s.done)
}

// signalCode is the shell's code for a command ended by sig: 128 and the
// signal's number (130 for SIGINT, 143 for SIGTERM).
func signalCode(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return exitTerminated
	}
	return exitInterrupted
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
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
