package agentkithttp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/internal/proc"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// Process launches a gateway command (run through sh -c) in the directory
// that holds its generated configuration.
type Process struct {
	Command string
	// StartTimeout bounds the wait for GET /healthz (default 20s).
	StartTimeout time.Duration
}

// Hello names the command.
func (p Process) Hello() agentkit.Hello {
	return agentkit.Hello{Implementation: p.Command, Version: "started by sifu (--start-cmd)"}
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4096

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = t.buf[len(t.buf)-tailSize:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) == 0 {
		return "(nothing)"
	}
	return string(t.buf)
}

// running is one running gateway process.
type running struct {
	cmd  *exec.Cmd
	url  string
	out  *tail
	done chan struct{}
	err  error
}

// URL is the gateway's base URL.
func (p *running) URL() string { return p.url }

// Stop kills the gateway's whole process group and waits for it.
func (p *running) Stop() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	proc.Kill(p.cmd)
	<-p.done
	return nil
}

// Diagnose says whether the process has exited, with its output tail.
func (p *running) Diagnose() string {
	select {
	case <-p.done:
		return fmt.Sprintf("the gateway process %s; output tail:\n%s", proc.Ended(p.err), p.out)
	default:
		return "output tail:\n" + p.out.String()
	}
}

// Launch starts the command in dir with standard input closed and waits
// until it answers GET /healthz on addr with 200. A process that exits
// first is a *StartFailure with its exit status and output tail.
func (p Process) Launch(ctx context.Context, dir, addr string) (Instance, error) {
	return p.LaunchEnv(ctx, dir, addr, nil)
}

// LaunchEnv is Launch with env added to the command's environment.
func (p Process) LaunchEnv(ctx context.Context, dir, addr string, env map[string]string) (Instance, error) {
	cmd := exec.Command("sh", "-c", p.Command)
	cmd.Dir = dir
	cmd.Stdin = nil // /dev/null: an interactor reading stdin sees EOF
	out := &tail{}
	cmd.Stdout, cmd.Stderr = out, out
	proc.Isolate(cmd)
	cmd.Env = append(os.Environ(), "SIFU_AGENTKIT_ADDR="+addr)
	for _, k := range slices.Sorted(maps.Keys(env)) {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("--start-cmd %q: %w", p.Command, err)
	}
	pr := &running{cmd: cmd, url: "http://" + addr, out: out, done: make(chan struct{})}
	go func() { pr.err = cmd.Wait(); close(pr.done) }()

	limit := p.StartTimeout
	if limit <= 0 {
		limit = 20 * time.Second
	}
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	hc := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-pr.done:
			code := -1
			var ee *exec.ExitError
			if errors.As(pr.err, &ee) {
				code = ee.ExitCode()
			} else if pr.err == nil {
				code = 0
			}
			return nil, &StartFailure{ExitCode: code, Stderr: out.String(), How: proc.Ended(pr.err)}
		case <-ctx.Done():
			_ = pr.Stop()
			return nil, fmt.Errorf("waiting for the gateway to answer GET /healthz: %w; output tail:\n%s", ctx.Err(), out)
		case <-deadline.C:
			_ = pr.Stop()
			return nil, &NoHealth{URL: pr.url, Limit: limit, Addr: addr, Output: out.String()}
		case <-tick.C:
			resp, err := hc.Get(pr.url + "/healthz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return pr, nil
				}
			}
		}
	}
}
