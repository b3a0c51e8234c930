// Package agentkitinproc starts the bundled agent-kit gateway
// (reference/agentkitref) in process, on a loopback port, for the suite's
// managed targets.
package agentkitinproc

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/adapters/agentkithttp"
	"github.com/sifu-dev/sifu/reference/agentkitref"
	"github.com/sifu-dev/sifu/suite/agentkit"
)

// Launcher launches the reference gateway (reference/agentkitref) inside the
// harness: its http.Handler on a loopback listener, over the configuration
// sifu wrote. A restart builds a new gateway over the same directory, and so
// the same suspend journal.
type Launcher struct {
	Faults []agentkitref.Fault
	// Now stamps generated session ids; nil is the wall clock.
	Now func() time.Time
}

// Hello describes the reference gateway.
func (a Launcher) Hello() agentkit.Hello {
	return agentkit.Hello{Implementation: "sifu-reference-agentkit", Version: "0.1.0"}
}

type server struct {
	url string
	srv *http.Server
	g   *agentkitref.Gateway
}

func (s *server) URL() string { return s.url }

// Stop closes the listener and every connection at once, and the
// gateway's connections to its MCP servers.
func (s *server) Stop() error {
	err := s.srv.Close()
	s.g.Close()
	return err
}

// Launch assembles the configuration in dir; a broken one fails as a
// gateway process would, with exit status 1 and the message.
func (a Launcher) Launch(ctx context.Context, dir, addr string) (agentkithttp.Instance, error) {
	return a.LaunchEnv(ctx, dir, addr, nil)
}

// LaunchEnv is Launch with env added to the environment the configuration's
// ${NAME} placeholders are filled from.
func (a Launcher) LaunchEnv(_ context.Context, dir, addr string, env map[string]string) (agentkithttp.Instance, error) {
	app, err := agentkitref.LoadDirEnv(dir, a.Faults, env)
	if err != nil {
		return nil, &agentkithttp.StartFailure{ExitCode: 1, Stderr: "agentkit: " + err.Error() + "\n"}
	}
	var warn strings.Builder
	g, err := agentkitref.New(app, agentkitref.Options{WorkDir: dir, Faults: a.Faults, Now: a.Now, Warn: &warn})
	if err != nil {
		return nil, &agentkithttp.StartFailure{ExitCode: 1, Stderr: warn.String() + "agentkit: " + err.Error() + "\n"}
	}
	if app.Serving.Addr != "" {
		addr = app.Serving.Addr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		g.Close()
		return nil, &agentkithttp.StartFailure{ExitCode: 1, Stderr: fmt.Sprintf("agentkit: serving.addr %s: %v\n", addr, err)}
	}
	srv := &http.Server{Handler: g.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &server{url: "http://" + ln.Addr().String(), srv: srv, g: g}, nil
}
