// Package kcphttp speaks to a running kcp-agent style HTTP server (`serve`):
// its routes with resty, its /mcp endpoint with the MCP Go SDK's
// streamable HTTP client (through kcpmcp); and starts such a server as a
// process on a free loopback port, waiting for its /health.
package kcphttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sifu-dev/sifu/adapters/kcpmcp"
	"github.com/sifu-dev/sifu/internal/netmsg"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// MaxAnswer is the most sifu reads of one answer body.
const MaxAnswer = 16 << 20

// Session is a kcp.ServeSession over a server at a loopback port. The MCP
// session over /mcp is opened on the first tool step.
type Session struct {
	Base string // http://127.0.0.1:<port>
	Dir  string // the server's directory, written back as <dir>
	Port int
	// Name names the server in messages.
	Name string
	// Stopper ends the server and returns what it printed.
	Stopper func() kcp.ServeOutput

	rc   *resty.Client
	once sync.Once
	mcp  *kcpmcp.Server
	err  error
	done sync.Once
	out  kcp.ServeOutput
}

// NewSession speaks to the server at port; timeout bounds each request.
func NewSession(port int, dir, name string, timeout time.Duration, stop func() kcp.ServeOutput) *Session {
	return &Session{Base: fmt.Sprintf("http://127.0.0.1:%d", port), Dir: dir, Port: port, Name: name, Stopper: stop,
		rc: resty.New().SetTimeout(timeout).SetRedirectPolicy(resty.NoRedirectPolicy())}
}

// Do sends one request and reads the whole answer.
func (s *Session) Do(ctx context.Context, req kcp.HTTPRequest) (kcp.HTTPResponse, error) {
	req = req.Place(s.Dir, s.Port)
	r := s.rc.R().SetContext(ctx).SetDoNotParseResponse(true)
	for k, v := range req.Headers {
		r.SetHeader(k, v)
	}
	switch {
	case req.Raw != nil:
		r.SetBody(*req.Raw)
	case req.Body != nil:
		r.SetHeader("Content-Type", "application/json").SetBody(req.Body)
	}
	resp, err := r.Execute(req.Method, s.Base+req.Path)
	if err != nil {
		if ctx.Err() != nil {
			return kcp.HTTPResponse{}, ctx.Err()
		}
		return kcp.HTTPResponse{}, fmt.Errorf("%s %s: %w", req.Method, req.Path, err)
	}
	body := resp.RawBody()
	defer body.Close()
	raw, err := io.ReadAll(io.LimitReader(body, MaxAnswer+1))
	if err != nil {
		return kcp.HTTPResponse{}, fmt.Errorf("%s %s: reading the answer: %w", req.Method, req.Path, err)
	}
	if len(raw) > MaxAnswer {
		return kcp.HTTPResponse{}, fmt.Errorf("%s %s: the answer is longer than %d MiB, the most sifu reads of one answer", req.Method, req.Path, MaxAnswer>>20)
	}
	header := map[string][]string{}
	for k, vs := range resp.Header() {
		if strings.EqualFold(k, "Date") {
			continue // the server's wall clock: no check reads it, and it would make every run's evidence differ
		}
		for _, v := range vs {
			header[strings.ToLower(k)] = append(header[strings.ToLower(k)], kcp.ServePlaces(v, s.Dir, s.Port))
		}
	}
	return kcp.HTTPResponse{Status: resp.StatusCode(), Header: header, Body: kcp.ServePlaces(string(raw), s.Dir, s.Port)}, nil
}

// server opens the MCP session over /mcp once.
func (s *Session) server(ctx context.Context) (*kcpmcp.Server, error) {
	s.once.Do(func() {
		t := &mcp.StreamableClientTransport{Endpoint: s.Base + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true}
		s.mcp, s.err = kcpmcp.Connect(ctx, t, s.Name+" /mcp")
	})
	return s.mcp, s.err
}

// ListTools lists the tools over /mcp.
func (s *Session) ListTools(ctx context.Context) ([]any, error) {
	srv, err := s.server(ctx)
	if err != nil {
		return nil, err
	}
	return srv.ListTools(ctx)
}

// CallTool calls one tool over /mcp. A call with files of its own has a
// directory of its own (as over stdio); one without is in the server's.
func (s *Session) CallTool(ctx context.Context, call kcp.ToolCall) (map[string]any, error) {
	srv, err := s.server(ctx)
	if err != nil {
		return nil, err
	}
	if len(call.Files) > 0 || s.Dir == "" {
		return srv.CallTool(ctx, call)
	}
	call.Arguments = kcp.PlaceDir(call.Arguments, s.Dir)
	res, err := srv.CallTool(ctx, call)
	if err != nil {
		return nil, err
	}
	out, _ := kcp.UnplaceDir(res, s.Dir).(map[string]any)
	return out, nil
}

// Stop closes the MCP session, ends the server and removes its directory.
func (s *Session) Stop() kcp.ServeOutput {
	s.done.Do(func() {
		if s.mcp != nil {
			s.mcp.Close()
		}
		if s.Stopper != nil {
			s.out = s.Stopper()
		}
		s.out.Stdout = kcp.ServePlaces(s.out.Stdout, s.Dir, s.Port)
		s.out.Stderr = kcp.ServePlaces(s.out.Stderr, s.Dir, s.Port)
		if s.Dir != "" {
			os.RemoveAll(s.Dir)
		}
	})
	return s.out
}

// FreePort is a loopback port nothing listens on now.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("cannot bind a loopback port for the server: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// ErrNotHTTP is an answer on the port that is no HTTP.
var ErrNotHTTP = errors.New("not HTTP")

// WaitHealth asks GET /health until any HTTP answer comes, ended() says
// the server is gone, or ctx ends. It polls every 20 ms: a server
// process gives no other sign that it listens.
func WaitHealth(ctx context.Context, port int, ended func() bool) error {
	client := resty.New().SetTimeout(2 * time.Second)
	url := fmt.Sprintf("http://127.0.0.1:%d/health", port)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := client.R().SetContext(ctx).SetDoNotParseResponse(true).Get(url)
		if err == nil {
			body := resp.RawBody()
			_, _ = io.Copy(io.Discard, io.LimitReader(body, MaxAnswer))
			body.Close()
			return nil
		}
		if notHTTP(err) {
			return fmt.Errorf("%w: %v", ErrNotHTTP, err)
		}
		if ended() {
			return errEnded
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

var errEnded = errors.New("the server ended")

// notHTTP is an error of an answer that came but was no HTTP response.
func notHTTP(err error) bool {
	msg := netmsg.Clean(err).Error()
	return strings.Contains(msg, "malformed HTTP") || strings.Contains(msg, "server gave HTTP response to HTTPS") ||
		strings.Contains(msg, "unexpected EOF") && !strings.Contains(msg, "connection refused")
}
