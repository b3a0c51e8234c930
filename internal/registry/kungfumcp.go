package registry

import (
	"context"
	"io"
	"net/url"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuhttp"
	"github.com/sifu-dev/sifu/adapters/kungfumcp"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// kungfuSurface reads the surface map file names (the bundled map of the
// Kungfu 3.0 surface when file is empty), checked against its schema and
// against the actions and views the suite's checks use.
func kungfuSurface(file string) (*kungfumcp.Surface, error) {
	var raw []byte
	var err error
	name := file
	if file == "" {
		name = kungfumcp.Bundled
		raw, err = inputfile.ReadFS(sifu.Assets, kungfumcp.Bundled)
	} else {
		raw, err = inputfile.Read(file)
	}
	if err != nil {
		return nil, usagef("--map: %v", err)
	}
	plan, err := suites["kungfu"].Plan() // by name: Kungfu's own definition opens this
	if err != nil {
		return nil, err
	}
	s, err := kungfumcp.Load(name, raw, kungfumcp.Known(plan.Checks))
	if err != nil {
		return nil, usagef("--map: %v", err)
	}
	return s, nil
}

// kungfuMCP is one MCP client every check shares, reaching the tools at
// --url through the map (with --target http, their plain HTTP form): checks that need what the map lacks are
// untestable before they start.
func kungfuMCP(spec Spec) (kungfu.RunTarget, error) {
	if spec.URL == "" && spec.Command != "" && spec.Kind == "mcp" {
		s, err := kungfuSurface(spec.Map)
		if err != nil {
			return kungfu.RunTarget{}, err
		}
		c := kungfumcp.NewCommandClient(spec.Command, s, spec.RequestTimeout)
		return kungfu.RunTarget{IsShared: true, Concurrency: wireWorkers(), Memo: &kungfu.HelloMemo{}, Lack: s.Lacking, Done: c.Close,
			New: func(context.Context) (kungfu.Target, func(), error) { return c, func() {}, nil }}, nil
	}
	if spec.URL == "" {
		return kungfu.RunTarget{}, usagef("--target mcp needs --url, e.g. --url http://127.0.0.1:8090 (start one with `sifu serve kungfu --mcp`), or --cmd \"sifu serve kungfu --mcp --stdio --db :memory:\"")
	}
	u, err := url.Parse(spec.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return kungfu.RunTarget{}, usagef("--url %q is not an http(s) URL", spec.URL)
	}
	if spec.RequestTimeout <= 0 {
		return kungfu.RunTarget{}, usagef("--request-timeout must be positive")
	}
	if spec.Faults != nil {
		return kungfu.RunTarget{}, usagef("--faults: transport faults are injected over the binding (inproc, http, stdio), not through a surface map")
	}
	s, err := kungfuSurface(spec.Map)
	if err != nil {
		return kungfu.RunTarget{}, err
	}
	c := kungfumcp.NewClient(spec.URL, s, spec.RequestTimeout)
	if spec.Kind == "http" {
		if s.API == "" {
			return kungfu.RunTarget{}, usagef("--target http with --map %s: the map has no api, the path prefix of its tools' plain HTTP form; use --target mcp", spec.Map)
		}
		c = kungfumcp.NewAPIClient(spec.URL, s, spec.RequestTimeout)
	}
	return kungfu.RunTarget{IsShared: true, Concurrency: wireWorkers(), Memo: &kungfu.HelloMemo{}, Lack: s.Lacking, Done: c.Close,
		New: func(context.Context) (kungfu.Target, func(), error) { return c, func() {}, nil }}, nil
}

// serveMCP serves target through the map over HTTP at addr, or over the
// given streams.
func (o ServeKungfu) serveMCP(ctx context.Context, target kungfu.Target) error {
	s, err := kungfuSurface(o.Map)
	if err != nil {
		return err
	}
	sv := kungfumcp.NewServer(target, s)
	if o.Stdin != nil {
		return sv.ServeIO(ctx, io.NopCloser(o.Stdin), nopWriteCloser{o.Stdout})
	}
	return listened(kungfuhttp.ListenAndServe(ctx, o.Addr, sv.Handler(), o.Ready))
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
