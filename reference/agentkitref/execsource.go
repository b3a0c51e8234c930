package agentkitref

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// execSource is the config of a source of type exec: tools that run a
// script with a runtime on the host.
type execSource struct {
	Timeout string     `json:"timeout"`
	Workdir string     `json:"workdir"`
	Tools   []execDecl `json:"tools"`
}

type execDecl struct {
	Name        string   `json:"name"`
	Runtime     string   `json:"runtime"`
	Description string   `json:"description"`
	Command     []string `json:"command"`
	Sandbox     string   `json:"sandbox"`
	Timeout     string   `json:"timeout"`
	Risk        string   `json:"risk"`
}

// execTool runs one script: argv is the command, the script, a $0
// placeholder for the shells, then the args split on white space.
type execTool struct {
	runtime string
	command []string
	timeout time.Duration
	workdir string
}

// runtimes are the interpreters a tool without a command runs.
var runtimes = map[string][]string{"bash": {"bash", "-c"}, "sh": {"sh", "-c"}, "python": {"python3", "-c"}, "node": {"node", "-e"}}

// execCapabilities reads an exec source. A tool is dangerous unless it
// declares a risk.
func (s Source) execCapabilities(skip func(string) bool) ([]*capability, error) {
	raw, err := json.Marshal(s.Config)
	if err != nil {
		return nil, err
	}
	var cfg execSource
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("decode config: %w", err)
	}
	timeout, err := parseTimeout(cfg.Timeout)
	if err != nil {
		return nil, fmt.Errorf("timeout: %w", err)
	}
	var out []*capability
	for _, t := range cfg.Tools {
		if t.Name == "" || t.Runtime == "" {
			return nil, fmt.Errorf("an exec tool needs a name and a runtime")
		}
		if t.Sandbox != "" {
			return nil, fmt.Errorf("tool %s: sandbox %q is not available in this gateway", t.Name, t.Sandbox)
		}
		command := t.Command
		if len(command) == 0 {
			if command = runtimes[t.Runtime]; command == nil {
				return nil, fmt.Errorf("tool %s: unknown runtime %q and no command (bash|sh|python|node)", t.Name, t.Runtime)
			}
		}
		riskName := t.Risk
		if riskName == "" && !skip("exec-readonly") {
			riskName = "dangerous"
		}
		risk, err := parseRisk(riskName)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tt := timeout
		if t.Timeout != "" {
			if tt, err = parseTimeout(t.Timeout); err != nil {
				return nil, fmt.Errorf("tool %s: timeout: %w", t.Name, err)
			}
		}
		desc := t.Description
		if desc == "" {
			desc = "Run a script with " + t.Runtime + " and return its output (script: the script, args: its arguments separated by spaces)."
		}
		out = append(out, &capability{ref: Ref{Kind: "tool", Domain: s.Name, Name: t.Name}, description: desc, risk: risk,
			exec: &execTool{runtime: t.Runtime, command: command, timeout: tt, workdir: cfg.Workdir}})
	}
	return out, nil
}

func parseTimeout(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	return time.ParseDuration(s)
}

// run executes the script of a call; a failure to run or a non-zero exit is
// a result the model sees, with the output.
func (e *execTool) run(ctx context.Context, args string, faults []Fault) string {
	var in struct {
		Script string `json:"script"`
		Args   string `json:"args"`
	}
	if strings.TrimSpace(args) != "" {
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			return "工具调用失败:parse args: " + err.Error()
		}
	}
	if strings.TrimSpace(in.Script) == "" {
		return "script is required"
	}
	if e.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
		defer cancel()
	}
	argv := append(append([]string{}, e.command...), in.Script)
	if e.runtime == "bash" || e.runtime == "sh" {
		argv = append(argv, "_")
	}
	if !has(faults, FaultExecArgsDropped) {
		argv = append(argv, strings.Fields(in.Args)...)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = e.workdir
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if has(faults, FaultExecExitHidden) {
			return out.String()
		}
		return fmt.Sprintf("exit error: %v\n%s", err, out.String())
	}
	return out.String()
}
