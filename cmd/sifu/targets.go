package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/sifu-dev/sifu/adapters/httpwire"
	"github.com/sifu-dev/sifu/adapters/stdio"
	"github.com/sifu-dev/sifu/attack/faultproxy"
	"github.com/sifu-dev/sifu/runner"
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
	opts := httpwire.ClientOptions{ControlToken: token, Timeout: f.requestTimeout}
	if cfg := f.faultCfg; cfg != nil && cfg.Has(faultproxy.Reset) {
		// The client's own connections are cut; it repeats what was cut.
		opts.Reset, opts.Retries = cfg.Decider().Cut, 3
		c := *cfg
		c.AdapterResets = true
		f.faultCfg = &c
	}
	client := httpwire.NewClient(f.url, opts)
	target := withFaults(f, client)
	// One client serves every check: each check provisions its own agents.
	return faulted(f, kungfu.RunTarget{IsShared: true, New: func(context.Context) (kungfu.Target, func(), error) {
		return target, func() {}, nil
	}}), nil
}

// stdioTarget starts the --cmd implementation once per check, each in a
// fresh temporary directory (so a relative --db of the implementation is
// private to the check and survives the restart control).
func stdioTarget(f runFlags) (runner.Target, error) {
	if strings.TrimSpace(f.command) == "" {
		return nil, &runner.UsageError{Msg: `--target stdio needs --cmd, e.g. --cmd "sifu serve kungfu --stdio --db kungfu.db"`}
	}
	if cfg := f.faultCfg; cfg != nil && cfg.Has(faultproxy.Reset) {
		// The pipe to the implementation is cut (see stdio.Process.SetCut).
		c := *cfg
		c.AdapterResets = true
		f.faultCfg = &c
	}
	return faulted(f, kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		dir, err := os.MkdirTemp("", "sifu-stdio-")
		if err != nil {
			return nil, nil, err
		}
		p, err := stdio.Start(f.command, dir)
		if err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
		if cfg := f.faultCfg; cfg != nil && cfg.AdapterResets {
			p.SetCut(cfg.Decider().StreamCut)
		}
		return withFaults(f, p), func() { p.Close(); os.RemoveAll(dir) }, nil
	}}), nil
}
