package interrupt

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTheFirstSignalCancelsAndTheGraceEndsTheProcess: the first signal
// cancels the command and is remembered; when the grace period ends before
// Close, the process exits with the signal's code, saying so.
func TestTheFirstSignalCancelsAndTheGraceEndsTheProcess(t *testing.T) {
	s := newStopper()
	cancelled, released := make(chan struct{}), make(chan struct{})
	grace := make(chan time.Time)
	exited := make(chan int, 1)
	var stderr bytes.Buffer
	go s.watch(func() { close(cancelled) }, func() { close(released) }, func(d time.Duration) <-chan time.Time {
		if d != Grace {
			t.Errorf("grace %s, want %s", d, Grace)
		}
		return grace
	}, &stderr, func(code int) { exited <- code })
	if s.Signal() != nil {
		t.Fatal("a signal before any was sent")
	}
	s.sigs <- syscall.SIGTERM
	<-cancelled
	<-released
	if s.Signal() != syscall.SIGTERM {
		t.Errorf("Signal() = %v, want SIGTERM", s.Signal())
	}
	grace <- time.Time{}
	if code := <-exited; code != 143 {
		t.Errorf("exit %d after the grace, want 143", code)
	}
	if !strings.Contains(stderr.String(), "stopped by SIGTERM, and the command did not end within 10s") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// TestCloseEndsTheWatchWithoutExiting: a command that ends within the
// grace period, or before any signal, is not exited.
func TestCloseEndsTheWatchWithoutExiting(t *testing.T) {
	for _, signalled := range []bool{false, true} {
		s := newStopper()
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			s.watch(func() {}, func() {}, func(time.Duration) <-chan time.Time { return nil }, os.Stderr, func(code int) {
				t.Errorf("exited %d", code)
			})
		}()
		if signalled {
			s.sigs <- os.Interrupt
		}
		s.Close()
		<-ended
	}
}

func TestCodesAndNames(t *testing.T) {
	if Code(os.Interrupt) != 130 || Code(syscall.SIGTERM) != 143 || Name(os.Interrupt) != "SIGINT" || Name(syscall.SIGTERM) != "SIGTERM" {
		t.Errorf("SIGINT: %d %s; SIGTERM: %d %s", Code(os.Interrupt), Name(os.Interrupt), Code(syscall.SIGTERM), Name(syscall.SIGTERM))
	}
}
