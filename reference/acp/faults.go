package acp

// Fault is a deliberate bug that can be planted in the reference, so that a
// conformance check can show it catches the behaviour it claims to check.
type Fault string

// The planted faults, each breaking one guard of the protocol.
const (
	FaultNonParticipantAppends    Fault = "non-participant-appends"    // append takes events from anyone
	FaultAnyoneAdvances           Fault = "anyone-advances"            // turn ownership is not enforced
	FaultAnyPhase                 Fault = "any-phase"                  // events are accepted from any phase
	FaultFirstReviewEndsRound     Fault = "first-review-ends-round"    // one review moves to revising
	FaultAcceptUnclassified       Fault = "accept-unclassified"        // decisions accepted before question_classified
	FaultSkipReadinessGate        Fault = "skip-readiness-gate"        // blocking/unresolved readiness items are ignored
	FaultNoReadyToImplement       Fault = "no-ready-to-implement"      // readiness_passed without the checklist item
	FaultCompleteWithoutReadiness Fault = "complete-without-readiness" // completed without readiness_passed
	FaultCompleteAnyDoc           Fault = "complete-any-doc"           // completed may reference any document
	FaultUncheckedGates           Fault = "unchecked-gates"            // completion gates are not checked
	FaultIncompleteConclusion     Fault = "incomplete-conclusion"      // conclusion.md is not checked
	FaultNoReplyTo                Fault = "no-reply-to"                // reply_to is optional
	FaultDanglingReplyTo          Fault = "dangling-reply-to"          // reply_to may name any seq
	FaultReinitOverwrites         Fault = "reinit-overwrites"          // init without --resume starts over
	FaultRewritesHistory          Fault = "rewrites-history"           // append re-encodes earlier event lines
	FaultBlockAfterCompleted      Fault = "block-after-completed"      // blocked is accepted after completed (strict)
	FaultSeqGapMissed             Fault = "seq-gap-missed"             // the validator misses seq gaps
	FaultTimeRegressionMissed     Fault = "time-regression-missed"     // the validator misses time going backwards
	FaultReviewHeadingUnchecked   Fault = "review-heading-unchecked"   // the validator ignores review.md headings
	FaultStaleFilesIgnored        Fault = "stale-files-ignored"        // the validator ignores obsolete files
	FaultProtocolDriftIgnored     Fault = "protocol-drift-ignored"     // the validator trusts protocol.json's state
	FaultNoWarnings               Fault = "no-warnings"                // the validator never warns
	FaultWaitIgnoresTurn          Fault = "wait-ignores-turn"          // wait returns at once for anyone
	FaultNextAlwaysYourTurn       Fault = "next-always-your-turn"      // next action tells everyone to act
)

// Faults lists every planted fault.
var Faults = []Fault{
	FaultNonParticipantAppends, FaultAnyoneAdvances, FaultAnyPhase, FaultFirstReviewEndsRound,
	FaultAcceptUnclassified, FaultSkipReadinessGate, FaultNoReadyToImplement, FaultCompleteWithoutReadiness,
	FaultCompleteAnyDoc, FaultUncheckedGates, FaultIncompleteConclusion, FaultNoReplyTo, FaultDanglingReplyTo,
	FaultReinitOverwrites, FaultRewritesHistory, FaultBlockAfterCompleted, FaultSeqGapMissed,
	FaultTimeRegressionMissed, FaultReviewHeadingUnchecked, FaultStaleFilesIgnored, FaultProtocolDriftIgnored,
	FaultNoWarnings, FaultWaitIgnoresTurn, FaultNextAlwaysYourTurn,
}
