// Package kcploopback serves the loopback HTTP servers KCP checks declare
// (kcp.LoopbackServer): manifests, signatures and keys on 127.0.0.1,
// redirects, and bodies over the size cap, for the network checks.
package kcploopback

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/sifu-dev/sifu/suite/kcp"
)

// Start serves spec on 127.0.0.1 (a port the system picks) and returns its
// base URL and how to stop it, which gives the paths requested, in order
// (with their query); a nil spec starts nothing ("", a no-op).
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
	srv := &http.Server{Handler: handler(spec, base, func(path string) {
		mu.Lock()
		requests = append(requests, path)
		mu.Unlock()
	})}
	go srv.Serve(ln)
	return base, func() []string {
		srv.Close()
		mu.Lock()
		defer mu.Unlock()
		return requests
	}, nil
}

func handler(spec *kcp.LoopbackServer, base string, seen func(string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen(r.URL.RequestURI())
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
		body := []byte(place(route.Body))
		body = pad(body, route.Size)
		if !route.Streamed {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.Header().Set("Content-Type", "text/yaml; charset=utf-8")
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
