package registry

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/internal/attack/faultproxy"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// TargetArgs are the command line's target flags as given (sifu run, fuzz
// and race share them): the suite, the implementation and how to reach
// it. Spec turns them into a Spec.
type TargetArgs struct {
	Suite, Kind, URL, Command, StartCommand, Config, Mutant, Map string
	// TokenEnv names the environment variable holding the control token;
	// TokenFile, when set, is a file holding it instead. Neither token is
	// ever printed.
	TokenEnv, TokenFile string
	RequestTimeout      time.Duration
	// Checks are --check patterns.
	Checks []string
	// Faults and FaultSeed are --faults and --fault-seed (sifu run).
	Faults    string
	FaultSeed uint64
}

// Spec is the target the args name, the control token read from its file
// or environment variable and the transport faults configured.
func (a TargetArgs) Spec() (Spec, error) {
	s := Spec{Kind: a.Kind, URL: a.URL, Command: a.Command, StartCommand: a.StartCommand, Config: a.Config, Map: a.Map,
		Mutant: a.Mutant, RequestTimeout: a.RequestTimeout, ControlToken: os.Getenv(a.TokenEnv)}
	if a.TokenFile != "" {
		raw, err := inputfile.Read(a.TokenFile)
		if err != nil {
			return s, usagef("--control-token-file: %v", err)
		}
		s.ControlToken = strings.TrimSpace(string(raw))
	}
	if strings.TrimSpace(a.Faults) == "" {
		if a.FaultSeed != 0 {
			return s, usagef("--fault-seed needs --faults, e.g. --faults all --fault-seed 7")
		}
		return s, nil
	}
	var err error
	if s.Faults, err = faultproxy.Configure(a.Faults, a.FaultSeed); err != nil {
		return s, usagef("--faults: %v", err)
	}
	return s, nil
}

// flags are the flags that name the target, as a command line (the
// control token's never among them).
func (a TargetArgs) flags() string {
	var args strings.Builder
	for _, kv := range [][2]string{{"--url", a.URL}, {"--cmd", a.Command}, {"--start-cmd", a.StartCommand}, {"--target-config", a.Config}, {"--map", a.Map}, {"--mutant", a.Mutant}} {
		if kv[1] != "" {
			fmt.Fprintf(&args, " %s %q", kv[0], kv[1])
		}
	}
	return args.String()
}

// RunArgs are sifu run's flags as given; Request turns them into a
// RunRequest.
type RunArgs struct {
	TargetArgs
	Profiles, Rules                            []string
	Tags, Out, Declare, SignKey, Expect, Shard string
	Vectors, Features, Rerun                   string
	Timeout                                    time.Duration
	Concurrency, Repeat                        int
}

// Request is the run the args ask for: the suite looked up, the target's
// spec built, the shard parsed and the signing key read.
func (a RunArgs) Request() (RunRequest, error) {
	s, err := Lookup(a.Suite)
	if err != nil {
		return RunRequest{}, err
	}
	spec, err := a.Spec()
	if err != nil {
		return RunRequest{}, err
	}
	req := RunRequest{Suite: s, Spec: spec, Vectors: a.Vectors, Features: a.Features, Rerun: a.Rerun, Expect: a.Expect, Out: a.Out, Declare: a.Declare,
		Timeout: a.Timeout, Concurrency: a.Concurrency, Repeat: a.Repeat,
		Select: Selection{Profiles: a.Profiles, Tags: a.Tags, Rules: a.Rules, Checks: a.Checks}}
	if a.Shard != "" {
		if req.Select.Shard, err = runner.ParseShard(a.Shard); err != nil {
			return RunRequest{}, err
		}
	}
	if a.SignKey != "" {
		if req.SignKey, err = inputfile.Read(a.SignKey); err != nil {
			return RunRequest{}, usagef("--sign-key: %v", err)
		}
	}
	return req, nil
}

// Each is the args of every suite's run against its bundled reference, one
// per suite by name (sifu run with --suite all): --out and --declare get a
// subdirectory per suite. Args that name another implementation, or narrow
// or change one suite's checks, are a usage error.
func (a RunArgs) Each() ([]RunArgs, error) {
	if a.Kind != "inproc" || a.Expect != "" || a.Vectors != "" || a.Features != "" || a.Rerun != "" || len(a.Profiles) > 0 || len(a.Rules) > 0 || len(a.Checks) > 0 ||
		a.Mutant != "" || a.URL != "" || a.Command != "" || a.StartCommand != "" || a.Config != "" || a.Map != "" || a.Faults != "" {
		return nil, usagef("--suite all runs every suite against its bundled reference; to check another implementation, or with --expect, --vectors, --features, --rerun-failed, --profile, --rule, --check, --mutant or --faults, pick one suite with --suite")
	}
	var each []RunArgs
	for _, name := range Names() {
		one := a
		one.Suite, one.Out, one.Declare = name, AllOut(a.Out, name), AllOut(a.Declare, name)
		each = append(each, one)
	}
	return each, nil
}

// Epoch is SOURCE_DATE_EPOCH (results.SourceDateEpoch); a malformed one is
// a usage error.
func Epoch() (time.Time, bool, error) {
	at, set, err := results.SourceDateEpoch()
	if err != nil {
		return at, set, usagef("%v", err)
	}
	return at, set, nil
}
