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

	"github.com/sifu-dev/sifu/internal/engine"
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
}

// Hello names the command, after running it once without arguments: a
// command the shell cannot find (exit 127) or run (exit 126) is no planner,
// and is said so before any check. What else it does without arguments
// (print its usage, exit 1) is its own business.
func (p Planner) Hello(ctx context.Context) (kcp.Hello, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", p.Command)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		switch exit.ExitCode() {
		case 127:
			return kcp.Hello{}, fmt.Errorf("the shell found no such command: %s", tail(stderr.String()))
		case 126:
			return kcp.Hello{}, fmt.Errorf("the command cannot be run (not executable?): %s", tail(stderr.String()))
		}
	} else if err != nil && ctx.Err() == nil {
		return kcp.Hello{}, fmt.Errorf("run %q: %w", p.Command, err)
	}
	return kcp.Hello{Implementation: p.Command, Version: "command line"}, nil
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
	dir, manifest, rest, err := req.Materialize()
	if err != nil {
		return kcp.CLIResult{}, err
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
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return kcp.CLIResult{}, fmt.Errorf("the planner did not answer: %w (stderr: %s)", ctx.Err(), tail(stderr.String()))
	}
	res := kcp.CLIResult{Stdout: kcp.UnplaceManifest(stdout.String(), manifest), Stderr: kcp.UnplaceManifest(stderr.String(), manifest)}
	var exit *exec.ExitError
	switch {
	case errors.As(runErr, &exit) && exit.ExitCode() >= 0:
		res.Exit = exit.ExitCode()
	case runErr != nil:
		return kcp.CLIResult{}, &engine.AdapterError{Step: "plan", Err: fmt.Errorf("%v; stderr: %s", runErr, tail(stderr.String()))}
	}
	return res, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 500 {
		return "…" + s[len(s)-500:]
	}
	return s
}
