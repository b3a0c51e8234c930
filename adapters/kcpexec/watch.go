package kcpexec

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/internal/proc"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// StartCLI starts the command line of req in its directory (written as
// RunCLI writes it) and returns at once; the command runs, in its own
// process group, until Stop (kcp.Background).
func (p Planner) StartCLI(_ context.Context, req kcp.CLIRequest) (kcp.RunningCLI, error) {
	dir, manifest, rest, err := req.Materialize()
	if err != nil {
		return nil, err
	}
	args := append([]string{"-c", p.Command + ` "$@"`, "sh"}, rest...)
	cmd := exec.Command("sh", args...)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	proc.Isolate(cmd)
	cmd.WaitDelay = time.Second
	place := func(s string) string { return kcp.Unplace(s, dir, manifest) }
	r := &running{cmd: cmd, out: kcp.NewOutput(place), place: place, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = r.out, &r.stderr
	if err := cmd.Start(); err != nil {
		req.Release(dir)
		return nil, err
	}
	go func() {
		_ = cmd.Wait()
		r.out.End()
		close(r.done)
	}()
	return r, nil
}

type running struct {
	cmd    *exec.Cmd
	out    *kcp.Output
	stderr lockedText
	place  func(string) string
	done   chan struct{}
}

func (r *running) Output() *kcp.Output { return r.out }

// Stop kills the command's process group and returns what is left of its
// output.
func (r *running) Stop() kcp.CLIResult {
	proc.Kill(r.cmd)
	<-r.done
	return kcp.CLIResult{Stdout: r.out.Rest(), Stderr: r.place(r.stderr.String())}
}

type lockedText struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedText) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) < 1<<20 {
		b.buf = append(b.buf, p...)
	}
	return len(p), nil
}

func (b *lockedText) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
