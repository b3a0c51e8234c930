// Package kcploopback serves the loopback HTTP server a KCP check declares
// (kcp.LoopbackServer) on 127.0.0.1 for the length of one command line or
// MCP call — sites for discover and init, manifests, signatures and keys,
// redirects and bodies over the size cap for the network checks — and
// records what it was asked ("GET /path?query", in order).
package kcploopback

import (
	"fmt"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/suite/kcp"
)

// Start serves spec on 127.0.0.1 (a port the system picks) and returns its
// base URL and how to stop it, which gives the requests served, in order;
// a nil spec starts nothing ("", a no-op).
func Start(spec *kcp.LoopbackServer) (base string, stop func() []string, err error) {
	if spec == nil {
		return "", func() []string { return nil }, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("the check's loopback server: %w", err)
	}
	base = "http://" + ln.Addr().String()
	var mu sync.Mutex
	requests := []string{}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: handler(spec, base, func(r *http.Request) {
		mu.Lock()
		requests = append(requests, r.Method+" "+r.URL.RequestURI())
		mu.Unlock()
	})}
	go srv.Serve(ln)
	return base, func() []string {
		srv.Close()
		mu.Lock()
		defer mu.Unlock()
		return append([]string{}, requests...)
	}, nil
}

// Run runs one command line with its loopback server, if it declares one:
// the server's URL placed in the request (kcp.CLIRequest.WithServer),
// written back in the output and the requests it served in the result.
func Run(req kcp.CLIRequest, run func(kcp.CLIRequest) (kcp.CLIResult, error)) (kcp.CLIResult, error) {
	if req.Server == nil {
		return run(req)
	}
	base, stop, err := Start(req.Server)
	if err != nil {
		return kcp.CLIResult{}, err
	}
	res, err := run(req.WithServer(base))
	requests := stop()
	if err != nil {
		return res, err
	}
	res.Stdout = kcp.UnplaceServer(res.Stdout, base)
	res.Stderr = kcp.UnplaceServer(res.Stderr, base)
	res.Requests = requests
	return res, nil
}

func handler(spec *kcp.LoopbackServer, base string, seen func(*http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen(r)
		route, ok := spec.Routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		place := func(s string) string { return strings.ReplaceAll(s, kcp.ServerPlaceholder, base) }
		status := route.Status
		if route.Redirect != "" {
			w.Header().Set("Location", place(route.Redirect))
			if status == 0 {
				status = http.StatusFound
			}
		}
		if status == 0 {
			status = http.StatusOK
		}
		body := pad([]byte(place(route.Body)), route.Size)
		if !route.Streamed {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.Header().Set("Content-Type", contentType(r.URL.Path, route))
		w.WriteHeader(status)
		if route.Streamed {
			// Chunks, flushed, so no length is ever declared.
			for len(body) > 0 {
				n := min(len(body), 64<<10)
				if _, err := w.Write(body[:n]); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				body = body[n:]
			}
			return
		}
		w.Write(body)
	})
}

// contentType is the route's Type, else text/yaml for a .yaml or .yml
// path and text/plain for any other.
func contentType(p string, route kcp.Route) string {
	switch {
	case route.Type != "":
		return route.Type
	case path.Ext(p) == ".yaml" || path.Ext(p) == ".yml":
		return "text/yaml; charset=utf-8"
	}
	return "text/plain; charset=utf-8"
}

// pad lengthens body to size bytes with YAML comment lines ("#…\n"), the
// last cut to fit.
func pad(body []byte, size int64) []byte {
	if size <= int64(len(body)) {
		return body
	}
	out := make([]byte, len(body), size)
	copy(out, body)
	line := []byte("#" + strings.Repeat("x", 1022) + "\n")
	for int64(len(out)) < size {
		rest := size - int64(len(out))
		if rest < int64(len(line)) {
			out = append(out, "#"+strings.Repeat("x", int(max(rest-2, 0)))...)
			if int64(len(out)) < size {
				out = append(out, '\n')
			}
			continue
		}
		out = append(out, line...)
	}
	return out
}
