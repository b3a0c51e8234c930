// Package kcpexec drives KCP planners that are commands: a kcp-agent style
// command line, one process per request, its options mapped to flags and
// its output parsed (and projected by the suite); or a planner that speaks
// the planner runner protocol (docs/kcp-runner.md), one long-lived process
// for all requests.
package kcpexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/adapters/kcploopback"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/ndjson"
	"github.com/sifu-dev/sifu/internal/proc"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// refusalExit is kcp-agent's exit code for a manifest it could not read or
// parse: the one non-zero exit that is an answer.
const refusalExit = 1

// Planner is a kcp.Target that runs `<command> plan … --json` once per
// request. Options the kcp-agent command line cannot express make the check
// untestable; there is no command for the confidence gate.
type Planner struct {
	// Command is run through sh -c with the plan arguments appended.
	Command string
	// NotRunner, when set, is why the command was not taken for a planner
	// runner (Detect); a failed probe says it too.
	NotRunner error
}

// ProbeName, ProbeManifest and ProbeTask are the plan a command line is
// asked for once, before any check (Hello): a manifest of one unit whose
// intent matches the task, which any kcp-agent style planner plans.
const (
	ProbeName     = "sifu-probe"
	ProbeManifest = "project: \"sifu-probe\"\nversion: \"1.0.0\"\nkcp_version: \"0.32\"\nunits:\n  - id: \"probe\"\n    path: \"probe.md\"\n    intent: \"Probe the planner\"\n"
	ProbeTask     = "probe"
)

// Hello plans the probe (ProbeManifest, ProbeTask) once, before any check,
// and names the command when it printed the plan JSON a planner prints. A
// command that is no such planner is said so before any check, in one
// sentence naming the command line and what it did: the shell found no such
// command (exit 127) or could not run it (126), it exited with another
// status, was killed, printed something that is no plan, or gave no answer
// before the hello's deadline.
func (p Planner) Hello(ctx context.Context) (kcp.Hello, error) {
	if err := p.probe(ctx); err != nil {
		if p.NotRunner != nil {
			err = fmt.Errorf("%w; nor is it a planner runner (docs/kcp-runner.md): %v", err, p.NotRunner)
		}
		return kcp.Hello{}, err
	}
	return kcp.Hello{Implementation: p.Command, Version: "command line"}, nil
}

func (p Planner) probe(ctx context.Context) error {
	args := []string{"plan", "--task", ProbeTask, "--manifest", kcp.ManifestPlaceholder, "--json"}
	line := fmt.Sprintf("%q (run as `%s %s`)", p.Command, p.Command, strings.Join(args, " "))
	res, ended, err := p.run(ctx, kcp.CLIRequest{Name: ProbeName, Manifest: ProbeManifest, Args: args})
	switch {
	case err != nil:
		return fmt.Errorf("the planner command %s could not be run: %w", line, err)
	case ctx.Err() != nil:
		return &ndjson.Late{Msg: fmt.Sprintf("the planner command %s gave no answer to a one-unit plan in time%s", line, said(res)), Cause: ctx.Err()}
	}
	var exit *exec.ExitError
	if errors.As(ended, &exit) {
		switch exit.ExitCode() {
		case 127:
			return fmt.Errorf("the shell found no such command: %s%s", line, said(res))
		case 126:
			return fmt.Errorf("the shell cannot run the command (is it executable?): %s%s", line, said(res))
		}
	}
	if ended != nil {
		return fmt.Errorf("the planner command %s %s on a one-unit plan%s, where a planner prints its plan as JSON and exits 0", line, proc.Ended(ended), said(res))
	}
	var plan map[string]any
	if json.Unmarshal([]byte(res.Stdout), &plan) != nil || plan["kind"] != "plan" || plan["schemaVersion"] != 1.0 {
		return fmt.Errorf("the planner command %s exited with status 0%s, which is not the plan JSON a planner prints (an object with kind \"plan\" and schemaVersion 1)", line, said(res))
	}
	return nil
}

// said is what a command printed, for a message: the first lines of its
// standard output and of its standard error, or that it printed nothing.
func said(res kcp.CLIResult) string {
	out, errs := firstLines(res.Stdout), firstLines(res.Stderr)
	switch {
	case out == "" && errs == "":
		return " and printed nothing"
	case errs == "":
		return fmt.Sprintf(" and printed %q", out)
	case out == "":
		return fmt.Sprintf(" and wrote %q on standard error", errs)
	}
	return fmt.Sprintf(" and printed %q (standard error: %q)", out, errs)
}

// firstLines is the first three non-blank lines of s, joined by " | ", at
// most 300 bytes.
func firstLines(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
		if len(lines) == 3 {
			break
		}
	}
	out := strings.Join(lines, " | ")
	if len(out) > 300 {
		out = strings.ToValidUTF8(out[:300], "") + "…"
	}
	return out
}

// PerProcess is true: every plan is a process.
func (Planner) PerProcess() bool { return true }

// Assess is not reachable through kcp-agent's command line.
func (p Planner) Assess(context.Context, kcp.AssessRequest) (map[string]any, error) {
	return nil, fmt.Errorf("the confidence gate has no command-line form: %w", engine.ErrUnsupported)
}

// Flags maps vector options to kcp-agent plan flags, in a fixed order, or
// says which option has no flag.
func Flags(task string, opts map[string]any) ([]string, error) {
	if task == "" {
		return nil, errors.New("an empty task has no command-line form")
	}
	for k := range opts {
		switch k {
		case "env", "asOf", "maxUnits", "strict", "contextBudget", "budget", "capabilities":
		default:
			return nil, fmt.Errorf("option %s has no flag", k)
		}
	}
	args := []string{"--task", task}
	if v, ok := opts["env"]; ok {
		args = append(args, "--env", fmt.Sprint(v))
	}
	if v, ok := opts["asOf"]; ok {
		args = append(args, "--as-of", fmt.Sprint(v))
	}
	if v, ok := opts["maxUnits"]; ok {
		args = append(args, "--max-units", number(v))
	}
	if opts["strict"] == true {
		args = append(args, "--strict")
	}
	if c, ok := opts["capabilities"].(map[string]any); ok {
		for ck := range c {
			switch ck {
			case "role", "attestationProvider", "paymentMethods", "credentials":
			default:
				return nil, fmt.Errorf("capabilities.%s has no flag", ck)
			}
		}
		for _, f := range []struct{ key, flag string }{{"role", "--role"}, {"paymentMethods", "--methods"}, {"credentials", "--credentials"}, {"attestationProvider", "--attest"}} {
			cv, ok := c[f.key]
			if !ok {
				continue
			}
			switch f.key {
			case "role", "attestationProvider":
				s := fmt.Sprint(cv)
				if s == "" {
					return nil, fmt.Errorf("an empty capabilities.%s has no flag", f.key)
				}
				args = append(args, f.flag, s)
			default:
				list, _ := cv.([]any)
				var items []string
				for _, it := range list {
					s := fmt.Sprint(it)
					if strings.Contains(s, ",") || strings.TrimSpace(s) != s || s == "" {
						return nil, fmt.Errorf("capabilities.%s item %q cannot be written in a comma list", f.key, s)
					}
					items = append(items, s)
				}
				args = append(args, f.flag, strings.Join(items, ","))
			}
		}
	}
	if b, ok := opts["budget"].(map[string]any); ok {
		for bk := range b {
			if bk != "amount" && bk != "currency" {
				return nil, fmt.Errorf("budget.%s has no flag", bk)
			}
		}
		if v, ok := b["amount"]; ok {
			args = append(args, "--budget", number(v))
		}
		if v, ok := b["currency"]; ok {
			args = append(args, "--currency", fmt.Sprint(v))
		}
	}
	if v, ok := opts["contextBudget"]; ok {
		args = append(args, "--context-budget", number(v))
	}
	return args, nil
}

func number(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// Plan writes the manifest to a file, runs the planner and returns the
// plan JSON it prints.
func (p Planner) Plan(ctx context.Context, req kcp.PlanRequest) (map[string]any, error) {
	flags, err := Flags(req.Task, req.Options)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, engine.ErrUnsupported)
	}
	args := append(append([]string{"plan"}, flags...), "--manifest", kcp.ManifestPlaceholder, "--json")
	res, err := p.RunCLI(ctx, kcp.CLIRequest{Name: req.Name, Manifest: req.Manifest, Args: args})
	if err != nil {
		return nil, err
	}
	if res.Exit == refusalExit {
		return nil, &kcp.Refusal{Message: fmt.Sprintf("exit %d: %s", res.Exit, tail(res.Stderr))}
	}
	if res.Exit != 0 {
		// kcp-agent's 2 means it did not accept the command line sifu built;
		// anything else (a Go panic exits 2 too) is a crash, not an answer.
		return nil, &engine.AdapterError{Step: "plan", Err: fmt.Errorf("the planner exited %d, which is no answer (1 is a refusal): %s", res.Exit, tail(res.Stderr))}
	}
	var plan map[string]any
	if err := json.Unmarshal([]byte(res.Stdout), &plan); err != nil {
		return nil, &engine.AdapterError{Step: "plan", Err: fmt.Errorf("the planner's output is not a plan JSON object: %v (%q)", err, tail(res.Stdout))}
	}
	if plan["kind"] != "plan" || plan["schemaVersion"] != 1.0 {
		return nil, &engine.AdapterError{Step: "plan", Err: fmt.Errorf("the output is not a plan (kind %v, schemaVersion %v)", plan["kind"], plan["schemaVersion"])}
	}
	return plan, nil
}

// RunCLI writes the manifest to <tmp>/<name>.yaml, runs the command with
// the arguments (that path in place of "<manifest>") and TZ=UTC, and
// returns its exit code and output with the path written back.
func (p Planner) RunCLI(ctx context.Context, req kcp.CLIRequest) (kcp.CLIResult, error) {
	res, ended, err := p.run(ctx, req)
	if err != nil {
		return kcp.CLIResult{}, err
	}
	if ctx.Err() != nil {
		return kcp.CLIResult{}, fmt.Errorf("the planner did not answer: %w (stderr: %s)", ctx.Err(), tail(res.Stderr))
	}
	var exit *exec.ExitError
	switch {
	case errors.As(ended, &exit) && exit.ExitCode() >= 0:
		res.Exit = exit.ExitCode()
	case ended != nil:
		return kcp.CLIResult{}, &engine.AdapterError{Step: "plan", Err: fmt.Errorf("the planner %s; stderr: %s", proc.Ended(ended), tail(res.Stderr))}
	}
	return res, nil
}

// run runs the command line of req and returns what it printed, with the
// manifest's path written back, and what cmd.Run said of its end (ended);
// err is a command that could not be prepared.
func (p Planner) run(ctx context.Context, req kcp.CLIRequest) (res kcp.CLIResult, ended, err error) {
	base, stop, err := kcploopback.Start(req.Server)
	if err != nil {
		return kcp.CLIResult{}, nil, err
	}
	defer stop()
	dir, manifest, rest, err := req.WithServer(base).Materialize()
	if err != nil {
		return kcp.CLIResult{}, nil, err
	}
	defer os.RemoveAll(dir)
	args := append([]string{"-c", p.Command + ` "$@"`, "sh"}, rest...)
	cmd := exec.CommandContext(ctx, "sh", args...)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	// Its own process group, so that a deadline kills whatever the shell
	// started and no orphan keeps the output pipes open.
	proc.Isolate(cmd)
	cmd.Cancel = func() error { proc.Kill(cmd); return nil }
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ended = cmd.Run()
	requests := stop()
	res = kcp.CLIResult{Requests: requests, Stdout: kcp.UnplaceServer(kcp.Unplace(stdout.String(), dir, manifest), base),
		Stderr: kcp.UnplaceServer(kcp.Unplace(stderr.String(), dir, manifest), base)}
	return res, ended, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 500 {
		return "…" + s[len(s)-500:]
	}
	return s
}
