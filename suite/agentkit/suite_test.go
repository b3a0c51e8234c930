package agentkit_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/gateway"
	"github.com/sifu-dev/sifu/adapters/inproc"
	"github.com/sifu-dev/sifu/engine"
	ref "github.com/sifu-dev/sifu/reference/agentkit"
	"github.com/sifu-dev/sifu/results"
	"github.com/sifu-dev/sifu/runner"
	"github.com/sifu-dev/sifu/suite/agentkit"
	"github.com/sifu-dev/sifu/suite/agentkit/stub"
)

// target runs the reference gateway in-process with planted faults.
func target(t testing.TB, faults ...ref.Fault) runner.Target {
	t.Helper()
	srv, err := stub.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client := gateway.NewClient(0)
	return agentkit.RunTarget{New: func(context.Context) (agentkit.Target, func(), error) {
		m := &agentkit.Managed{Launcher: inproc.AgentKit{Faults: faults}, Client: client, Server: srv}
		return m, m.Close, nil
	}}
}

func run(t testing.TB, tg runner.Target, rules ...string) *results.Run {
	t.Helper()
	plan, err := runner.Load(sifu.Assets, agentkit.Suite)
	if err != nil {
		t.Fatal(err)
	}
	r, err := plan.Run(context.Background(), runner.Config{TargetName: "inproc", Target: tg, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReferencePassesTheSuite: the bundled reference gateway passes every
// check, and every rule is evidenced or marked not black-box.
func TestReferencePassesTheSuite(t *testing.T) {
	r := run(t, target(t))
	for _, tc := range r.Tests {
		if tc.Status != engine.Pass {
			t.Errorf("%s: %s: %s", tc.ID, tc.Status, tc.Message)
		}
	}
	for _, rule := range r.Rules {
		if rule.Status != results.RulePass && rule.Status != results.RuleNotBlackBox {
			t.Errorf("rule %s: %s %s", rule.ID, rule.Status, rule.Note)
		}
	}
	if r.Summary.Pass < 90 {
		t.Errorf("only %d checks passed", r.Summary.Pass)
	}
}

// negativeControls maps each planted fault to the rules whose checks must
// catch it: a check that cannot fail is no evidence.
var negativeControls = map[ref.Fault][]string{
	ref.FaultEffectTwice:         {"AK-SUSPEND-09"},
	ref.FaultSSENoDone:           {"AK-SSE-03", "AK-SSE-04"},
	ref.FaultInflightReexecuted:  {"AK-SUSPEND-10"},
	ref.FaultResumeAnySession:    {"AK-SUSPEND-03"},
	ref.FaultWrongErrorText:      {"AK-HTTP-05"},
	ref.FaultAcceptInvalidConfig: {"AK-CONFIG-01"},
	ref.FaultApprovalText:        {"AK-SUSPEND-06"},
	ref.FaultA2AErrorStatus:      {"AK-A2A-03"},
	ref.FaultLenientApprove:      {"AK-SUSPEND-08"},
}

// TestEveryPlantedFaultIsCaught runs the checks of each fault's rules
// against the reference with that fault, and needs at least one failure.
func TestEveryPlantedFaultIsCaught(t *testing.T) {
	for _, f := range ref.Faults {
		rules, ok := negativeControls[f]
		if !ok {
			t.Errorf("fault %s has no negative control", f)
			continue
		}
		t.Run(string(f), func(t *testing.T) {
			r := run(t, target(t, f), rules...)
			caught := false
			for _, tc := range r.Tests {
				if tc.Status == engine.Fail && slices.ContainsFunc(tc.Rules, func(id string) bool { return slices.Contains(rules, id) }) {
					caught = true
				}
				if tc.Status == engine.HarnessError || tc.Status == engine.Timeout {
					t.Errorf("%s: %s: %s", tc.ID, tc.Status, tc.Message)
				}
			}
			if !caught {
				t.Errorf("no check of %v failed with the %s fault planted", rules, f)
			}
		})
	}
}
