package registry

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/sifu-dev/sifu/adapters/kungfuhttp"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/adapters/kungfustdio"
	"github.com/sifu-dev/sifu/internal/attack/faultproxy"
	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/attack/kungfufuzz"
	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/reference/kungfuref/sqlitestore"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// Kungfu is the Kungfu suite: the reference in process, over HTTP
// (--url) and over stdio (--cmd); every target takes injected faults.
var Kungfu = register(&Suite{
	Name:    "kungfu",
	Checks:  kungfu.Suite,
	Kinds:   []string{"inproc", "http", "stdio", "mcp"},
	Faults:  faultsFrom(kungfuref.Faults, kungfuref.CaughtBy),
	Fuzzes:  true,
	Races:   true,
	injects: true,
	open:    openKungfu,
})

func openKungfu(spec Spec) (*Subject, error) {
	var rt kungfu.RunTarget
	var err error
	switch spec.Kind {
	case "inproc":
		rt = kungfuInproc(spec)
	case "http":
		rt, err = kungfuHTTP(spec)
	case "stdio":
		rt, err = kungfuStdio(spec)
	case "mcp":
		rt, err = kungfuMCP(spec)
	}
	if err != nil {
		return nil, err
	}
	if rt.Lack != nil {
		// Through a surface map: the fuzzer and the races use actions
		// and controls no map need have, so they are not offered.
		return &Subject{Target: rt, done: rt.Done}, nil
	}
	oracle := kungfu.RunTarget{New: kungfuReference}
	return &Subject{Target: rt, done: rt.Done,
		fuzz: func(ctx context.Context, req FuzzRequest) (fuzz.Result, error) {
			prop := kungfufuzz.Property(ctx, kungfufuzz.Config{Target: rt.New, Oracle: kungfuReference, Shared: rt.IsShared})
			return fuzz.Run(req.config(), prop)
		},
		race: &linear.Checker{Target: rt.NewExecutor, Reference: oracle.NewExecutor, Agree: kungfufuzz.Compare},
	}, nil
}

// kungfuReference is a fresh in-process reference.
func kungfuReference(context.Context) (kungfu.Target, func(), error) {
	t, err := kungfuinproc.New()
	return t, func() {}, err
}

// withFaults puts the fault proxy in front of a target when the spec asks
// for faults.
func withFaults(spec Spec, t kungfu.Target) kungfu.Target {
	if spec.Faults == nil {
		return t
	}
	return faultproxy.Wrap(t, *spec.Faults)
}

func kungfuInproc(spec Spec) kungfu.RunTarget {
	var opts []kungfuref.Option
	if spec.Mutant != "" {
		opts = append(opts, kungfuref.WithFaults(kungfuref.Fault(spec.Mutant)))
	}
	return kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		t, err := kungfuinproc.New(opts...)
		if err != nil {
			return nil, nil, err
		}
		return withFaults(spec, t), func() {}, nil
	}}
}

// wireWorkers is how many checks a wire target takes at once by default:
// each check mostly waits for answers, so more run than there are
// processors (--concurrency overrides it).
func wireWorkers() int { return 4 * runtime.GOMAXPROCS(0) }

// kungfuHTTP is one HTTP client every check shares: each check provisions
// its own agents. Under reset faults the client's own connections are cut,
// and it repeats what was cut.
func kungfuHTTP(spec Spec) (kungfu.RunTarget, error) {
	if spec.Map != "" {
		return kungfuMCP(spec) // the map's tools in their plain HTTP form
	}
	if spec.URL == "" {
		return kungfu.RunTarget{}, usagef("--target http needs --url, e.g. --url http://127.0.0.1:8080 (start one with `sifu serve kungfu`)")
	}
	u, err := url.Parse(spec.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return kungfu.RunTarget{}, usagef("--url %q is not an http(s) URL", spec.URL)
	}
	if spec.RequestTimeout <= 0 {
		return kungfu.RunTarget{}, usagef("--request-timeout must be positive")
	}
	opts := kungfuhttp.ClientOptions{ControlToken: spec.ControlToken, Timeout: spec.RequestTimeout}
	if cfg := spec.Faults; cfg != nil && cfg.Has(faultproxy.Reset) {
		opts.Reset, opts.Retries = cfg.Decider().Cut, 3
		c := *cfg
		c.AdapterResets = true
		spec.Faults = &c
	}
	target := withFaults(spec, kungfuhttp.NewClient(spec.URL, opts))
	return kungfu.RunTarget{IsShared: true, Concurrency: wireWorkers(), Memo: &kungfu.HelloMemo{}, New: func(context.Context) (kungfu.Target, func(), error) {
		return target, func() {}, nil
	}}, nil
}

// kungfuStdio starts the command, each process in a fresh temporary
// directory (so a relative --db of the implementation is private to it
// and survives the restart control). One process serves the checks: each
// provisions its own agents, and a check that moves the clock or restarts
// is confined to its own scope when the implementation offers scopes
// (hello "scoped"). Otherwise a check that moves the clock runs alone,
// and one that restarts gets a process of its own, which sifu kills and
// starts again. Under faults every check gets its own process, since a
// cut stream restarts the process it cuts.
func kungfuStdio(spec Spec) (kungfu.RunTarget, error) {
	if strings.TrimSpace(spec.Command) == "" {
		return kungfu.RunTarget{}, usagef(`--target stdio needs --cmd, e.g. --cmd "sifu serve kungfu --stdio --db kungfu.db"`)
	}
	if cfg := spec.Faults; cfg != nil && cfg.Has(faultproxy.Reset) {
		c := *cfg
		c.AdapterResets = true
		spec.Faults = &c
	}
	start := func() (*kungfustdio.Process, func(), error) {
		dir, err := os.MkdirTemp("", "sifu-stdio-")
		if err != nil {
			return nil, nil, err
		}
		p, err := kungfustdio.Start(spec.Command, dir)
		if err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
		if cfg := spec.Faults; cfg != nil && cfg.AdapterResets {
			p.SetCut(cfg.Decider().StreamCut)
		}
		return p, func() { p.Close(); os.RemoveAll(dir) }, nil
	}
	own := func(context.Context) (kungfu.Target, func(), error) {
		p, stop, err := start()
		if err != nil {
			return nil, nil, err
		}
		return withFaults(spec, p), stop, nil
	}
	if spec.Faults != nil {
		return kungfu.RunTarget{New: own}, nil
	}
	var (
		once   sync.Once
		shared kungfu.Target
		stop   = func() {}
		err    error
	)
	return kungfu.RunTarget{IsShared: true, Own: own, Concurrency: wireWorkers(), Memo: &kungfu.HelloMemo{},
		New: func(context.Context) (kungfu.Target, func(), error) {
			once.Do(func() {
				var p *kungfustdio.Process
				if p, stop, err = start(); err == nil {
					shared = p
				}
			})
			return shared, func() {}, err
		},
		Done: func() { once.Do(func() {}); stop() },
	}, nil
}

// ServeKungfu says how to serve the Kungfu reference (sifu serve kungfu).
type ServeKungfu struct {
	// Addr is where to listen over HTTP; with Stdin and Stdout set, the
	// binding is spoken over them instead.
	Addr   string
	Stdin  io.Reader
	Stdout io.Writer
	DB     string // a SQLite file (its folder made), or ":memory:"
	// Sync is "full" (every fact synced to the disk before the answer) or
	// "normal" (synced at checkpoints only).
	Sync      string
	TokenFile string // a file holding the token control requests must present
	Fault     string // a planted fault
	// MCP serves the tools of a surface map (Map, or the bundled Kungfu
	// 3.0 map) over MCP instead of the binding.
	MCP   bool
	Map   string
	Ready func(addr string)
}

// Serve serves the reference, one per scope (docs/binding.md), facts in
// SQLite, until ctx ends.
func (o ServeKungfu) Serve(ctx context.Context) error {
	if o.Map != "" && !o.MCP {
		return usagef("--map names the tools to serve over MCP: add --mcp")
	}
	if o.DB != ":memory:" {
		// --db out/kungfu.db works on a fresh checkout: the folder is made.
		if err := os.MkdirAll(filepath.Dir(o.DB), 0o755); err != nil {
			return usagef("--db %s: %v", o.DB, err)
		}
	}
	var storeOpts []sqlitestore.Option
	switch o.Sync {
	case "full", "":
	case "normal":
		storeOpts = append(storeOpts, sqlitestore.SyncNormal())
	default:
		return usagef("--sync %q: use full or normal", o.Sync)
	}
	opts := kungfuhttp.ServerOptions{}
	if o.TokenFile != "" {
		raw, err := inputfile.Read(o.TokenFile)
		if err != nil {
			return usagef("--control-token-file: %v", err)
		}
		opts.ControlToken = strings.TrimSpace(string(raw))
	}
	var refOpts []kungfuref.Option
	if o.Fault != "" {
		if !slices.Contains(kungfuref.Faults, kungfuref.Fault(o.Fault)) {
			return usagef("--fault %q is not a planted fault of the Kungfu reference; `sifu selftest --suite kungfu` lists them", o.Fault)
		}
		refOpts = append(refOpts, kungfuref.WithFaults(kungfuref.Fault(o.Fault)))
	}
	var logs kungfuinproc.Logs = &kungfuinproc.MemoryLogs{}
	if o.DB == ":memory:" {
		opts.CredentialKey = make([]byte, 32)
		_, _ = rand.Read(opts.CredentialKey)
	} else {
		st, err := sqlitestore.Open(o.DB, storeOpts...)
		if err != nil {
			return usagef("%v", err)
		}
		defer st.Close()
		key, err := st.Secret("credential-key")
		if err != nil {
			return usagef("%v", err)
		}
		opts.CredentialKey = key
		logs = st
	}
	// Checks that move their clock or restart touch only their own scope,
	// however many share the server.
	target, err := kungfuinproc.NewScopes(logs, refOpts...)
	if err != nil {
		return fmt.Errorf("start the reference: %w", err)
	}
	if o.MCP {
		return o.serveMCP(ctx, target)
	}
	if o.Stdin != nil {
		return kungfustdio.Serve(ctx, target, o.Stdin, o.Stdout)
	}
	return listened(kungfuhttp.ListenAndServe(ctx, o.Addr, kungfuhttp.NewHandler(target, opts), o.Ready))
}

// listened is a server's end, an address it could not listen on a usage
// error.
func listened(err error) error {
	var le *kungfuhttp.ListenError
	if errors.As(err, &le) {
		return usagef("%v", le)
	}
	return err
}
