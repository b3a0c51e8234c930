//go:build unix

package kcpexec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestTheHelloOfACommandLineIsOneRealPlan: a command line is asked for one
// minimal plan before any check. The Go planner's command line answers it;
// a command that prints nothing, prints garbage, exits, is killed or never
// answers is said to be no planner, in a sentence naming the command and
// what it did.
func TestTheHelloOfACommandLineIsOneRealPlan(t *testing.T) {
	good := Planner{Command: fmt.Sprintf("SIFU_KCP_CLI_HELPER=1 %q", os.Args[0])}
	if h, err := good.Hello(context.Background()); err != nil || h.Version != "command line" {
		t.Fatalf("the Go planner's command line: %v %v", h, err)
	}
	for cmd, want := range map[string]string{
		"true":                             `"true" (run as ` + "`true plan --task probe --manifest <manifest> --json`" + `) exited with status 0 and printed nothing, which is not the plan JSON a planner prints`,
		"echo garbage":                     `exited with status 0 and printed "garbage plan --task probe`,
		`echo '{"kind":"tree"}'; true`:     `printed "{\"kind\":\"tree\"}", which is not the plan JSON`,
		`echo oops >&2; exit 3; true`:      `exited with status 3 on a one-unit plan and wrote "oops" on standard error`,
		`kill -SEGV $$; true`:              `was killed by a signal (segmentation fault) on a one-unit plan`,
		"no-such-planner-anywhere":         "the shell found no such command",
		`echo "refused" >&2; exit 1; true`: `exited with status 1 on a one-unit plan and wrote "refused"`,
	} {
		_, err := Planner{Command: cmd}.Hello(context.Background())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", cmd, err, want)
		}
	}
	// A command that never answers ends at the hello's deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := Planner{Command: "sleep 1000; true"}.Hello(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `"sleep 1000; true"`) || !strings.Contains(err.Error(), "gave no answer to a one-unit plan in time") {
		t.Errorf("a silent command: %v", err)
	}
}

// TestDetectSaysWhyACommandIsNoRunner: what Detect found is kept for the
// probe's message, and it leaves the probe half the time.
func TestDetectSaysWhyACommandIsNoRunner(t *testing.T) {
	if _, err := Detect(context.Background(), "true"); err == nil || !strings.Contains(err.Error(), `the planner runner "true" did not answer sifu's hello: the runner exited with status 0`) {
		t.Errorf("true: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	_, err := Detect(ctx, "sleep 1000")
	// "it was given" is said only when Detect's own limit ended it, not
	// the hello's.
	if err == nil || !strings.Contains(err.Error(), `the planner runner "sleep 1000" gave no answer to sifu's hello in time (it was given `) {
		t.Errorf("sleep: %v", err)
	}
}
