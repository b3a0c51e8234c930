package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/sifu-dev/sifu/adapters/kungfuhttp"
	"github.com/sifu-dev/sifu/adapters/kungfustdio"
	"github.com/sifu-dev/sifu/internal/attack/faultproxy"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// httpTarget builds the HTTP adapter from the run's flags. The control token
// comes from a file or an environment variable and is never printed.
func httpTarget(f runFlags) (runner.Target, error) {
	if f.url == "" {
		return nil, &runner.UsageError{Msg: "--target http needs --url, e.g. --url http://127.0.0.1:8080 (start one with `sifu serve kungfu`)"}
	}
	u, err := url.Parse(f.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &runner.UsageError{Msg: fmt.Sprintf("--url %q is not an http(s) URL", f.url)}
	}
	token := os.Getenv(f.tokenEnv)
	if f.tokenFile != "" {
		raw, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return nil, &runner.UsageError{Msg: fmt.Sprintf("--control-token-file: %v", err)}
		}
		token = strings.TrimSpace(string(raw))
	}
	if f.requestTimeout <= 0 {
		return nil, &runner.UsageError{Msg: "--request-timeout must be positive"}
	}
	opts := kungfuhttp.ClientOptions{ControlToken: token, Timeout: f.requestTimeout}
	if cfg := f.faultCfg; cfg != nil && cfg.Has(faultproxy.Reset) {
		// The client's own connections are cut; it repeats what was cut.
		opts.Reset, opts.Retries = cfg.Decider().Cut, 3
		c := *cfg
		c.AdapterResets = true
		f.faultCfg = &c
	}
	client := kungfuhttp.NewClient(f.url, opts)
	target := withFaults(f, client)
	// One client serves every check: each check provisions its own agents.
	return faulted(f, kungfu.RunTarget{IsShared: true, Concurrency: wireWorkers(), Memo: &kungfu.HelloMemo{}, New: func(context.Context) (kungfu.Target, func(), error) {
		return target, func() {}, nil
	}}), nil
}

// wireWorkers is how many checks a wire target takes at once by default:
// each check mostly waits for answers, so more run than there are
// processors (--concurrency overrides it).
func wireWorkers() int {
	return 4 * runtime.GOMAXPROCS(0)
}

// stdioTarget starts the --cmd implementation, each process in a fresh
// temporary directory (so a relative --db of the implementation is private
// to it and survives the restart control). One process serves the checks:
// each provisions its own agents, and a check that moves the clock or
// restarts is confined to its own scope when the implementation offers
// scopes (hello "scoped"). Otherwise a check that moves the clock runs
// alone, and one that restarts gets a process of its own, which sifu kills
// and starts again. Under --faults, every check gets its own process,
// since a cut stream restarts the process it cuts.
func stdioTarget(f runFlags) (runner.Target, error) {
	if strings.TrimSpace(f.command) == "" {
		return nil, &runner.UsageError{Msg: `--target stdio needs --cmd, e.g. --cmd "sifu serve kungfu --stdio --db kungfu.db"`}
	}
	if cfg := f.faultCfg; cfg != nil && cfg.Has(faultproxy.Reset) {
		// The pipe to the implementation is cut (see kungfustdio.Process.SetCut).
		c := *cfg
		c.AdapterResets = true
		f.faultCfg = &c
	}
	start := func() (*kungfustdio.Process, func(), error) {
		dir, err := os.MkdirTemp("", "sifu-stdio-")
		if err != nil {
			return nil, nil, err
		}
		p, err := kungfustdio.Start(f.command, dir)
		if err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
		if cfg := f.faultCfg; cfg != nil && cfg.AdapterResets {
			p.SetCut(cfg.Decider().StreamCut)
		}
		return p, func() { p.Close(); os.RemoveAll(dir) }, nil
	}
	own := func(context.Context) (kungfu.Target, func(), error) {
		p, stop, err := start()
		if err != nil {
			return nil, nil, err
		}
		return withFaults(f, p), stop, nil
	}
	if f.faultCfg != nil {
		return faulted(f, kungfu.RunTarget{New: own}), nil
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
