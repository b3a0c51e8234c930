package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUserFeaturesAreCompiledStrictly: features given with --features run
// in place of the bundled ones; a file with a Scenario Outline that would
// check nothing, or two scenarios with one check ID, is refused before
// anything runs (exit 2), naming the file and line and what to do.
func TestUserFeaturesAreCompiledStrictly(t *testing.T) {
	t.Parallel()
	const good = `Feature: mine
  @KF-4-01
  Scenario: An active agent creates a memory
    Given agents alice and bob
    When alice creates memory m with content "x"
    Then it succeeds
`
	for name, c := range map[string]struct {
		feature string // "" leaves the directory empty
		want    int
		says    []string
	}{
		"a good feature": {feature: good, want: exitOK},
		"an outline without Examples": {feature: good + `
  @KF-4-01
  Scenario Outline: An active agent creates a memory of <text>
    Given agents alice and bob
    When alice creates memory m with content "<text>"
    Then it succeeds
`, want: exitUsage, says: []string{`mine.feature:9: Scenario Outline "An active agent creates a memory of <text>" has no Examples`, "add an Examples table with at least one row, or make it a plain Scenario"}},
		"an outline with an empty Examples table": {feature: good + `
  @KF-4-01
  Scenario Outline: An active agent creates a memory of <text>
    Given agents alice and bob
    When alice creates memory m with content "<text>"
    Then it succeeds

    Examples:
      | text |
`, want: exitUsage, says: []string{`mine.feature:9: Scenario Outline "An active agent creates a memory of <text>" has an Examples table (line 14) with no row`}},
		"two scenarios with one title": {feature: good + `
  @KF-4-01
  Scenario: An active agent creates a memory!
    Given agents alice and bob
    When bob creates memory m with content "y"
    Then it succeeds
`, want: exitUsage, says: []string{"mine.feature:9: check id kungfu/mine/an-active-agent-creates-a-memory is also used by mine.feature:3"}},
		"a title with no ASCII letter": {feature: strings.Replace(good, "An active agent creates a memory", "记忆", 1),
			want: exitUsage, says: []string{`mine.feature:3: the title "记忆" has no ASCII letter or digit`, "@id:"}},
		"no feature file": {want: exitUsage, says: []string{"holds no *.feature file"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if c.feature != "" {
				if err := os.WriteFile(filepath.Join(dir, "mine.feature"), []byte(c.feature), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, msg := runCapture([]string{"run", "-q", "--suite", "kungfu", "--features", dir, "--check", "kungfu/mine/*"})
			if code != c.want {
				t.Fatalf("exit %d, want %d: %s", code, c.want, msg)
			}
			for _, s := range c.says {
				if !strings.Contains(msg, s) {
					t.Errorf("the error does not say %q:\n%s", s, msg)
				}
			}
		})
	}
	if code, msg := runCapture([]string{"run", "--suite", "kungfu", "--features", filepath.Join(t.TempDir(), "none")}); code != exitUsage || !strings.Contains(msg, "not a directory") {
		t.Errorf("a --features that is no directory: exit %d, %s", code, msg)
	}
	if code, msg := runCapture([]string{"run", "--suite", "kungfu", "--features", t.TempDir(), "--declare", t.TempDir()}); code != exitUsage || !strings.Contains(msg, "--declare") {
		t.Errorf("--features with --declare: exit %d, %s", code, msg)
	}
}
