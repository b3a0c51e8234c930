package kungfu_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// negativeControls maps every planted fault of the reference to the rules
// whose checks must catch it. Each fault must make at least one check that
// evidences one of these rules fail: a check that cannot fail is no evidence.
var negativeControls = map[kungfuref.Fault][]string{
	kungfuref.FaultNonAuthorWrites:          {"KF-5-04"},
	kungfuref.FaultStartsPublic:             {"KF-5-03"},
	kungfuref.FaultMutableVersions:          {"KF-5-06", "KF-L1-02"},
	kungfuref.FaultWithdrawNotTerminal:      {"KF-5-05"},
	kungfuref.FaultReplayDrift:              {"KF-L3-04"},
	kungfuref.FaultReplayReexecutes:         {"KF-L3-02"},
	kungfuref.FaultConflictIgnored:          {"KF-L3-03"},
	kungfuref.FaultExistenceLeak:            {"KF-12-07"},
	kungfuref.FaultImplicitSuccess:          {"KF-L2-06"},
	kungfuref.FaultNoNextStep:               {"KF-L2-04", "KF-8-14"},
	kungfuref.FaultStrangerReadsOldVersions: {"KF-5-09"},
	kungfuref.FaultUpdateChangesVisibility:  {"KF-5-08"},
	kungfuref.FaultListsWithdrawn:           {"KF-5-11"},
	kungfuref.FaultNoRateLimit:              {"KF-L4-05"},
	kungfuref.FaultDeactivatedActs:          {"KF-4-01"},
	kungfuref.FaultDeactivationErases:       {"KF-4-04"},
	kungfuref.FaultContentInStructure:       {"KF-L6-01", "KF-12-01"},
	kungfuref.FaultSharedKeys:               {"KF-L3-01", "KF-9-13"},
	kungfuref.FaultLostUpdate:               {"KF-L5-01"},
	kungfuref.FaultRestartForgetsUpdates:    {"KF-L1-01", "KF-L1-04"},
	kungfuref.FaultPhantomObligation:        {"KF-1-03"},
	kungfuref.FaultPartialEffect:            {"KF-L2-03", "KF-L2-01"},
	kungfuref.FaultCompensation:             {"KF-L2-07", "KF-L4-06"},
	kungfuref.FaultContentActs:              {"KF-L6-03"},
	kungfuref.FaultRevokedReads:             {"KF-9-18"},
	kungfuref.FaultPublicListsWithdrawn:     {"KF-5-11"},
	kungfuref.FaultOwnTaskTake:              {"KF-7.2-03"},
	kungfuref.FaultRevisionRebinds:          {"KF-7.1-07", "KF-7.1-08", "KF-2-08"},
	kungfuref.FaultInputDrift:               {"KF-7.1-02", "KF-9-10"},
	kungfuref.FaultSecondDelivery:           {"KF-7.3-08"},
	kungfuref.FaultRestrictedLeak:           {"KF-7.2-01", "KF-9-09"},
	kungfuref.FaultCapCountsRejections:      {"KF-7.4-01"},
	kungfuref.FaultCapRace:                  {"KF-7.4-02"},
	kungfuref.FaultRejectWithoutReason:      {"KF-7.3-10"},
	kungfuref.FaultJudgeByAnyone:            {"KF-7-01", "KF-8-05"},
	kungfuref.FaultNoDeliveryTimeout:        {"KF-7.3-07"},
	kungfuref.FaultRepeatTakeCreates:        {"KF-7.3-05", "KF-L2-05"},
	kungfuref.FaultAuthorCancels:            {"KF-7.3-13"},
	kungfuref.FaultDeactivationCancels:      {"KF-7.3-12"},
	kungfuref.FaultDefaultIgnored:           {"KF-7.1-04", "KF-7.3-11"},
	kungfuref.FaultEngagementLeak:           {"KF-9-11"},

	// Thread profile faults (reference/kungfu/faults_thread.go).
	kungfuref.FaultNoDeadlines:            {"KF-6.4-16", "KF-6.4-17", "KF-L4-03"},
	kungfuref.FaultRespondersWidened:      {"KF-6.3-10"},
	kungfuref.FaultReplyKeepsResponse:     {"KF-6.3-12"},
	kungfuref.FaultNoteLeaks:              {"KF-6.3-16", "KF-9-07"},
	kungfuref.FaultSecretReplayed:         {"KF-L3-06", "KF-6.1-07", "KF-12-03"},
	kungfuref.FaultReissueKeepsOldGrant:   {"KF-6.1-05", "KF-12-05"},
	kungfuref.FaultLastGovernorLeaves:     {"KF-6.2-06", "KF-6.2-07"},
	kungfuref.FaultCloseKeepsResponses:    {"KF-6.5-03"},
	kungfuref.FaultLeaveKeepsAssignments:  {"KF-6.2-13", "KF-6.2-14"},
	kungfuref.FaultJudgeAfterForfeit:      {"KF-6.2-16", "KF-6.4-08"},
	kungfuref.FaultSecondTake:             {"KF-6.4-15"},
	kungfuref.FaultOthersPinSurvives:      {"KF-5-15", "KF-5-13", "KF-9-05"},
	kungfuref.FaultOwnPinLost:             {"KF-5-14"},
	kungfuref.FaultWithdrawnPinnable:      {"KF-5-10"},
	kungfuref.FaultDemotionKeepsResponses: {"KF-6.2-10"},
	kungfuref.FaultOrphanThreadStaysOpen:  {"KF-4-07"},
	kungfuref.FaultHandleTwice:            {"KF-L5-02"},
	kungfuref.FaultDoubleVerdict:          {"KF-L5-03", "KF-6.4-20"},
	kungfuref.FaultFormerMemberReads:      {"KF-9-14"},
	kungfuref.FaultVoidKeepsGrant:         {"KF-6.1-06"},

	// References between threads and Tasks (reference/kungfu/faults_thread.go).
	kungfuref.FaultTaskRefGrantsAccess:      {"KF-7.5-02"},
	kungfuref.FaultTaskRefCreatesObligation: {"KF-7.5-02", "KF-2-09"},
	kungfuref.FaultConversionExists:         {"KF-2-10", "KF-7.5-03", "KF-2-09"},

	// Entry references that name a thread, and the author's Task listing.
	kungfuref.FaultCrossThreadReply:      {"KF-6.3-03", "KF-6.5-08"},
	kungfuref.FaultCrossThreadEntry:      {"KF-9-04", "KF-6.5-08", "KF-6.3-15"},
	kungfuref.FaultRejectedCreateRecords: {"KF-L2-03", "KF-7-02"},

	// Role matrices (features/kungfu/roles_thread.feature).
	kungfuref.FaultObserverGoverns:         {"KF-6.1-09", "KF-6.2-03", "KF-6.5-01"},
	kungfuref.FaultFormerMemberPosts:       {"KF-6.3-01", "KF-9-14"},
	kungfuref.FaultAskFormerMember:         {"KF-6.3-04"},
	kungfuref.FaultAssignFormerMember:      {"KF-6.4-01"},
	kungfuref.FaultRoleChangeEndsResponses: {"KF-6.2-10"},
	kungfuref.FaultNoteVisibleToGovernors:  {"KF-6.3-16", "KF-9-07"},
	kungfuref.FaultGovernorOverrides:       {"KF-6.3-17", "KF-6.4-08", "KF-6.4-11"},
	kungfuref.FaultRemovalDemotes:          {"KF-9-04", "KF-9-14", "KF-6.2-12"},
	kungfuref.FaultPeersReadEngagements:    {"KF-9-11", "KF-7-01"},
	kungfuref.FaultJudgeCancels:            {"KF-7.3-13"},

	// Version matrices (features/kungfu/versions_task.feature).
	kungfuref.FaultDuesFollowCurrentVersion:     {"KF-7.1-07", "KF-7.1-09"},
	kungfuref.FaultDefaultFollowsCurrentVersion: {"KF-7.1-04", "KF-7.1-07"},
	kungfuref.FaultReadersFollowCurrentVersion:  {"KF-9-12", "KF-7.1-07"},
	kungfuref.FaultInputsFollowCurrentVersion:   {"KF-7.1-02", "KF-9-10"},
	kungfuref.FaultCapFollowsCurrentVersion:     {"KF-7.4-01", "KF-7.1-08"},

	// Deadline matrices (features/kungfu/deadlines_matrix.feature).
	kungfuref.FaultDeliveryDueFromPost:           {"KF-6.4-04"},
	kungfuref.FaultJudgmentDueFromTake:           {"KF-6.4-04"},
	kungfuref.FaultTaskDeliveryDueFromVersion:    {"KF-7.1-09"},
	kungfuref.FaultTaskJudgmentDueFromEngagement: {"KF-7.1-09"},
	kungfuref.FaultForfeitEndsNow:                {"KF-6.2-15"},
	kungfuref.FaultJudgeItemShowsDeliveryDue:     {"KF-L4-02", "KF-8-05"},

	// Rules re-examined from the not-black-box list.
	kungfuref.FaultAgentsSetState: {"KF-4-03"},
}

func TestEveryFaultHasANegativeControl(t *testing.T) {
	for _, f := range kungfuref.Faults {
		if _, ok := negativeControls[f]; !ok {
			t.Errorf("planted fault %q has no entry in negativeControls", f)
		}
	}
}

// TestChecksCatchPlantedFaults runs every profile the reference claims
// against the reference with one fault planted at a time.
func TestChecksCatchPlantedFaults(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	for _, fault := range kungfuref.Faults {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
				k, err := kungfuinproc.New(kungfuref.WithFaults(fault))
				return k, func() {}, err
			}}
			run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "faulty"})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, id := range negativeControls[fault] {
				want[id] = true
			}
			var caughtBy, failed []string
			for _, tc := range run.Tests {
				if tc.Status == engine.HarnessError || tc.Status == engine.Timeout {
					t.Errorf("%s ended %s under fault %s: %s", tc.ID, tc.Status, fault, tc.Message)
				}
				if tc.Status != engine.Fail {
					continue
				}
				failed = append(failed, tc.ID)
				for _, id := range tc.Rules {
					if want[id] {
						caughtBy = append(caughtBy, tc.ID)
						break
					}
				}
			}
			if len(caughtBy) == 0 {
				sort.Strings(failed)
				t.Errorf("fault %s was not caught by any check of %v (failed checks: %s)",
					fault, negativeControls[fault], strings.Join(failed, ", "))
			}
		})
	}
}
