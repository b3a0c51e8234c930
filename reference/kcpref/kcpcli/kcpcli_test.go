package kcpcli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errw strings.Builder
	c := CLI{Name: "planner", Stdout: &out, Stderr: &errw, Now: func() time.Time {
		return time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	}}
	return c.Main(args), out.String(), errw.String()
}

func TestExitCodesAndMessages(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "knowledge.yaml")
	os.WriteFile(good, []byte("project: p\nversion: \"1\"\nunits:\n  - id: award-rules\n    path: a.md\n    intent: compute the award\n"), 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("units: [\n"), 0o644)

	cases := []struct {
		args     []string
		code     int
		inStderr string
	}{
		{[]string{"frobnicate"}, 2, "Unknown command: frobnicate"},
		{[]string{"plan", "--task", "x", "--manifest", good, "--bogus"}, 2, "--bogus"},
		{[]string{"plan", "--task", "x", "--manifest", filepath.Join(dir, "missing.yaml")}, 1, "missing.yaml"},
		{[]string{"plan", "--task", "x", "--manifest", bad}, 1, "bad.yaml"},
		{[]string{"validate"}, 2, "Missing manifest location."},
		{[]string{"replay"}, 2, "Missing artifact path."},
		{[]string{"diff", good}, 2, "Usage: kcp-agent diff"},
		{[]string{"validate", "--manifest", good, "--nope"}, 2, "Unknown option: --nope"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.inStderr) {
			t.Errorf("%v: exit %d stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.inStderr)
		}
	}
}

// TestNoCommandPrintsUsageOnStdout: kcp-agent with no command prints its
// usage on standard output and exits 2.
func TestNoCommandPrintsUsageOnStdout(t *testing.T) {
	code, out, stderr := run(t)
	if code != 2 || !strings.HasPrefix(out, "Usage: planner plan") || stderr != "" {
		t.Errorf("exit %d stdout %q stderr %q; want exit 2 and the usage on stdout", code, out, stderr)
	}
}

// TestValidateFindsUnitPathsBesideTheManifest: validate --manifest DIR
// (no trailing slash) looks for unit paths beside DIR/knowledge.yaml, and
// reports that file as the source. It reported every path missing (they
// were looked for beside DIR) before the fix.
func TestValidateFindsUnitPathsBesideTheManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "a.md"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "knowledge.yaml"), []byte("project: p\nversion: \"1\"\nkcp_version: \"0.32\"\nunits:\n  - id: a\n    path: docs/a.md\n    intent: the a\n    triggers: [a]\n    audience: [agent]\n"), 0o644)
	for _, args := range [][]string{{"validate", "--manifest", dir, "--json"}, {"validate", dir, "--json"}, {"validate", filepath.Join(dir, "knowledge.yaml"), "--json"}} {
		code, out, stderr := run(t, args...)
		var v struct {
			Source   string `json:"source"`
			Findings []any  `json:"findings"`
			OK       bool   `json:"ok"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || code != 0 || !v.OK || len(v.Findings) != 0 || v.Source != filepath.Join(dir, "knowledge.yaml") {
			t.Errorf("%v: exit %d %+v (%v); stderr %q; want a clean report of %s", args, code, v, err, stderr, filepath.Join(dir, "knowledge.yaml"))
		}
	}
}

func TestPlanJSONUsesTheInjectedClockOnlyWithoutAsOf(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "knowledge.yaml")
	os.WriteFile(m, []byte("project: p\nversion: \"1\"\nunits:\n  - id: award-rules\n    path: a.md\n    intent: compute the award\n"), 0o644)
	for _, tc := range []struct {
		extra []string
		asOf  string
	}{{nil, "2026-03-04"}, {[]string{"--as-of", "2025-01-02"}, "2025-01-02"}} {
		code, out, stderr := run(t, append([]string{"plan", "--task", "compute award", "--manifest", m, "--json"}, tc.extra...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var p struct {
			SchemaVersion int    `json:"schemaVersion"`
			Kind          string `json:"kind"`
			AsOf          string `json:"asOf"`
			Selected      []struct {
				ID string `json:"id"`
			} `json:"selected"`
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("plan --json is not JSON: %v\n%s", err, out)
		}
		if p.SchemaVersion != 1 || p.Kind != "plan" || p.AsOf != tc.asOf || len(p.Selected) != 1 || p.Selected[0].ID != "award-rules" {
			t.Errorf("plan %+v; want schemaVersion 1, kind plan, asOf %s, award-rules selected", p, tc.asOf)
		}
	}
}
