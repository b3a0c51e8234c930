package main

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/sifu-dev/sifu/adapters/agentkithttp"
	"github.com/sifu-dev/sifu/adapters/agentkitinproc"
	"github.com/sifu-dev/sifu/internal/attack/selftest"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/agentkitref"
	"github.com/sifu-dev/sifu/suite/agentkit"
)

func init() {
	register("agentkit", suiteEntry{
		suite: agentkit.Suite,
		targets: map[string]func(runFlags) (runner.Target, error){
			// inproc runs the reference gateway, or with --start-cmd the
			// user's gateway binary, one per check.
			"inproc":  agentkitManaged,
			"process": agentkitManaged,
			"http":    agentkitRemote,
		},
		commands: []func() *cobra.Command{newAgentKitCmd},
		mutants:  agentkitMutants,
	})
}

// agentkitMutants are the in-process reference gateway with each planted
// fault.
func agentkitMutants() []selftest.Mutant {
	var out []selftest.Mutant
	for _, fault := range agentkitref.Faults {
		t, err := agentkitManaged(runFlags{target: "inproc", mutant: string(fault)})
		if err != nil {
			continue
		}
		out = append(out, selftest.Mutant{Name: string(fault), Target: t})
	}
	return out
}

// agentkitOptions is the --target-config file of the agentkit suite.
type agentkitOptions struct {
	// Templates is a directory of *.tmpl config templates replacing the
	// default ones (relative to the options file).
	Templates string `yaml:"templates"`
	// StubAddr is where the stub model and tools listen (default a free
	// loopback port; give a fixed one for --target http).
	StubAddr string `yaml:"stub_addr"`
	// StartTimeout bounds the wait for a started gateway's /healthz.
	StartTimeout time.Duration `yaml:"start_timeout"`
}

func loadAgentkitOptions(file string) (agentkitOptions, fs.FS, error) {
	var o agentkitOptions
	if file == "" {
		return o, nil, nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return o, nil, &runner.UsageError{Msg: fmt.Sprintf("--target-config: %v", err)}
	}
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&o); err != nil {
		return o, nil, &runner.UsageError{Msg: fmt.Sprintf("--target-config %s: %v (keys: templates, stub_addr, start_timeout)", file, err)}
	}
	var tmpl fs.FS
	if o.Templates != "" {
		dir := o.Templates
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(file), dir)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return o, nil, &runner.UsageError{Msg: fmt.Sprintf("--target-config %s: templates %s is not a directory", file, dir)}
		}
		tmpl = os.DirFS(dir)
	}
	return o, tmpl, nil
}

// stubs are the stub servers of this process, by requested address: runs
// in one process share them (checks never collide: every check has its own
// script keys), and a fixed stub_addr stays bound until the process ends.
var (
	stubsMu sync.Mutex
	stubs   = map[string]*agentkithttp.Stub{}
)

// startStub starts (or reuses) the stub model; a port it cannot bind is a
// usage error.
func startStub(addr string) (*agentkithttp.Stub, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	stubsMu.Lock()
	defer stubsMu.Unlock()
	if s, ok := stubs[addr]; ok {
		return s, nil
	}
	s, err := agentkithttp.StartStub(addr)
	if err != nil {
		return nil, &runner.UsageError{Msg: fmt.Sprintf("%v; free the port or set another stub_addr in --target-config", err)}
	}
	stubs[addr] = s
	return s, nil
}

// preflight proves that sifu can write a generated configuration.
func preflight() error {
	dir, err := os.MkdirTemp("", "sifu-agentkit-")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "app.yaml"), []byte("# probe\n"), 0o644)
		os.RemoveAll(dir)
	}
	if err != nil {
		return &runner.UsageError{Msg: fmt.Sprintf("cannot write a generated gateway config: %v; point TMPDIR at a writable directory", err)}
	}
	return nil
}

func agentkitManaged(f runFlags) (runner.Target, error) {
	opts, tmpl, err := loadAgentkitOptions(f.targetConfig)
	if err != nil {
		return nil, err
	}
	if f.target == "process" && strings.TrimSpace(f.startCmd) == "" {
		return nil, &runner.UsageError{Msg: `--target process needs --start-cmd, e.g. --start-cmd "/path/to/your/gateway"`}
	}
	if err := preflight(); err != nil {
		return nil, err
	}
	srv, err := startStub(opts.StubAddr)
	if err != nil {
		return nil, err
	}
	timeout := f.requestTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	client := agentkithttp.NewClient(timeout)
	var launcher agentkithttp.Launcher = agentkitinproc.Launcher{}
	if f.mutant != "" {
		faults, err := agentkitref.ParseFaults([]string{f.mutant})
		if err != nil {
			return nil, &runner.UsageError{Msg: "--mutant: " + err.Error()}
		}
		launcher = agentkitinproc.Launcher{Faults: faults}
	}
	if strings.TrimSpace(f.startCmd) != "" {
		launcher = agentkithttp.Process{Command: absCommand(f.startCmd), StartTimeout: opts.StartTimeout}
		if !f.list {
			// A gateway that cannot start at all fails the run before any
			// check, with one line, instead of once per check.
			probe := &agentkithttp.Managed{Launcher: launcher, Client: client, Server: srv, Templates: tmpl}
			if err := probe.Probe(context.Background()); err != nil {
				return nil, &runner.UsageError{Msg: fmt.Sprintf("--start-cmd %q: no check was run: the gateway %v", f.startCmd, err)}
			}
		}
	}
	stuck := &agentkithttp.Stuck{}
	return agentkit.RunTarget{New: func(context.Context) (agentkit.Target, func(), error) {
		m := &agentkithttp.Managed{Launcher: launcher, Client: client, Server: srv, Templates: tmpl, Stuck: stuck}
		return m, m.Close, nil
	}}, nil
}

// absCommand makes a relative path in the first word of a start command
// absolute, when it names a file where sifu runs: the command itself runs
// in each check's own working directory.
func absCommand(cmd string) string {
	trimmed := strings.TrimLeft(cmd, " \t")
	first, rest, _ := strings.Cut(trimmed, " ")
	if !strings.Contains(first, "/") || filepath.IsAbs(first) || strings.ContainsAny(first, "'\"$`\\") {
		return cmd
	}
	abs, err := filepath.Abs(first)
	if err != nil {
		return cmd
	}
	if _, err := os.Stat(abs); err != nil {
		return cmd
	}
	if rest != "" {
		return abs + " " + rest
	}
	return abs
}

func agentkitRemote(f runFlags) (runner.Target, error) {
	if f.url == "" {
		return nil, &runner.UsageError{Msg: "--target http needs --url of a running gateway configured with `sifu agentkit config` (see docs/agentkit.md)"}
	}
	u, err := url.Parse(f.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &runner.UsageError{Msg: fmt.Sprintf("--url %q is not an http(s) URL", f.url)}
	}
	opts, _, err := loadAgentkitOptions(f.targetConfig)
	if err != nil {
		return nil, err
	}
	if opts.StubAddr == "" {
		return nil, &runner.UsageError{Msg: "--target http needs --target-config with stub_addr: the address your gateway's model base_url and tool URLs point at (see `sifu agentkit config`)"}
	}
	srv, err := startStub(opts.StubAddr)
	if err != nil {
		return nil, err
	}
	r := &agentkithttp.Remote{URL: strings.TrimRight(f.url, "/"), Client: agentkithttp.NewClient(f.requestTimeout), Server: srv}
	return agentkit.RunTarget{IsShared: true, Claims: []string{"gateway", "suspend"}, Controls: []string{},
		New: func(context.Context) (agentkit.Target, func(), error) { return r, func() {}, nil }}, nil
}
