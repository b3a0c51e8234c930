package acp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/acpinproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/acpref"
	"github.com/sifu-dev/sifu/suite/acp"
)

// negativeControls maps every planted fault of the reference to the rules
// whose checks must catch it: each fault must make at least one check of
// these rules fail. A check that cannot fail is no evidence.
var negativeControls = map[acpref.Fault][]string{
	acpref.FaultNonParticipantAppends:      {"ACP-EVT-04"},
	acpref.FaultAnyoneAdvances:             {"ACP-TRANS-01", "ACP-TRANS-03", "ACP-TRANS-07"},
	acpref.FaultAnyPhase:                   {"ACP-TRANS-10"},
	acpref.FaultFirstReviewEndsRound:       {"ACP-TRANS-03"},
	acpref.FaultAcceptUnclassified:         {"ACP-TRANS-06"},
	acpref.FaultSkipReadinessGate:          {"ACP-DOC-02"},
	acpref.FaultNoReadyToImplement:         {"ACP-DOC-03"},
	acpref.FaultCompleteWithoutReadiness:   {"ACP-TRANS-08"},
	acpref.FaultCompleteAnyDoc:             {"ACP-TRANS-08"},
	acpref.FaultUncheckedGates:             {"ACP-DOC-04"},
	acpref.FaultIncompleteConclusion:       {"ACP-DOC-05"},
	acpref.FaultNoReplyTo:                  {"ACP-EVT-02"},
	acpref.FaultDanglingReplyTo:            {"ACP-EVT-03"},
	acpref.FaultReinitOverwrites:           {"ACP-INIT-03"},
	acpref.FaultRewritesHistory:            {"ACP-EVT-06"},
	acpref.FaultBlockAfterCompleted:        {"ACP-STRICT-BLOCKED-AFTER-COMPLETED"},
	acpref.FaultSeqGapMissed:               {"ACP-VAL-07"},
	acpref.FaultTimeRegressionMissed:       {"ACP-EVT-07"},
	acpref.FaultReviewHeadingUnchecked:     {"ACP-DOC-01"},
	acpref.FaultStaleFilesIgnored:          {"ACP-VAL-03"},
	acpref.FaultProtocolDriftIgnored:       {"ACP-VAL-08"},
	acpref.FaultNoWarnings:                 {"ACP-VAL-11"},
	acpref.FaultWaitIgnoresTurn:            {"ACP-CLI-04"},
	acpref.FaultNextAlwaysYourTurn:         {"ACP-CLI-01"},
	acpref.FaultUnlockedAppend:             {"ACP-EVT-08"},
	acpref.FaultRawSeparators:              {"ACP-EVT-11"},
	acpref.FaultAcceptsInvalidUTF8:         {"ACP-VAL-13"},
	acpref.FaultStopsAtBadLine:             {"ACP-VAL-06"},
	acpref.FaultLenientSeqSeen:             {"ACP-EVT-03"},
	acpref.FaultOutOfPhaseKeepsPhase:       {"ACP-TRANS-10"},
	acpref.FaultUnsortedWaiting:            {"ACP-TRANS-01", "ACP-TRANS-05"},
	acpref.FaultEventKeyOrder:              {"ACP-EVT-01"},
	acpref.FaultConclusionSectionDropped:   {"ACP-DOC-05"},
	acpref.FaultObsoleteFileDropped:        {"ACP-VAL-03"},
	acpref.FaultProtocolFileDropped:        {"ACP-VAL-02"},
	acpref.FaultAbsentFieldDrift:           {"ACP-VAL-08"},
	acpref.FaultProposalWithoutDeliverable: {"ACP-V2-DELIV-01"},
	acpref.FaultReadinessWithoutFreeze:     {"ACP-V2-DELIV-03"},
	acpref.FaultFreezeHashUnchecked:        {"ACP-V2-DELIV-03"},
	acpref.FaultReviseAfterFreeze:          {"ACP-V2-DELIV-02"},
	acpref.FaultRefreeze:                   {"ACP-V2-DELIV-03"},
	acpref.FaultSchemaVersionIgnored:       {"ACP-V2-VAL-01"},
}

func TestEveryFaultHasANegativeControl(t *testing.T) {
	for _, f := range acpref.Faults {
		if _, ok := negativeControls[f]; !ok {
			t.Errorf("planted fault %q has no entry in negativeControls", f)
		}
	}
	if len(acpref.Faults) < 12 {
		t.Errorf("only %d planted faults; keep at least one per MUST area", len(acpref.Faults))
	}
}

// TestChecksCatchPlantedFaults runs the checks of each fault's rules
// against the reference with that one fault planted.
func TestChecksCatchPlantedFaults(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, acp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	for _, fault := range acpref.Faults {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			target := acp.RunTarget{New: func(context.Context) (acp.Target, func(), error) {
				return acpinproc.Reference{Faults: []acpref.Fault{fault}}, func() {}, nil
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
