// Package kcploopback serves a command vector's declared routes on a
// loopback port for the length of one command line (kcp-agent's discover,
// or any command that fetches), and records what it was asked.
package kcploopback

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/suite/kcp"
)

// Server is one started loopback server.
type Server struct {
	URL      string // http://127.0.0.1:port
	srv      *http.Server
	mu       sync.Mutex
	requests []string
}

// Start serves spec's routes on 127.0.0.1 at a free port.
func Start(spec kcp.LoopbackServer) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the loopback server: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String()}
	s.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.RequestURI())
		s.mu.Unlock()
		route, ok := spec.Routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		typ := route.Type
		if typ == "" {
			typ = "text/plain; charset=utf-8"
		}
		w.Header().Set("Content-Type", typ)
		status := route.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		fmt.Fprint(w, route.Body)
	})}
	go s.srv.Serve(ln)
	return s, nil
}

// Requests are the requests served so far ("GET /path"), in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.requests...)
}

// Stop ends the server.
func (s *Server) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
}

// Run runs one command line with its loopback server, if it declares one:
// the server's URL placed in the request, written back in the result,
// and the requests it served recorded.
func Run(req kcp.CLIRequest, run func(kcp.CLIRequest) (kcp.CLIResult, error)) (kcp.CLIResult, error) {
	if req.Server == nil {
		return run(req)
	}
	s, err := Start(*req.Server)
	if err != nil {
		return kcp.CLIResult{}, err
	}
	res, err := run(req.PlaceServer(s.URL))
	s.Stop()
	if err != nil {
		return res, err
	}
	res = kcp.UnplaceServer(res, s.URL)
	res.Requests = s.Requests()
	return res, nil
}
