package kcpcli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serveLines runs `mcp` over the given requests (stdin closed after
// them) and returns the answers by id.
func serveLines(t *testing.T, lines ...string) map[float64]map[string]any {
	t.Helper()
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + strings.Join(lines, "\n") + "\n"
	var out, errw strings.Builder
	if code := (CLI{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errw}).Main([]string{"mcp"}); code != 0 {
		t.Fatalf("mcp exited %d: %s", code, errw.String())
	}
	answers := map[float64]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		id, _ := m["id"].(float64)
		answers[id] = m
	}
	return answers
}

func call(id int, tool string, args map[string]any) string {
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	return string(raw)
}

// TestMCPAnswersEveryRequestBeforeItEnds: a client that writes all its
// calls and closes stdin gets every answer (the SDK alone dropped those
// still running when its input ended).
func TestMCPAnswersEveryRequestBeforeItEnds(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "knowledge.yaml")
	os.WriteFile(m, []byte("project: p\nversion: \"1\"\nunits:\n  - id: award\n    path: a.md\n    intent: compute the award\n"), 0o644)
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, call(i, "kcp_plan", map[string]any{"task": "award", "manifest": m, "as_of": "2026-07-01"}))
	}
	answers := serveLines(t, lines...)
	if len(answers) != 41 {
		t.Fatalf("%d answers to 41 requests", len(answers))
	}
}

// TestMCPRefusesBadArgumentsAndGuardsFetches: missing or mistyped
// arguments and private manifest URLs are refused with isError, saying
// which argument or address.
func TestMCPRefusesBadArgumentsAndGuardsFetches(t *testing.T) {
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"kcp_plan", map[string]any{"manifest": "m.yaml"}, `kcp_plan: missing required argument "task"`},
		{"kcp_plan", map[string]any{"task": 5, "manifest": "m.yaml"}, `kcp_plan: argument "task" must be a string`},
		{"kcp_load", map[string]any{"task": "t", "manifest": "m.yaml", "known": []any{map[string]any{"id": "a"}}}, `argument "known" must be an array of {id, sha256}`},
		{"kcp_plan", map[string]any{"task": "t", "manifest": "https://10.1.2.3/k.yaml"}, "refused private/loopback/link-local address 10.1.2.3 for '10.1.2.3'"},
		{"kcp_plan", map[string]any{"task": "t", "manifest": "https://localhost/k.yaml", "allow_private_hosts": true}, "https://localhost/k.yaml: fetch failed: fetch failed"}, // let through, and nothing listens there
		{"kcp_replay", map[string]any{"artifact": "[]"}, "unrecognized artifact"},
	}
	var lines []string
	for i, c := range cases {
		lines = append(lines, call(i+1, c.tool, c.args))
	}
	answers := serveLines(t, lines...)
	for i, c := range cases {
		res, _ := answers[float64(i+1)]["result"].(map[string]any)
		text := fmt.Sprint(res["content"])
		if res["isError"] != true || !strings.Contains(text, c.want) {
			t.Errorf("%s %v: %v, want isError and %q", c.tool, c.args, res, c.want)
		}
	}
}
