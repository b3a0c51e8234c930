package kcphttp

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/reference/kcpref/kcpcli"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// TestMain lets the test binary play `sifu-kcp serve`.
func TestMain(m *testing.M) {
	if os.Getenv("SIFU_KCPHTTP_PLAY") == "1" {
		os.Exit(kcpcli.CLI{Name: "sifu-kcp", Stdout: os.Stdout, Stderr: os.Stderr}.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SIFU_KCPHTTP_PLAY", "1")
	return exe
}

// TestAServerProcessIsStartedAskedAndStopped: the reference's serve as a
// process answers /health and /mcp on the port sifu picked, with the
// directory and the port written back as placeholders, and what it printed
// is there once it has stopped.
func TestAServerProcessIsStartedAskedAndStopped(t *testing.T) {
	ctx := context.Background()
	s, err := StartProcess(ctx, self(t), kcp.ServeRequest{Args: []string{"--manifest", "<dir>/knowledge.yaml", "--public-url", "http://127.0.0.1:<port>/mcp"},
		Files: map[string]string{"knowledge.yaml": "project: \"p\"\nserving:\n  mcp: [\"https://elsewhere.example/mcp\"]\nunits: []\n"}}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Do(ctx, kcp.HTTPRequest{Method: "POST", Path: "/validate", Body: map[string]any{}})
	if err != nil || res.Status != 200 || !strings.Contains(res.Body, `"source":"<dir>/knowledge.yaml"`) {
		t.Errorf("POST /validate: %v %+v", err, res)
	}
	tools, err := s.ListTools(ctx)
	if err != nil || len(tools) != 5 {
		t.Errorf("tools/list over /mcp: %d tools, %v", len(tools), err)
	}
	out := s.Stop()
	if !strings.Contains(out.Stderr, "http://127.0.0.1:<port>/mcp") || !strings.Contains(out.Stdout, "port ") {
		t.Errorf("printed %q and %q", out.Stdout, out.Stderr)
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory %s is left: %v", s.Dir, err)
	}
}

// TestAServerThatDoesNotStartIsSaidSo: one that exits says how and what it
// wrote; one whose port was taken is tried on other ports, then said so.
func TestAServerThatDoesNotStartIsSaidSo(t *testing.T) {
	ctx := context.Background()
	_, err := StartProcess(ctx, `f() { echo "no such command: $1" >&2; exit 2; }; f`, kcp.ServeRequest{}, time.Second)
	var se *kcp.ServeStartError
	if !errors.As(err, &se) || se.PortTaken || !strings.Contains(err.Error(), "exited with status 2 before answering GET /health") ||
		!strings.Contains(err.Error(), "no such command: serve") || !strings.Contains(err.Error(), "run it by hand") {
		t.Errorf("a command that exits: %v", err)
	}
	_, err = StartProcess(ctx, `f() { echo "listen EADDRINUSE: address already in use :::$2" >&2; exit 1; }; f`, kcp.ServeRequest{}, time.Second)
	if !errors.As(err, &se) || !se.PortTaken || !strings.Contains(err.Error(), "already in use") || !strings.Contains(err.Error(), "free loopback ports") {
		t.Errorf("a port in use: %v", err)
	}
}

// TestAnAnswerThatIsNoHTTPIsSaidSo: what listens on the port and answers
// something else is not waited on.
func TestAnAnswerThatIsNoHTTPIsSaidSo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 512)
			_, _ = c.Read(buf)
			_, _ = c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = WaitHealth(ctx, ln.Addr().(*net.TCPAddr).Port, func() bool { return false })
	if !errors.Is(err, ErrNotHTTP) {
		t.Errorf("got %v, want ErrNotHTTP", err)
	}
}
