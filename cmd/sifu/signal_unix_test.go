//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestASignalEndsARunWithItsCode: SIGTERM and SIGINT to a run waiting on
// a target that never answers end it with 143 and 130, saying so. The
// target tells the test it has started through a named pipe.
func TestASignalEndsARunWithItsCode(t *testing.T) {
	t.Parallel()
	bin := buildSifu(t)
	for sig, want := range map[syscall.Signal]int{syscall.SIGTERM: exitTerminated, syscall.SIGINT: exitInterrupted} {
		started := filepath.Join(t.TempDir(), "started")
		if err := syscall.Mkfifo(started, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "run", "-q", "--suite", "kungfu", "--target", "stdio", "--cmd", "echo up > '"+started+"'; exec sleep 600")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		up := make(chan struct{})
		go func() {
			if raw, err := os.ReadFile(started); err == nil && len(raw) > 0 {
				close(up)
			}
		}()
		select {
		case <-up:
		case err := <-exited:
			t.Fatalf("sifu ended before its target started: %v\n%s", err, stderr.String())
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatal("the target did not start")
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-exited:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatalf("sifu did not end on %v:\n%s", sig, stderr.String())
		}
		if code := cmd.ProcessState.ExitCode(); code != want || !strings.Contains(stderr.String(), "stopped by "+signalName(sig)) {
			t.Errorf("sifu run ended by %v: exit %d, want %d saying it was stopped\n%s", sig, code, want, stderr.String())
		}
	}
}
