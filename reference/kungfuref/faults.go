package kungfuref

// Fault is a deliberate bug that can be planted in the reference, so that a
// conformance check can show it catches the behaviour it claims to check.
type Fault string

// The planted faults. Each breaks one guard of the protocol.
const (
	FaultNonAuthorWrites          Fault = "non-author-writes"           // anyone may update a Memory they can read
	FaultStartsPublic             Fault = "starts-public"               // a new Memory is public
	FaultMutableVersions          Fault = "mutable-versions"            // an update rewrites older versions
	FaultWithdrawNotTerminal      Fault = "withdraw-not-terminal"       // a withdrawn Memory still takes versions
	FaultReplayDrift              Fault = "replay-drift"                // a replay answers with present state
	FaultReplayReexecutes         Fault = "replay-reexecutes"           // a replay performs the action again
	FaultConflictIgnored          Fault = "conflict-ignored"            // a reused key with other params runs
	FaultExistenceLeak            Fault = "existence-leak"              // private Memories answer "forbidden"
	FaultImplicitSuccess          Fault = "implicit-success"            // publishing a public Memory succeeds
	FaultNoNextStep               Fault = "no-next-step"                // rejections carry no next step
	FaultStrangerReadsOldVersions Fault = "stranger-reads-old-versions" // others may pick any version
	FaultUpdateChangesVisibility  Fault = "update-changes-visibility"   // an update makes a Memory private
	FaultListsWithdrawn           Fault = "lists-withdrawn"             // listings show withdrawn Memories
	FaultNoRateLimit              Fault = "no-rate-limit"               // cheap actions are unbounded
	FaultDeactivatedActs          Fault = "deactivated-acts"            // deactivated agents may act
	FaultDeactivationErases       Fault = "deactivation-erases"         // deactivation withdraws the agent's Memories
	FaultContentInStructure       Fault = "content-in-structure"        // JSON content leaks into structural fields
	FaultSharedKeys               Fault = "shared-keys"                 // idempotency records are not per agent
	FaultLostUpdate               Fault = "lost-update"                 // concurrent updates may share a version
)

// Faults planted for the invariants that no Memory guard above covers.
const (
	FaultRestartForgetsUpdates Fault = "restart-forgets-updates" // rebuilding from the log skips updates
	FaultPhantomObligation     Fault = "phantom-obligation"      // the turn shows an obligation §8 does not define
	FaultPartialEffect         Fault = "partial-effect"          // a rejected update still records a version
	FaultCompensation          Fault = "compensation"            // a rate-limited create records a notice Memory
	FaultContentActs           Fault = "content-acts"            // content saying #publish publishes the Memory
	FaultRevokedReads          Fault = "revoked-reads"           // once public, always readable by others
	FaultPublicListsWithdrawn  Fault = "public-lists-withdrawn"  // only the author's own listing drops a withdrawn Memory
)

// Faults lists every planted fault.
var Faults = []Fault{
	FaultNonAuthorWrites, FaultStartsPublic, FaultMutableVersions, FaultWithdrawNotTerminal,
	FaultReplayDrift, FaultReplayReexecutes, FaultConflictIgnored, FaultExistenceLeak,
	FaultImplicitSuccess, FaultNoNextStep, FaultStrangerReadsOldVersions, FaultUpdateChangesVisibility,
	FaultListsWithdrawn, FaultNoRateLimit, FaultDeactivatedActs, FaultDeactivationErases,
	FaultContentInStructure, FaultSharedKeys, FaultLostUpdate, FaultRestartForgetsUpdates,
	FaultPhantomObligation, FaultPartialEffect, FaultCompensation, FaultContentActs, FaultRevokedReads,
	FaultPublicListsWithdrawn,
}

// Faults planted in the Task profile (§7, §8, §9).
const (
	FaultOwnTaskTake         Fault = "own-task-take"         // the author may take its own Task
	FaultRevisionRebinds     Fault = "revision-rebinds"      // existing engagements follow the newest contract version
	FaultInputDrift          Fault = "input-drift"           // an engagement shows its inputs' current versions
	FaultSecondDelivery      Fault = "second-delivery"       // a second delivery replaces the first
	FaultRestrictedLeak      Fault = "restricted-leak"       // restricted Tasks are readable and takeable by anyone
	FaultCapCountsRejections Fault = "cap-counts-rejections" // rejected deliveries use up the adoption limit
	FaultCapRace             Fault = "cap-race"              // the adoption limit is checked apart from the adoption
	FaultRejectWithoutReason Fault = "reject-without-reason" // a rejection needs no reason
	FaultJudgeByAnyone       Fault = "judge-by-anyone"       // any party to an engagement may judge it
	FaultNoDeliveryTimeout   Fault = "no-delivery-timeout"   // delivery deadlines never pass
	FaultRepeatTakeCreates   Fault = "repeat-take-creates"   // a repeated take opens a second engagement
	FaultAuthorCancels       Fault = "author-cancels"        // the author may drop an engagement of its Task
	FaultDeactivationCancels Fault = "deactivation-cancels"  // deactivating the author cancels its engagements
	FaultDefaultIgnored      Fault = "default-ignored"       // a judgment deadline always ends undecided
	FaultEngagementLeak      Fault = "engagement-leak"       // anyone who sees a Task reads its engagements
)

func init() {
	Faults = append(Faults,
		FaultOwnTaskTake, FaultRevisionRebinds, FaultInputDrift, FaultSecondDelivery, FaultRestrictedLeak,
		FaultCapCountsRejections, FaultCapRace, FaultRejectWithoutReason, FaultJudgeByAnyone,
		FaultNoDeliveryTimeout, FaultRepeatTakeCreates, FaultAuthorCancels, FaultDeactivationCancels,
		FaultDefaultIgnored, FaultEngagementLeak,
	)
}

// FaultRejectedCreateRecords is planted for the Task listing: a task.create
// refused for its judge or audience still records the Task.
const FaultRejectedCreateRecords Fault = "rejected-create-records"

func init() { Faults = append(Faults, FaultRejectedCreateRecords) }

// FaultPeersReadEngagements is planted for the Task role matrix: every agent
// engaged on a Task reads, and may act on, the others' engagements too.
const FaultPeersReadEngagements Fault = "peers-read-engagements"

// FaultJudgeCancels is planted for the Task role matrix: a designated judge
// may drop (cancel) an engagement it would judge.
const FaultJudgeCancels Fault = "judge-cancels"

func init() { Faults = append(Faults, FaultPeersReadEngagements, FaultJudgeCancels) }

// Faults planted for the version matrix: a contract property read from the
// Task's current contract version instead of the version an engagement is
// bound to (§7.1: a revision binds only engagements formed after it).
const (
	FaultDuesFollowCurrentVersion     Fault = "dues-follow-current-version"     // deadlines follow the current version
	FaultDefaultFollowsCurrentVersion Fault = "default-follows-current-version" // the no-judgment outcome follows the current version
	FaultReadersFollowCurrentVersion  Fault = "readers-follow-current-version"  // who reads adoptions follows the current version
	FaultInputsFollowCurrentVersion   Fault = "inputs-follow-current-version"   // the bound inputs follow the current version
	FaultCapFollowsCurrentVersion     Fault = "cap-follows-current-version"     // the adoption limit follows the current version
)

func init() {
	Faults = append(Faults, FaultDuesFollowCurrentVersion, FaultDefaultFollowsCurrentVersion,
		FaultReadersFollowCurrentVersion, FaultInputsFollowCurrentVersion, FaultCapFollowsCurrentVersion)
}

// FaultAgentsSetState is planted for §4 (account state is the
// implementation's): an agent.deactivate action lets an agent set its own.
const FaultAgentsSetState Fault = "agents-set-state"

func init() { Faults = append(Faults, FaultAgentsSetState) }
