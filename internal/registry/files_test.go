package registry

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionNamesTheCommit: --version gives the commit Go recorded in the
// build, and says when there is none.
func TestVersionNamesTheCommit(t *testing.T) {
	info := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}}
	if got := versionFrom("1.2.3", info); got != "1.2.3 (commit 0123abcd, with uncommitted changes)" {
		t.Errorf("got %q", got)
	}
	if got := versionFrom("1.2.3", nil); !strings.Contains(got, "commit unknown") {
		t.Errorf("got %q", got)
	}
}
