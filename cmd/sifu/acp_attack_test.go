package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestACPAttackCommands: the ACP fuzz passes the reference, finds a planted
// fault with exit 1 and writes a vector that replays (passing on the
// reference, failing on the mutant); the ACP races pass the reference.
func TestACPAttackCommands(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"fuzz", "--suite", "acp", "--seed", "3", "--runs", "20"}, exitOK},
		{[]string{"fuzz", "--suite", "acp", "--seed", "7", "--runs", "100", "--shrink-time", "1s", "--mutant", "non-participant-appends", "--out", out}, exitFail},
		{[]string{"run", "--suite", "acp", "--vectors", out, "-q"}, exitOK},
		{[]string{"run", "--suite", "acp", "--vectors", out, "--mutant", "non-participant-appends", "-q"}, exitFail},
		{[]string{"race", "--suite", "acp", "--rounds", "2"}, exitOK},
		{[]string{"race", "--suite", "acp", "--tags", "@no-such-tag"}, exitUsage},
	}
	for _, c := range cases {
		if got := run(c.args); got != c.want {
			t.Errorf("sifu %s: exit %d, want %d", strings.Join(c.args, " "), got, c.want)
		}
		if c.args[0] == "fuzz" && c.want == exitFail {
			if _, err := os.Stat(filepath.Join(out, "fuzz-acp-7.json")); err != nil {
				t.Fatalf("the finding was not written: %v", err)
			}
		}
	}
}
