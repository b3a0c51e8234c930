// Package exec drives command-line implementations: one process per
// request, its options mapped to flags, its output parsed and projected
// client-side. Today: planners that speak kcp-agent's `plan` command line.
package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sifu-dev/sifu/engine"
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

// Hello names the command.
func (p Planner) Hello(context.Context) (kcp.Hello, error) {
	return kcp.Hello{Implementation: p.Command, Version: "command line"}, nil
}

// Assess is not reachable through kcp-agent's command line.
func (p Planner) Assess(context.Context, kcp.AssessRequest) (map[string]any, error) {
	return nil, fmt.Errorf("the confidence gate has no command-line form: %w", engine.ErrUnsupported)
}

// Flags maps vector options to kcp-agent plan flags, or says which option
// has no flag.
func Flags(task string, opts map[string]any) ([]string, error) {
	if task == "" {
		return nil, errors.New("an empty task has no command-line form")
	}
	args := []string{"--task", task}
	for k, v := range opts {
		switch k {
		case "env":
			args = append(args, "--env", fmt.Sprint(v))
		case "asOf":
			args = append(args, "--as-of", fmt.Sprint(v))
		case "maxUnits":
			args = append(args, "--max-units", number(v))
		case "strict":
			if v == true {
				args = append(args, "--strict")
			}
		case "contextBudget":
			args = append(args, "--context-budget", number(v))
		case "budget":
			b, _ := v.(map[string]any)
			for bk, bv := range b {
				switch bk {
				case "amount":
					args = append(args, "--budget", number(bv))
				case "currency":
					args = append(args, "--currency", fmt.Sprint(bv))
				default:
					return nil, fmt.Errorf("budget.%s has no flag", bk)
				}
			}
		case "capabilities":
			c, _ := v.(map[string]any)
			for ck, cv := range c {
				flag := map[string]string{"role": "--role", "attestationProvider": "--attest",
					"paymentMethods": "--methods", "credentials": "--credentials"}[ck]
				switch ck {
				case "role", "attestationProvider":
					s := fmt.Sprint(cv)
					if s == "" {
						return nil, fmt.Errorf("an empty capabilities.%s has no flag", ck)
					}
					args = append(args, flag, s)
				case "paymentMethods", "credentials":
					list, _ := cv.([]any)
					var items []string
					for _, it := range list {
						s := fmt.Sprint(it)
						if strings.Contains(s, ",") || strings.TrimSpace(s) != s || s == "" {
							return nil, fmt.Errorf("capabilities.%s item %q cannot be written in a comma list", ck, s)
						}
						items = append(items, s)
					}
					args = append(args, flag, strings.Join(items, ","))
				default:
					return nil, fmt.Errorf("capabilities.%s has no flag", ck)
				}
			}
		default:
			return nil, fmt.Errorf("option %s has no flag", k)
		}
	}
	return args, nil
}

func number(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// Plan writes the manifest to a file, runs the planner and projects its
// plan JSON to the VectorOutcome.
func (p Planner) Plan(ctx context.Context, req kcp.PlanRequest) (map[string]any, error) {
	flags, err := Flags(req.Task, req.Options)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, engine.ErrUnsupported)
	}
	dir, err := os.MkdirTemp("", "sifu-kcp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	manifest := filepath.Join(dir, req.Name+".yaml")
	if err := os.WriteFile(manifest, []byte(req.Manifest), 0o644); err != nil {
		return nil, err
	}
	args := append([]string{"-c", p.Command + ` "$@"`, "sh", "plan"}, flags...)
	args = append(args, "--manifest", manifest, "--json")
	cmd := osexec.CommandContext(ctx, "sh", args...)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	// Its own process group, so that a deadline kills whatever the shell
	// started and no orphan keeps the output pipes open.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("the planner did not answer: %w (stderr: %s)", ctx.Err(), tail(stderr.String()))
	}
	var exit *osexec.ExitError
	if errors.As(runErr, &exit) && exit.ExitCode() == refusalExit {
		return nil, &kcp.Refusal{Message: fmt.Sprintf("exit %d: %s", exit.ExitCode(), tail(stderr.String()))}
	}
	if errors.As(runErr, &exit) && exit.ExitCode() > 0 {
		// kcp-agent's 2 means it did not accept the command line sifu built;
		// anything else (a Go panic exits 2 too) is a crash, not an answer.
		return nil, &engine.AdapterError{Step: "plan", Err: fmt.Errorf("the planner exited %d, which is no answer (1 is a refusal): %s", exit.ExitCode(), tail(stderr.String()))}
	}
	if runErr != nil {
		return nil, &engine.AdapterError{Step: "plan", Err: fmt.Errorf("%v; stderr: %s", runErr, tail(stderr.String()))}
	}
	var plan map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &plan); err != nil {
		return nil, &engine.AdapterError{Step: "plan", Err: fmt.Errorf("the planner's output is not a plan JSON object: %v (%q)", err, tail(stdout.String()))}
	}
	if plan["kind"] != "plan" || plan["schemaVersion"] != 1.0 {
		return nil, &engine.AdapterError{Step: "plan", Err: fmt.Errorf("the output is not a plan (kind %v, schemaVersion %v)", plan["kind"], plan["schemaVersion"])}
	}
	return kcp.Project(plan), nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 500 {
		return "…" + s[len(s)-500:]
	}
	return s
}
