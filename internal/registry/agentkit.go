package registry

import (
	"bytes"
	"context"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sifu-dev/sifu/adapters/agentkithttp"
	"github.com/sifu-dev/sifu/adapters/agentkitinproc"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/reference/agentkitref"
	"github.com/sifu-dev/sifu/suite/agentkit"
)

// AgentKit is the agent-kit suite: the reference gateway in process, a
// gateway binary sifu starts per check (--start-cmd), or a running gateway
// (--url).
var AgentKit = register(&Suite{
	Name:   "agentkit",
	Checks: agentkit.Suite,
	Kinds:  []string{"inproc", "process", "http"},
	Faults: faultsFrom(agentkitref.Faults, agentkitref.CaughtBy),
	open:   openAgentKit,
})

func openAgentKit(spec Spec) (*Subject, error) {
	var rt agentkit.RunTarget
	var err error
	if spec.Kind == "http" {
		rt, err = agentkitRemote(spec)
	} else {
		rt, err = agentkitManaged(spec)
	}
	if err != nil {
		return nil, err
	}
	return &Subject{Target: rt}, nil
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
	raw, err := inputfile.Read(file)
	if err != nil {
		return o, nil, usagef("--target-config: %v", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(inputfile.Text(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&o); err != nil {
		return o, nil, usagef("--target-config %s: %v (keys: templates, stub_addr, start_timeout)", file, err)
	}
	var tmpl fs.FS
	if o.Templates != "" {
		dir := o.Templates
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(file), dir)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return o, nil, usagef("--target-config %s: templates %s is not a directory", file, dir)
		}
		tmpl = os.DirFS(dir)
	}
	return o, tmpl, nil
}

// stub starts (or finds) the stub model; a port it cannot bind is a usage
// error.
func stub(addr string) (*agentkithttp.Stub, error) {
	s, err := agentkithttp.SharedStub(addr)
	if err != nil {
		return nil, usagef("%v; free the port or set another stub_addr in --target-config", err)
	}
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
		return usagef("cannot write a generated gateway config: %v; point TMPDIR at a writable directory", err)
	}
	return nil
}

// agentkitManaged is a gateway sifu starts per check, in its own working
// directory: the reference in process, or the --start-cmd binary.
func agentkitManaged(spec Spec) (agentkit.RunTarget, error) {
	opts, tmpl, err := loadAgentkitOptions(spec.Config)
	if err != nil {
		return agentkit.RunTarget{}, err
	}
	if spec.Kind == "process" && strings.TrimSpace(spec.StartCommand) == "" {
		return agentkit.RunTarget{}, usagef(`--target process needs --start-cmd, e.g. --start-cmd "/path/to/your/gateway"`)
	}
	if err := preflight(); err != nil {
		return agentkit.RunTarget{}, err
	}
	srv, err := stub(opts.StubAddr)
	if err != nil {
		return agentkit.RunTarget{}, err
	}
	timeout := spec.RequestTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	client := agentkithttp.NewClient(timeout)
	var launcher agentkithttp.Launcher = agentkitinproc.Launcher{}
	if spec.Mutant != "" {
		launcher = agentkitinproc.Launcher{Faults: []agentkitref.Fault{agentkitref.Fault(spec.Mutant)}}
	}
	if strings.TrimSpace(spec.StartCommand) != "" {
		launcher = agentkithttp.Process{Command: absCommand(spec.StartCommand), StartTimeout: opts.StartTimeout}
		if !spec.NoProbe {
			// A gateway that cannot start at all fails the run before any
			// check, with one line, instead of once per check.
			probe := &agentkithttp.Managed{Launcher: launcher, Client: client, Server: srv, Templates: tmpl}
			if err := probe.Probe(context.Background()); err != nil {
				return agentkit.RunTarget{}, usagef("--start-cmd %q: no check was run: the gateway %v", spec.StartCommand, err)
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

// agentkitRemote is a running gateway somebody configured with `sifu
// agentkit config`, pointed at sifu's stub on a fixed address.
func agentkitRemote(spec Spec) (agentkit.RunTarget, error) {
	if spec.URL == "" {
		return agentkit.RunTarget{}, usagef("--target http needs --url of a running gateway configured with `sifu agentkit config` (see docs/agentkit.md)")
	}
	u, err := url.Parse(spec.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return agentkit.RunTarget{}, usagef("--url %q is not an http(s) URL", spec.URL)
	}
	opts, _, err := loadAgentkitOptions(spec.Config)
	if err != nil {
		return agentkit.RunTarget{}, err
	}
	if opts.StubAddr == "" {
		return agentkit.RunTarget{}, usagef("--target http needs --target-config with stub_addr: the address your gateway's model base_url and tool URLs point at (see `sifu agentkit config`)")
	}
	srv, err := stub(opts.StubAddr)
	if err != nil {
		return agentkit.RunTarget{}, err
	}
	r := &agentkithttp.Remote{URL: strings.TrimRight(spec.URL, "/"), Client: agentkithttp.NewClient(spec.RequestTimeout), Server: srv}
	return agentkit.RunTarget{IsShared: true, Claims: []string{"gateway", "suspend"}, Controls: []string{},
		New: func(context.Context) (agentkit.Target, func(), error) { return r, func() {}, nil }}, nil
}

// WriteAgentKitConfig writes the configuration sifu generates for a
// gateway (sifu agentkit config) into dir: listening on addr, its model
// and tools pointed at sifu's stub on stubAddr.
func WriteAgentKitConfig(dir, addr, stubAddr, approval string) error {
	s := agentkit.DefaultSettings()
	s.Approval = approval
	files, err := agentkithttp.Render(agentkithttp.DefaultTemplates(), agentkithttp.ConfigData{Addr: addr,
		ModelURL: "http://" + stubAddr + "/v1", ToolsURL: "http://" + stubAddr + "/tools", Settings: s})
	if err != nil {
		return err
	}
	if err := agentkithttp.WriteFiles(dir, files); err != nil {
		return usagef("%v", err)
	}
	return nil
}
