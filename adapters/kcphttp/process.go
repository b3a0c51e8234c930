package kcphttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/internal/proc"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// StartTimeout bounds how long a server has to answer GET /health.
const StartTimeout = 15 * time.Second

// portTries is how many ports a server is started on before a port
// taken between FreePort and its bind is reported.
const portTries = 3

// StartProcess runs `<command> serve <port> <args>` through sh -c (its own
// process group, TZ=UTC) on a free loopback port, in the request's
// directory's files, and returns once it answers GET /health. A server
// that exits first, answers something that is no HTTP, or does not answer
// within StartTimeout is a *kcp.ServeStartError saying what to do.
// timeout bounds each later request.
func StartProcess(ctx context.Context, command string, req kcp.ServeRequest, timeout time.Duration) (*Session, error) {
	dir, args, err := req.Materialize()
	if err != nil {
		return nil, err
	}
	var last error
	for range portTries {
		s, err := startAt(ctx, command, dir, args, timeout)
		if err == nil {
			return s, nil
		}
		last = err
		var se *kcp.ServeStartError
		if !errors.As(err, &se) || !se.PortTaken {
			break
		}
	}
	os.RemoveAll(dir)
	return nil, last
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() < MaxAnswer {
		b.buf.Write(p)
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startAt(ctx context.Context, command, dir string, args []string, timeout time.Duration) (*Session, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	full := append([]string{"serve", fmt.Sprint(port)}, kcp.PlacePort(args, port)...)
	line := command + " " + strings.Join(full, " ")
	shown := kcp.ServePlaces(line, dir, port)
	cmd := exec.Command("sh", append([]string{"-c", command + ` "$@"`, "sh"}, full...)...)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	proc.Isolate(cmd)
	cmd.WaitDelay = time.Second
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, &kcp.ServeStartError{Command: shown, What: err.Error(), Hint: "check that --cmd names a program that can be run"}
	}
	waited := make(chan struct{})
	var ended error
	go func() { ended = cmd.Wait(); close(waited) }()
	isEnded := func() bool {
		select {
		case <-waited:
			return true
		default:
			return false
		}
	}
	stop := func() kcp.ServeOutput {
		proc.Kill(cmd)
		<-waited
		return kcp.ServeOutput{Stdout: stdout.String(), Stderr: stderr.String()}
	}
	wctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	if err := WaitHealth(wctx, port, isEnded); err != nil {
		out := stop()
		tail := firstLines(out.Stderr + out.Stdout)
		said := ""
		if tail != "" {
			said = fmt.Sprintf(" (it wrote %q)", tail)
		}
		switch {
		case errors.Is(err, ErrNotHTTP):
			return nil, &kcp.ServeStartError{Command: shown, What: fmt.Sprintf("what answered GET /health on port %d is not HTTP (%v)", port, err),
				Hint: "check that `serve <port>` starts kcp-agent's HTTP server and that nothing else listens on loopback ports"}
		case errors.Is(err, errEnded):
			what := fmt.Sprintf("it %s before answering GET /health%s", proc.Ended(ended), said)
			low := strings.ToLower(out.Stderr + out.Stdout)
			if strings.Contains(low, "eaddrinuse") || strings.Contains(low, "address already in use") {
				return nil, &kcp.ServeStartError{Command: shown, What: "the port was already in use: " + what, Hint: "free loopback ports, or stop what holds them, and run again", PortTaken: true}
			}
			return nil, &kcp.ServeStartError{Command: shown, What: what, Hint: "check that `<cmd> serve <port>` starts kcp-agent's HTTP server on that port (run it by hand to see)"}
		}
		return nil, &kcp.ServeStartError{Command: shown, What: fmt.Sprintf("it did not answer GET /health on port %d within %s%s", port, StartTimeout, said),
			Hint: "check that `serve <port>` listens on the port given as its first argument"}
	}
	return NewSession(port, dir, command+" serve", timeout, stop), nil
}

func firstLines(s string) string {
	s = strings.TrimSpace(s)
	lines := strings.SplitN(s, "\n", 4)
	if len(lines) > 3 {
		lines = lines[:3]
	}
	out := strings.Join(lines, " | ")
	if len(out) > 300 {
		out = strings.ToValidUTF8(out[:300], "") + "…"
	}
	return out
}
