//go:build unix

package agentkithttp

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestAGatewaysEndIsSaidInWords: a gateway that ended, with status 0 or by
// a signal, is said to have done so in words, never as Go's "<nil>" or
// "status -1".
func TestAGatewaysEndIsSaidInWords(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr := &running{cmd: cmd, out: &tail{}, done: make(chan struct{})}
	pr.err = cmd.Wait()
	close(pr.done)
	if d := pr.Diagnose(); !strings.HasPrefix(d, "the gateway process exited with status 0;") || strings.Contains(d, "<nil>") {
		t.Errorf("Diagnose: %q, want the gateway process exited with status 0", d)
	}
	_, err := Process{Command: "kill -SEGV $$"}.Launch(context.Background(), t.TempDir(), "127.0.0.1:1")
	var sf *StartFailure
	if !errors.As(err, &sf) {
		t.Fatalf("got %v, want a start failure", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "the gateway was killed by a signal (segmentation fault) during start-up") || strings.Contains(msg, "-1") {
		t.Errorf("StartFailure: %q", msg)
	}
}
