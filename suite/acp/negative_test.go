package acp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/inproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	ref "github.com/sifu-dev/sifu/reference/acp"
	"github.com/sifu-dev/sifu/suite/acp"
)

// negativeControls maps every planted fault of the reference to the rules
// whose checks must catch it: each fault must make at least one check of
// these rules fail. A check that cannot fail is no evidence.
var negativeControls = map[ref.Fault][]string{
	ref.FaultNonParticipantAppends:      {"ACP-EVT-04"},
	ref.FaultAnyoneAdvances:             {"ACP-TRANS-01", "ACP-TRANS-03", "ACP-TRANS-07"},
	ref.FaultAnyPhase:                   {"ACP-TRANS-10"},
	ref.FaultFirstReviewEndsRound:       {"ACP-TRANS-03"},
	ref.FaultAcceptUnclassified:         {"ACP-TRANS-06"},
	ref.FaultSkipReadinessGate:          {"ACP-DOC-02"},
	ref.FaultNoReadyToImplement:         {"ACP-DOC-03"},
	ref.FaultCompleteWithoutReadiness:   {"ACP-TRANS-08"},
	ref.FaultCompleteAnyDoc:             {"ACP-TRANS-08"},
	ref.FaultUncheckedGates:             {"ACP-DOC-04"},
	ref.FaultIncompleteConclusion:       {"ACP-DOC-05"},
	ref.FaultNoReplyTo:                  {"ACP-EVT-02"},
	ref.FaultDanglingReplyTo:            {"ACP-EVT-03"},
	ref.FaultReinitOverwrites:           {"ACP-INIT-03"},
	ref.FaultRewritesHistory:            {"ACP-EVT-06"},
	ref.FaultBlockAfterCompleted:        {"ACP-STRICT-BLOCKED-AFTER-COMPLETED"},
	ref.FaultSeqGapMissed:               {"ACP-VAL-07"},
	ref.FaultTimeRegressionMissed:       {"ACP-EVT-07"},
	ref.FaultReviewHeadingUnchecked:     {"ACP-DOC-01"},
	ref.FaultStaleFilesIgnored:          {"ACP-VAL-03"},
	ref.FaultProtocolDriftIgnored:       {"ACP-VAL-08"},
	ref.FaultNoWarnings:                 {"ACP-VAL-11"},
	ref.FaultWaitIgnoresTurn:            {"ACP-CLI-04"},
	ref.FaultNextAlwaysYourTurn:         {"ACP-CLI-01"},
	ref.FaultUnlockedAppend:             {"ACP-EVT-08"},
	ref.FaultRawSeparators:              {"ACP-EVT-11"},
	ref.FaultAcceptsInvalidUTF8:         {"ACP-VAL-13"},
	ref.FaultStopsAtBadLine:             {"ACP-VAL-06"},
	ref.FaultLenientSeqSeen:             {"ACP-EVT-03"},
	ref.FaultOutOfPhaseKeepsPhase:       {"ACP-TRANS-10"},
	ref.FaultUnsortedWaiting:            {"ACP-TRANS-01", "ACP-TRANS-05"},
	ref.FaultEventKeyOrder:              {"ACP-EVT-01"},
	ref.FaultConclusionSectionDropped:   {"ACP-DOC-05"},
	ref.FaultObsoleteFileDropped:        {"ACP-VAL-03"},
	ref.FaultProtocolFileDropped:        {"ACP-VAL-02"},
	ref.FaultAbsentFieldDrift:           {"ACP-VAL-08"},
	ref.FaultProposalWithoutDeliverable: {"ACP-V2-DELIV-01"},
	ref.FaultReadinessWithoutFreeze:     {"ACP-V2-DELIV-03"},
	ref.FaultFreezeHashUnchecked:        {"ACP-V2-DELIV-03"},
	ref.FaultReviseAfterFreeze:          {"ACP-V2-DELIV-02"},
	ref.FaultRefreeze:                   {"ACP-V2-DELIV-03"},
	ref.FaultSchemaVersionIgnored:       {"ACP-V2-VAL-01"},
}

func TestEveryFaultHasANegativeControl(t *testing.T) {
	for _, f := range ref.Faults {
		if _, ok := negativeControls[f]; !ok {
			t.Errorf("planted fault %q has no entry in negativeControls", f)
		}
	}
	if len(ref.Faults) < 12 {
		t.Errorf("only %d planted faults; keep at least one per MUST area", len(ref.Faults))
	}
}

// TestChecksCatchPlantedFaults runs the checks of each fault's rules
// against the reference with that one fault planted.
func TestChecksCatchPlantedFaults(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, acp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	for _, fault := range ref.Faults {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			target := acp.RunTarget{New: func(context.Context) (acp.Target, func(), error) {
				return inproc.ACP{Faults: []ref.Fault{fault}}, func() {}, nil
			}}
			rules := negativeControls[fault]
			run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "faulty", Rules: rules})
			if err != nil {
				t.Fatal(err)
			}
			var caughtBy []string
			for _, tc := range run.Tests {
				if tc.Status == engine.Fail || tc.Status == engine.Warn {
					caughtBy = append(caughtBy, tc.ID)
				}
			}
			if len(caughtBy) == 0 {
				t.Fatalf("no check of %s caught the planted fault %q", strings.Join(rules, ", "), fault)
			}
			t.Logf("caught by %s", strings.Join(caughtBy, ", "))
		})
	}
}
