package acpref

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

	FaultUnlockedAppend             Fault = "unlocked-append"              // append takes no lock and writes both files in place, as upstream does
	FaultRawSeparators              Fault = "raw-separators"               // tools write U+0085, U+2028 and U+2029 raw inside event lines
	FaultAcceptsInvalidUTF8         Fault = "accepts-invalid-utf8"         // bytes that are not UTF-8 pass unnoticed
	FaultStopsAtBadLine             Fault = "stops-at-bad-line"            // the validator reads no event after an unparsable line
	FaultLenientSeqSeen             Fault = "lenient-seq-seen"             // a seq of 3.0 counts as event 3 for reply_to
	FaultOutOfPhaseKeepsPhase       Fault = "out-of-phase-keeps-phase"     // an out-of-phase question_classified or decision_accepted leaves the phase
	FaultUnsortedWaiting            Fault = "unsorted-waiting"             // waitingFor keeps the participants' order instead of sorting
	FaultEventKeyOrder              Fault = "event-key-order"              // event lines put from before seq
	FaultConclusionSectionDropped   Fault = "conclusion-section-dropped"   // the Next Action section of conclusion.md is not required
	FaultObsoleteFileDropped        Fault = "obsolete-file-dropped"        // opinions.md is not reported
	FaultProtocolFileDropped        Fault = "protocol-file-dropped"        // a missing conclusion.md is not reported
	FaultAbsentFieldDrift           Fault = "absent-field-drift"           // an absent proposalOwner or waitingFor is also reported as differing from the log
	FaultProposalWithoutDeliverable Fault = "proposal-without-deliverable" // v2: proposal_submitted without a drafted primary deliverable
	FaultReadinessWithoutFreeze     Fault = "readiness-without-freeze"     // v2: readiness_passed without a frozen primary deliverable
	FaultFreezeHashUnchecked        Fault = "freeze-hash-unchecked"        // v2: a freeze's sha256 is not compared with the file
	FaultReviseAfterFreeze          Fault = "revise-after-freeze"          // v2: the frozen primary deliverable may be revised
	FaultRefreeze                   Fault = "refreeze"                     // v2: the primary deliverable may be frozen twice
	FaultSchemaVersionIgnored       Fault = "schema-version-ignored"       // v2: protocol and schemaVersion are not checked
)

// Faults lists every planted fault.
var Faults = []Fault{
	FaultNonParticipantAppends, FaultAnyoneAdvances, FaultAnyPhase, FaultFirstReviewEndsRound,
	FaultAcceptUnclassified, FaultSkipReadinessGate, FaultNoReadyToImplement, FaultCompleteWithoutReadiness,
	FaultCompleteAnyDoc, FaultUncheckedGates, FaultIncompleteConclusion, FaultNoReplyTo, FaultDanglingReplyTo,
	FaultReinitOverwrites, FaultRewritesHistory, FaultBlockAfterCompleted, FaultSeqGapMissed,
	FaultTimeRegressionMissed, FaultReviewHeadingUnchecked, FaultStaleFilesIgnored, FaultProtocolDriftIgnored,
	FaultNoWarnings, FaultWaitIgnoresTurn, FaultNextAlwaysYourTurn,
	FaultUnlockedAppend, FaultRawSeparators, FaultAcceptsInvalidUTF8, FaultStopsAtBadLine, FaultLenientSeqSeen,
	FaultOutOfPhaseKeepsPhase, FaultUnsortedWaiting, FaultEventKeyOrder, FaultConclusionSectionDropped,
	FaultObsoleteFileDropped, FaultProtocolFileDropped, FaultAbsentFieldDrift,
	FaultProposalWithoutDeliverable, FaultReadinessWithoutFreeze, FaultFreezeHashUnchecked, FaultReviseAfterFreeze,
	FaultRefreeze, FaultSchemaVersionIgnored,
}
