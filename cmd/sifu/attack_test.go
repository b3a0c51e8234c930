package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackCommands: each attack mode passes the reference, catches a
// planted fault with exit 1 and refuses a malformed request with exit 2.
func TestAttackCommands(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"selftest", "--suite", "kungfu", "--mutant", "starts-public,second-take"}, exitOK},
		{[]string{"selftest", "--suite", "kungfu", "--mutant", "no-such-fault"}, exitUsage},
		{[]string{"fuzz", "--seed", "3", "--runs", "40"}, exitOK},
		{[]string{"fuzz", "--seed", "9", "--runs", "100", "--shrink-time", "2s", "--mutant", "starts-public", "--out", out}, exitFail},
		{[]string{"fuzz", "--mutant", "no-such-fault"}, exitUsage},
		{[]string{"fuzz", "--runs", "0"}, exitUsage},
		// A planner that cannot be started is found by its hello, before
		// any case: no finding is written.
		{[]string{"fuzz", "--suite", "kcp", "--target", "exec", "--cmd", "/bin/false", "--out", filepath.Join(out, "kcp")}, exitUsage},
		{[]string{"race", "--rounds", "2", "--tags", "@KF-6.4-15"}, exitOK},
		{[]string{"race", "--rounds", "5", "--tags", "@KF-6.4-15", "--mutant", "second-take", "--out", out}, exitFail},
		{[]string{"race", "--tags", "@no-such-tag"}, exitUsage},
		{[]string{"race", "--target", "http", "--url", "http://127.0.0.1:1", "--rounds", "2", "--tags", "@KF-6.4-15"}, exitUsage},
	}
	for _, c := range cases {
		if got := run(c.args); got != c.want {
			t.Errorf("sifu %s: exit %d, want %d", strings.Join(c.args, " "), got, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "kcp")); err == nil {
		t.Error("fuzzing a planner that cannot start wrote a finding")
	}
	for _, pattern := range []string{"fuzz-kungfu-9.json", "race-*.html"} {
		if m, _ := filepath.Glob(filepath.Join(out, pattern)); len(m) == 0 {
			entries, _ := os.ReadDir(out)
			t.Errorf("nothing matching %s written to --out (%v)", pattern, entries)
		}
	}
}
