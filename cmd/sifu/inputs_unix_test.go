//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sifuProcess runs the built sifu with args under sh (for a memory limit:
// a regression that reads /dev/zero must not take the machine's memory),
// and returns its exit code and stderr. The deadline only ends a run that
// hangs, which is the failure; no assertion is timed.
func sifuProcess(t *testing.T, args ...string) (int, string) {
	t.Helper()
	bin := buildSifu(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", `ulimit -v 4194304; exec "$@"`, "sh", bin}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("sifu %v did not end: %s", args, stderr.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// copyStatement makes a whole Kungfu statement (the memory profile) in a
// new directory and takes its transcript away. (The committed references'
// statements are kept without their transcripts, so verify would not read
// one.)
func copyStatement(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if code, out := sifuExit(t, "run", "-q", "--suite", "kungfu", "--profile", "memory", "--declare", dir); code != exitOK {
		t.Fatalf("sifu run --declare: exit %d\n%s", code, out)
	}
	if err := os.Remove(filepath.Join(dir, "transcript.jsonl")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestVerifyRefusesATranscriptThatIsADevice: a statement whose transcript
// is a link to /dev/zero is exit 2 naming the file; verify read it until
// the memory ran out.
func TestVerifyRefusesATranscriptThatIsADevice(t *testing.T) {
	t.Parallel()
	dir := copyStatement(t)
	transcript := filepath.Join(dir, "transcript.jsonl")
	if err := os.Symlink("/dev/zero", transcript); err != nil {
		t.Fatal(err)
	}
	code, stderr := sifuProcess(t, "verify", filepath.Join(dir, "conformance.json"))
	if want := transcript + " is a character device, not a regular file"; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("verify with /dev/zero as the transcript: exit %d, want %d with %q\n%s", code, exitUsage, want, stderr)
	}
}

// TestAFIFOAmongTheVectorsIsRefusedWithoutBlocking: a named pipe no one
// writes to, among --vectors, is exit 2 naming it; opening it blocked sifu
// for good.
func TestAFIFOAmongTheVectorsIsRefusedWithoutBlocking(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "x.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := sifuProcess(t, "run", "--suite", "kungfu", "--vectors", dir, "--list")
	if want := "x.json is a named pipe (FIFO), not a regular file"; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("a FIFO among the vectors: exit %d, want %d with %q\n%s", code, exitUsage, want, stderr)
	}
}
