// Package interrupt is how a sifu command stops: the first SIGINT or
// SIGTERM cancels what the command is doing, so it can end its targets'
// processes and write what it ran; a second signal, or a grace period
// without the command ending, ends the process with the signal's code.
package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// Grace is how long a command has, after the first signal, to end on its
// own before the process exits regardless: no operation that misses the
// cancellation keeps sifu alive.
const Grace = 10 * time.Second

// Stopper is a command's signal handling, from On until Close.
type Stopper struct {
	sigs chan os.Signal
	done chan struct{}
	got  atomic.Pointer[os.Signal]
}

// On catches SIGINT and SIGTERM: the first calls cancel; a second one, or
// Grace without Close, says so on stderr and exits with Code.
func On(cancel context.CancelFunc) *Stopper {
	s := newStopper()
	signal.Notify(s.sigs, os.Interrupt, syscall.SIGTERM)
	go s.watch(cancel, func() { signal.Stop(s.sigs) }, time.After, os.Stderr, os.Exit)
	return s
}

func newStopper() *Stopper {
	return &Stopper{sigs: make(chan os.Signal, 1), done: make(chan struct{})}
}

// watch waits for the first signal, cancels, gives Go's own handling back
// (release: a second signal ends the process at once) and waits for Close
// or the grace period to end.
func (s *Stopper) watch(cancel context.CancelFunc, release func(), after func(time.Duration) <-chan time.Time, stderr io.Writer, exit func(int)) {
	var sig os.Signal
	select {
	case sig = <-s.sigs:
	case <-s.done:
		return
	}
	s.got.Store(&sig)
	cancel()
	release()
	select {
	case <-s.done:
	case <-after(Grace):
		fmt.Fprintf(stderr, "sifu: stopped by %s, and the command did not end within %s; exiting\n", Name(sig), Grace)
		exit(Code(sig))
	}
}

// Signal is the signal that stopped the command, or nil.
func (s *Stopper) Signal() os.Signal {
	if p := s.got.Load(); p != nil {
		return *p
	}
	return nil
}

// Close ends the handling: the command has ended.
func (s *Stopper) Close() {
	signal.Stop(s.sigs)
	close(s.done)
}

// Code is the shell's code for a command ended by sig: 128 and the
// signal's number (130 for SIGINT, 143 for SIGTERM).
func Code(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return 143
	}
	return 130
}

// Name is how sifu names sig in its messages.
func Name(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}
