package sifu_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// writes are the flags and redirections by which a sifu command writes a
// file or a directory.
var writes = regexp.MustCompile(`(?:--out|--declare|--db|--file)[ =](\S+)|>\s*(\S+)`)

// quoted is a quoted argument: a command line handed to the target
// (--cmd "…", --start-cmd "…"), which runs in a directory of its own.
var quoted = regexp.MustCompile(`"[^"]*"|'[^']*'`)

// TestTheDocumentedCommandsLeaveTheCheckoutClean: every sifu command shown
// in README.md and docs/*.md writes under out/ (which .gitignore ignores),
// outside the checkout (an absolute path, ~/, a temporary directory), into
// conformance/ (the committed evidence, or a CI's own statement) or to a
// path the reader chooses (DIR, <dir>, $VAR): run in a checkout, none
// leaves a private key, a database or a site for git status to show.
func TestTheDocumentedCommandsLeaveTheCheckoutClean(t *testing.T) {
	docs, _ := filepath.Glob("docs/*.md")
	for _, doc := range append([]string{"README.md"}, docs...) {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		inCode := false
		for i, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inCode = !inCode
				continue
			}
			if !inCode {
				continue
			}
			cmd := strings.TrimPrefix(strings.TrimSpace(line), "$ ")
			if c, _, ok := strings.Cut(cmd, " #"); ok {
				cmd = c
			}
			if !strings.Contains(cmd, "sifu ") || strings.Contains(cmd, "go build") && !strings.Contains(cmd, "&&") {
				continue
			}
			bare := quoted.ReplaceAllString(cmd, `"…"`)
			if strings.Contains(bare, "sifu serve kungfu") && !strings.Contains(bare, "--db") && !strings.Contains(bare, "--stdio") {
				t.Errorf("%s:%d: `sifu serve kungfu` without --db writes kungfu.db into the working directory; give --db out/kungfu.db", doc, i+1)
			}
			if strings.Contains(bare, "sifu expect update") && !strings.Contains(bare, "--file") {
				t.Errorf("%s:%d: `sifu expect update` without --file writes sifu.expect.yaml into the working directory; give --file out/sifu.expect.yaml", doc, i+1)
			}
			for _, m := range writes.FindAllStringSubmatch(bare, -1) {
				path := m[1] + m[2]
				if !clean(path) {
					t.Errorf("%s:%d: %q writes %s into the checkout; write under out/ instead", doc, i+1, strings.TrimSpace(line), path)
				}
			}
		}
	}
}

func clean(path string) bool {
	for _, ok := range []string{"out/", "/", "~/", "$", `"$`, `"…"`, "conformance", "<", ":memory:"} {
		if strings.HasPrefix(path, ok) {
			return true
		}
	}
	return path == "out" || path == strings.ToUpper(path) // out, or a placeholder such as DIR
}
