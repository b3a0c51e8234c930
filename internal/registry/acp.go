package registry

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/adapters/acpexec"
	"github.com/sifu-dev/sifu/adapters/acpinproc"
	"github.com/sifu-dev/sifu/internal/attack/acpfuzz"
	"github.com/sifu-dev/sifu/internal/attack/fuzz"
	"github.com/sifu-dev/sifu/internal/attack/linear"
	"github.com/sifu-dev/sifu/reference/acpref"
	"github.com/sifu-dev/sifu/suite/acp"
)

// ACP is the ACP suite: the reference tools in process, or any ACP tools
// as command templates (--target-config).
var ACP = register(&Suite{
	Name:   "acp",
	Checks: acp.Suite,
	Kinds:  []string{"inproc", "exec"},
	Faults: faultsFrom(acpref.Faults, acpref.CaughtBy),
	Fuzzes: true,
	Races:  true,
	open:   openACP,
})

func openACP(spec Spec) (*Subject, error) {
	var rt acp.RunTarget
	switch spec.Kind {
	case "inproc":
		var faults []acpref.Fault
		if spec.Mutant != "" {
			faults = []acpref.Fault{acpref.Fault(spec.Mutant)}
		}
		rt = acp.RunTarget{New: func(context.Context) (acp.Target, func(), error) {
			return acpinproc.Reference{Faults: faults}, func() {}, nil
		}}
	case "exec":
		if strings.TrimSpace(spec.Config) == "" {
			return nil, usagef("--target exec needs --target-config FILE with the command template of each ACP tool, e.g. --target-config docs/acp-sifu.target.json (see docs/acp.md)")
		}
		cfg, err := acpexec.LoadConfig(spec.Config)
		if err != nil {
			return nil, usagef("%v", err)
		}
		rt = acp.RunTarget{Claims: cfg.Claims(), New: func(context.Context) (acp.Target, func(), error) {
			return acpexec.Tools{Config: cfg}, func() {}, nil
		}}
	}
	oracle := acp.RunTarget{New: acpReference}
	return &Subject{Target: rt,
		fuzz: func(ctx context.Context, req FuzzRequest) (fuzz.Result, error) {
			prop := acpfuzz.Property(ctx, acpfuzz.Config{Target: rt.New, Oracle: acpReference, Name: fuzzName("acp", req.Seed)})
			return fuzz.Run(req.config(), prop)
		},
		race: &linear.Checker{Target: rt.NewExecutor, Reference: oracle.NewExecutor, Agree: acpfuzz.RaceAgree, Describe: acpfuzz.DescribeRaceCall},
	}, nil
}

// acpReference is a fresh in-process ACP reference.
func acpReference(context.Context) (acp.Target, func(), error) {
	return acpinproc.Reference{}, func() {}, nil
}

// Environment variables sifu acp honours, so a harness can make its runs
// reproducible without flags the upstream tools lack.
const (
	ACPNowEnv    = "SIFU_ACP_NOW"    // RFC 3339 time to stamp events with
	ACPCompatEnv = "SIFU_ACP_COMPAT" // "1": upstream verdicts on every quirk
)

// ACPTools are the reference ACP tools as the environment configures them
// (ACPNowEnv, ACPCompatEnv).
func ACPTools() (*acpref.Tools, error) {
	opts := acpref.Options{Compat: os.Getenv(ACPCompatEnv) == "1"}
	if v := strings.TrimSpace(os.Getenv(ACPNowEnv)); v != "" {
		now, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return nil, fmt.Errorf("%s=%q is not an RFC 3339 time such as 2026-01-02T03:04:05Z", ACPNowEnv, v)
		}
		opts.Now = func() time.Time { return now }
	}
	return acpref.New(opts), nil
}
