package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/acpexec"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/acp"
)

// TestACPSuiteThroughExec runs the whole ACP suite through the exec adapter
// with the shipped target config, against a built sifu binary: every tool
// call is a process, parallel steps are parallel processes. About half a
// minute on two CPUs (every sifu start costs tens of milliseconds,
// docs/performance.md);
// -short runs the recorded run and the concurrency checks only.
func TestACPSuiteThroughExec(t *testing.T) {
	t.Parallel()
	bin := buildSifu(t)
	cfg, err := acpexec.LoadConfig(filepath.Join("..", "..", "docs", "acp-sifu.target.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.WithSelf(bin)
	plan, err := runner.Load(sifu.Assets, acp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	target := acp.RunTarget{Claims: cfg.Claims(), New: func(context.Context) (acp.Target, func(), error) {
		return acpexec.Tools{Config: cfg}, func() {}, nil
	}}
	rc := runner.Config{Target: target, TargetName: "exec", Timeout: 3 * time.Minute, Concurrency: 6}
	if testing.Short() {
		rc.Tags = "@golden,@ACP-EVT-08"
	}
	run, err := plan.Run(context.Background(), rc)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range run.Tests {
		if tc.Status != engine.Pass {
			t.Errorf("%s: %s: %s", tc.ID, tc.Status, tc.Message)
		}
	}
	t.Logf("%d checks through exec: %s", len(run.Tests), results.SummaryLine(run.Summary))
}

// TestACPCommandExitCodes: the validator's exit codes and the tools' usage
// errors, through the command line.
func TestACPCommandExitCodes(t *testing.T) {
	fixtures := filepath.Join("..", "..", "vectors", "acp", "fixtures")
	badConfig := filepath.Join(t.TempDir(), "typo.target.json")
	if err := os.WriteFile(badConfig, []byte(`{"commands": {"append": {"argv": ["x", "{nosuchplaceholder}"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"acp", "validate", "--folder", filepath.Join(fixtures, "fresh")}, 0, "ACP validation passed"},
		{[]string{"acp", "validate", "--folder", filepath.Join(fixtures, "deferred-no-reason")}, 1, "ACP validation passed with warnings"},
		{[]string{"acp", "validate", "--folder", filepath.Join(fixtures, "seq-gap")}, 2, "ERROR: events.jsonl: expected seq 2, found 3"},
		{[]string{"acp", "validate", "--folder", filepath.Join(fixtures, "seq-gap"), "--json"}, 2, `"line": 2`},
		{[]string{"acp", "validate", "--folder", filepath.Join(fixtures, "reply-to-self"), "--compat"}, 0, "ACP validation passed"},
		{[]string{"acp", "validate"}, 2, "the following arguments are required: --folder"},
		{[]string{"acp", "validate", "--folder", filepath.Join(fixtures, "fresh"), "--schema", "v2"}, 2, "ERROR: protocol.json schemaVersion must be 2"},
		{[]string{"acp", "validate", "--folder", filepath.Join(fixtures, "fresh"), "--schema", "v3"}, 2, "argument --schema: invalid choice: 'v3'"},
		{[]string{"acp", "append", "--folder", t.TempDir(), "--participant", "a", "--event", "x", "--summary", "s"}, 2, "missing protocol.json in"},
		{[]string{"acp", "wait", "--folder", t.TempDir(), "--participant", "a", "--timeout", "soon"}, 2, "neither seconds nor a duration"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		cmd := newRoot()
		cmd.SetArgs(c.args)
		cmd.SetOut(&stdout)
		cmd.SetErr(&stderr)
		code := exitCode(cmd.ExecuteContext(context.Background()))
		if code != c.code || !strings.Contains(stdout.String()+stderr.String(), c.want) {
			t.Errorf("sifu %s: exit %d, want %d with %q\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), code, c.code, c.want, stdout.String(), stderr.String())
		}
	}
	// A placeholder the tool does not have is refused at load: exit 2,
	// naming the file and the field.
	cmd := newRoot()
	cmd.SetArgs([]string{"run", "--suite", "acp", "--target", "exec", "--target-config", badConfig})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.ExecuteContext(context.Background())
	if want := badConfig + ": /commands/append/argv/1: unknown placeholder {nosuchplaceholder}"; exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a config with an unknown placeholder: exit %d, %v; want exit 2 with %q", exitCode(err), err, want)
	}
	t.Setenv(acpNowEnv, "yesterday")
	if _, err := acpTools(); err == nil || !strings.Contains(err.Error(), acpNowEnv) {
		t.Errorf("a bad %s must be refused, got %v", acpNowEnv, err)
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if e, ok := err.(*exitError); ok {
		return e.code
	}
	return 2
}

// TestACPSuiteAgainstUpstream is the differential check the notes suggest:
// when ACP_REFERENCE_DIR points at a local copy of the upstream v1 scripts
// (never part of this repository), the suite runs against them through the
// exec adapter, claiming what the upstream offers (tools, validator,
// compat). Skipped otherwise.
func TestACPSuiteAgainstUpstream(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("ACP_REFERENCE_DIR")
	if dir == "" {
		t.Skip("set ACP_REFERENCE_DIR to a local copy of the upstream v1 scripts directory")
	}
	py := func(script string, args ...string) []string {
		return append([]string{"python3", filepath.Join(dir, script)}, args...)
	}
	cfgJSON, _ := json.Marshal(map[string]any{
		"implementation": "upstream ACP v1 scripts", "profiles": []string{"tools", "validator", "compat"},
		"commands": map[string]any{
			"init": map[string]any{"argv": py("init_collaboration.py", "--folder", "{folder}", "--objective", "{objective}"),
				"each":     map[string]any{"participants": []string{"--participant", "{item}"}, "completion": []string{"--completion", "{item}"}},
				"optional": map[string]any{"resume": []string{"--resume"}}},
			"append": map[string]any{"argv": py("append_event.py", "--folder", "{folder}", "--participant", "{participant}", "--event", "{event}", "--summary", "{summary}"),
				"optional": map[string]any{"doc": []string{"--doc", "{doc}"}, "reply_to": []string{"--reply-to", "{reply_to}"}}},
			"next":     map[string]any{"argv": py("next_action.py", "--folder", "{folder}", "--participant", "{participant}")},
			"wait":     map[string]any{"argv": py("wait_for_turn.py", "--folder", "{folder}", "--participant", "{participant}", "--timeout", "{timeout}", "--interval", "0.1")},
			"validate": map[string]any{"argv": py("validate_collaboration.py", "--folder", "{folder}")},
		},
	})
	file := filepath.Join(t.TempDir(), "upstream.target.json")
	if err := os.WriteFile(file, cfgJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := acpexec.LoadConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := runner.Load(sifu.Assets, acp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	target := acp.RunTarget{Claims: cfg.Claims(), New: func(context.Context) (acp.Target, func(), error) {
		return acpexec.Tools{Config: cfg}, func() {}, nil
	}}
	run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "upstream", Concurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range run.Tests {
		if tc.Status != engine.Pass && tc.Status != engine.NotApplicable {
			t.Logf("%s: %s: %s", tc.ID, tc.Status, tc.Message)
		}
	}
	t.Logf("upstream: %s (differences are listed above; see docs/acp.md for the expected ones)", results.SummaryLine(run.Summary))
}
