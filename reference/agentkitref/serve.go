package agentkitref

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// Serve assembles the app in dir and serves it on serving.addr until ctx
// ends. A configuration that breaks an assembly rule is returned before
// anything listens.
func Serve(ctx context.Context, dir string, faults []Fault) error {
	app, err := LoadDir(dir, faults)
	if err != nil {
		return err
	}
	if app.Serving.Addr == "" {
		return errors.New("serving.addr is empty: nothing to serve (this gateway has no CLI mode)")
	}
	g, err := New(app, Options{WorkDir: dir, Faults: faults, Warn: os.Stderr})
	if err != nil {
		return err
	}
	defer g.Close()
	ln, err := net.Listen("tcp", app.Serving.Addr)
	if err != nil {
		return fmt.Errorf("serving.addr %s: %w", app.Serving.Addr, err)
	}
	srv := &http.Server{Handler: g.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	case err := <-done:
		return err
	}
}
