package kungfu_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/inproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	ref "github.com/sifu-dev/sifu/reference/kungfu"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// negativeControls maps every planted fault of the reference to the rules
// whose checks must catch it. Each fault must make at least one check that
// evidences one of these rules fail: a check that cannot fail is no evidence.
var negativeControls = map[ref.Fault][]string{
	ref.FaultNonAuthorWrites:          {"KF-5-04"},
	ref.FaultStartsPublic:             {"KF-5-03"},
	ref.FaultMutableVersions:          {"KF-5-06", "KF-L1-02"},
	ref.FaultWithdrawNotTerminal:      {"KF-5-05"},
	ref.FaultReplayDrift:              {"KF-L3-04"},
	ref.FaultReplayReexecutes:         {"KF-L3-02"},
	ref.FaultConflictIgnored:          {"KF-L3-03"},
	ref.FaultExistenceLeak:            {"KF-12-07"},
	ref.FaultImplicitSuccess:          {"KF-L2-06"},
	ref.FaultNoNextStep:               {"KF-L2-04", "KF-8-14"},
	ref.FaultStrangerReadsOldVersions: {"KF-5-09"},
	ref.FaultUpdateChangesVisibility:  {"KF-5-08"},
	ref.FaultListsWithdrawn:           {"KF-5-11"},
	ref.FaultNoRateLimit:              {"KF-L4-05"},
	ref.FaultDeactivatedActs:          {"KF-4-01"},
	ref.FaultDeactivationErases:       {"KF-4-04"},
	ref.FaultContentInStructure:       {"KF-L6-01", "KF-12-01"},
	ref.FaultSharedKeys:               {"KF-L3-01", "KF-9-13"},
	ref.FaultLostUpdate:               {"KF-L5-01"},
	ref.FaultRestartForgetsUpdates:    {"KF-L1-01", "KF-L1-04"},
	ref.FaultPhantomObligation:        {"KF-1-03"},
	ref.FaultPartialEffect:            {"KF-L2-03", "KF-L2-01"},
	ref.FaultCompensation:             {"KF-L2-07", "KF-L4-06"},
	ref.FaultContentActs:              {"KF-L6-03"},
	ref.FaultRevokedReads:             {"KF-9-18"},
	ref.FaultPublicListsWithdrawn:     {"KF-5-11"},
	ref.FaultOwnTaskTake:              {"KF-7.2-03"},
	ref.FaultRevisionRebinds:          {"KF-7.1-07", "KF-7.1-08", "KF-2-08"},
	ref.FaultInputDrift:               {"KF-7.1-02", "KF-9-10"},
	ref.FaultSecondDelivery:           {"KF-7.3-08"},
	ref.FaultRestrictedLeak:           {"KF-7.2-01", "KF-9-09"},
	ref.FaultCapCountsRejections:      {"KF-7.4-01"},
	ref.FaultCapRace:                  {"KF-7.4-02"},
	ref.FaultRejectWithoutReason:      {"KF-7.3-10"},
	ref.FaultJudgeByAnyone:            {"KF-7-01", "KF-8-05"},
	ref.FaultNoDeliveryTimeout:        {"KF-7.3-07"},
	ref.FaultRepeatTakeCreates:        {"KF-7.3-05", "KF-L2-05"},
	ref.FaultAuthorCancels:            {"KF-7.3-13"},
	ref.FaultDeactivationCancels:      {"KF-7.3-12"},
	ref.FaultDefaultIgnored:           {"KF-7.1-04", "KF-7.3-11"},
	ref.FaultEngagementLeak:           {"KF-9-11"},

	// Thread profile faults (reference/kungfu/faults_thread.go).
	ref.FaultNoDeadlines:            {"KF-6.4-16", "KF-6.4-17", "KF-L4-03"},
	ref.FaultRespondersWidened:      {"KF-6.3-10"},
	ref.FaultReplyKeepsResponse:     {"KF-6.3-12"},
	ref.FaultNoteLeaks:              {"KF-6.3-16", "KF-9-07"},
	ref.FaultSecretReplayed:         {"KF-L3-06", "KF-6.1-07", "KF-12-03"},
	ref.FaultReissueKeepsOldGrant:   {"KF-6.1-05", "KF-12-05"},
	ref.FaultLastGovernorLeaves:     {"KF-6.2-06", "KF-6.2-07"},
	ref.FaultCloseKeepsResponses:    {"KF-6.5-03"},
	ref.FaultLeaveKeepsAssignments:  {"KF-6.2-13", "KF-6.2-14"},
	ref.FaultJudgeAfterForfeit:      {"KF-6.2-16", "KF-6.4-08"},
	ref.FaultSecondTake:             {"KF-6.4-15"},
	ref.FaultOthersPinSurvives:      {"KF-5-15", "KF-5-13", "KF-9-05"},
	ref.FaultOwnPinLost:             {"KF-5-14"},
	ref.FaultWithdrawnPinnable:      {"KF-5-10"},
	ref.FaultDemotionKeepsResponses: {"KF-6.2-10"},
	ref.FaultOrphanThreadStaysOpen:  {"KF-4-07"},
	ref.FaultHandleTwice:            {"KF-L5-02"},
	ref.FaultDoubleVerdict:          {"KF-L5-03", "KF-6.4-20"},
	ref.FaultFormerMemberReads:      {"KF-9-14"},
	ref.FaultVoidKeepsGrant:         {"KF-6.1-06"},

	// References between threads and Tasks (reference/kungfu/faults_thread.go).
	ref.FaultTaskRefGrantsAccess:      {"KF-7.5-02"},
	ref.FaultTaskRefCreatesObligation: {"KF-7.5-02", "KF-2-09"},
	ref.FaultConversionExists:         {"KF-2-10", "KF-7.5-03", "KF-2-09"},

	// Entry references that name a thread, and the author's Task listing.
	ref.FaultCrossThreadReply:      {"KF-6.3-03", "KF-6.5-08"},
	ref.FaultCrossThreadEntry:      {"KF-9-04", "KF-6.5-08", "KF-6.3-15"},
	ref.FaultRejectedCreateRecords: {"KF-L2-03", "KF-7-02"},

	// Role matrices (features/kungfu/roles_thread.feature).
	ref.FaultObserverGoverns:         {"KF-6.1-09", "KF-6.2-03", "KF-6.5-01"},
	ref.FaultFormerMemberPosts:       {"KF-6.3-01", "KF-9-14"},
	ref.FaultAskFormerMember:         {"KF-6.3-04"},
	ref.FaultAssignFormerMember:      {"KF-6.4-01"},
	ref.FaultRoleChangeEndsResponses: {"KF-6.2-10"},
	ref.FaultNoteVisibleToGovernors:  {"KF-6.3-16", "KF-9-07"},
	ref.FaultGovernorOverrides:       {"KF-6.3-17", "KF-6.4-08", "KF-6.4-11"},
	ref.FaultRemovalDemotes:          {"KF-9-04", "KF-9-14", "KF-6.2-12"},
	ref.FaultPeersReadEngagements:    {"KF-9-11", "KF-7-01"},
	ref.FaultJudgeCancels:            {"KF-7.3-13"},

	// Version matrices (features/kungfu/versions_task.feature).
	ref.FaultDuesFollowCurrentVersion:     {"KF-7.1-07", "KF-7.1-09"},
	ref.FaultDefaultFollowsCurrentVersion: {"KF-7.1-04", "KF-7.1-07"},
	ref.FaultReadersFollowCurrentVersion:  {"KF-9-12", "KF-7.1-07"},
	ref.FaultInputsFollowCurrentVersion:   {"KF-7.1-02", "KF-9-10"},
	ref.FaultCapFollowsCurrentVersion:     {"KF-7.4-01", "KF-7.1-08"},

	// Deadline matrices (features/kungfu/deadlines_matrix.feature).
	ref.FaultDeliveryDueFromPost:           {"KF-6.4-04"},
	ref.FaultJudgmentDueFromTake:           {"KF-6.4-04"},
	ref.FaultTaskDeliveryDueFromVersion:    {"KF-7.1-09"},
	ref.FaultTaskJudgmentDueFromEngagement: {"KF-7.1-09"},
	ref.FaultForfeitEndsNow:                {"KF-6.2-15"},
	ref.FaultJudgeItemShowsDeliveryDue:     {"KF-L4-02", "KF-8-05"},

	// Rules re-examined from the not-black-box list.
	ref.FaultAgentsSetState: {"KF-4-03"},
}

func TestEveryFaultHasANegativeControl(t *testing.T) {
	for _, f := range ref.Faults {
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
	for _, fault := range ref.Faults {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
				k, err := inproc.NewKungfu(ref.WithFaults(fault))
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
