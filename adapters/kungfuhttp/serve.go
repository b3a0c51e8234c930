package kungfuhttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ListenError is an address ListenAndServe could not listen on.
type ListenError struct {
	Addr string
	Err  error
}

func (e *ListenError) Error() string { return fmt.Sprintf("--addr %s: %v", e.Addr, e.Err) }
func (e *ListenError) Unwrap() error { return e.Err }

// ListenAndServe serves h on addr until ctx ends, then shuts down within
// five seconds. ready, when set, is told the address it listens on.
func ListenAndServe(ctx context.Context, addr string, h http.Handler, ready func(addr string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &ListenError{Addr: addr, Err: err}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shut)
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
