//go:build unix

package proc

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillEndsTheGroup: a shell and the child it started both end when the
// shell's group is killed.
func TestKillEndsTheGroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & echo $!; wait")
	Isolate(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	child, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		t.Fatalf("child pid %q: %v", buf[:n], err)
	}
	Kill(cmd)
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(child, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the child outlived its group")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEndedIsASentence: how a process ended is said in words, never as Go's
// "<nil>" or a bare error value.
func TestEndedIsASentence(t *testing.T) {
	for script, want := range map[string]string{
		"exit 0":        "exited with status 0",
		"exit 3":        "exited with status 3",
		"kill -SEGV $$": "was killed by a signal (segmentation fault)",
	} {
		got := Ended(exec.Command("sh", "-c", script).Run())
		if got != want {
			t.Errorf("sh -c %q: %q, want %q", script, got, want)
		}
	}
}
