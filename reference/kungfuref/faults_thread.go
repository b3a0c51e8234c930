package kungfuref

// Faults planted in the Thread profile (§6, §8 responses and assignments,
// §9 thread rows, §4 deactivation effects on threads, §5 pins).
const (
	FaultNoDeadlines            Fault = "no-deadlines"             // assignment deadlines never pass
	FaultRespondersWidened      Fault = "responders-widened"       // a late joiner owes responses to earlier entries
	FaultReplyKeepsResponse     Fault = "reply-keeps-response"     // replying leaves the replier's own response pending
	FaultNoteLeaks              Fault = "note-leaks"               // every member reads a handle note
	FaultSecretReplayed         Fault = "secret-replayed"          // a replayed admission shows its secret again
	FaultReissueKeepsOldGrant   Fault = "reissue-keeps-old-grant"  // a new admission leaves the old one live
	FaultLastGovernorLeaves     Fault = "last-governor-leaves"     // the last governor may leave an open thread
	FaultCloseKeepsResponses    Fault = "close-keeps-responses"    // closing leaves pending responses pending
	FaultLeaveKeepsAssignments  Fault = "leave-keeps-assignments"  // a membership ending voids no assignment
	FaultJudgeAfterForfeit      Fault = "judge-after-forfeit"      // a creator judges after its right was forfeited
	FaultSecondTake             Fault = "second-take"              // taking a taken assignment again succeeds
	FaultOthersPinSurvives      Fault = "others-pin-survives"      // a pin of another's Memory stays readable once private
	FaultOwnPinLost             Fault = "own-pin-lost"             // a pin of one's own Memory dies with its withdrawal
	FaultWithdrawnPinnable      Fault = "withdrawn-pinnable"       // an author may pin its withdrawn Memory
	FaultDemotionKeepsResponses Fault = "demotion-keeps-responses" // a member demoted to observer still owes responses
	FaultVoidKeepsGrant         Fault = "void-keeps-grant"         // voiding an admission answers voided but the grant stays live
	FaultOrphanThreadStaysOpen  Fault = "orphan-thread-stays-open" // deactivating the last governor leaves the thread open
	FaultHandleTwice            Fault = "handle-twice"             // an ended response can be handled (ended) again
	FaultDoubleVerdict          Fault = "double-verdict"           // a judged assignment can be judged again
	FaultFormerMemberReads      Fault = "former-member-reads"      // a member who left still reads the working set
)

func init() {
	Faults = append(Faults, FaultNoDeadlines, FaultRespondersWidened, FaultReplyKeepsResponse, FaultNoteLeaks,
		FaultSecretReplayed, FaultReissueKeepsOldGrant, FaultLastGovernorLeaves, FaultCloseKeepsResponses,
		FaultLeaveKeepsAssignments, FaultJudgeAfterForfeit, FaultSecondTake, FaultOthersPinSurvives,
		FaultOwnPinLost, FaultWithdrawnPinnable, FaultDemotionKeepsResponses, FaultOrphanThreadStaysOpen,
		FaultHandleTwice, FaultDoubleVerdict, FaultFormerMemberReads, FaultVoidKeepsGrant)
}

// Faults planted for references between threads and Tasks (§2, §7.5).
const (
	FaultTaskRefGrantsAccess      Fault = "task-ref-grants-access"      // members who see a Task reference read the Task and its engagements directly
	FaultTaskRefCreatesObligation Fault = "task-ref-creates-obligation" // a Task referenced in a thread is a deliver duty of its members
	FaultConversionExists         Fault = "conversion-exists"           // task.create from_assignment moves an assignment into a new Task
)

func init() {
	Faults = append(Faults, FaultTaskRefGrantsAccess, FaultTaskRefCreatesObligation, FaultConversionExists)
}

// Faults planted for entry references that name a thread (§6.3, §6.5, §9).
const (
	FaultCrossThreadReply Fault = "cross-thread-reply" // reply_to may name an entry of another thread the poster is in
	FaultCrossThreadEntry Fault = "cross-thread-entry" // handle, retract, entry and expand follow a reference into another thread
)

func init() { Faults = append(Faults, FaultCrossThreadReply, FaultCrossThreadEntry) }

// Faults planted for the role matrices: each lets one more role through a
// rule that names roles (§6.1, §6.2, §6.3, §6.4, §9).
const (
	FaultObserverGoverns         Fault = "observer-governs"           // only speakers are kept from governing; observers admit, remove, set roles and close
	FaultFormerMemberPosts       Fault = "former-member-posts"        // a member who left may still post as a speaker
	FaultAskFormerMember         Fault = "ask-former-member"          // ask may name a member who left
	FaultAssignFormerMember      Fault = "assign-former-member"       // an assignment may be addressed to a member who left
	FaultRoleChangeEndsResponses Fault = "role-change-ends-responses" // every role change, not only a demotion to observer, ends pending responses
	FaultNoteVisibleToGovernors  Fault = "note-visible-to-governors"  // governors read every handle note
	FaultGovernorOverrides       Fault = "governor-overrides"         // a governor may retract any entry and void or judge any assignment
	FaultRemovalDemotes          Fault = "removal-demotes"            // a removed member stays on as an observer and still reads
)

func init() {
	Faults = append(Faults, FaultObserverGoverns, FaultFormerMemberPosts, FaultAskFormerMember, FaultAssignFormerMember,
		FaultRoleChangeEndsResponses, FaultNoteVisibleToGovernors, FaultGovernorOverrides, FaultRemovalDemotes)
}

// Faults planted for the deadline matrix: a deadline that runs from the
// wrong instant, which only shows when the clock moves between the steps
// (§6.4, §7.1: delivery deadlines run from the take or the engagement,
// judgment deadlines from the delivery; §6.2: a forfeited judgment ends at
// its deadline).
const (
	FaultDeliveryDueFromPost           Fault = "delivery-due-from-post"            // an assignment's delivery deadline runs from its post
	FaultJudgmentDueFromTake           Fault = "judgment-due-from-take"            // an assignment's judgment deadline runs from the take
	FaultTaskDeliveryDueFromVersion    Fault = "task-delivery-due-from-version"    // an engagement's delivery deadline runs from its contract version
	FaultTaskJudgmentDueFromEngagement Fault = "task-judgment-due-from-engagement" // an engagement's judgment deadline runs from the engagement
	FaultForfeitEndsNow                Fault = "forfeit-ends-now"                  // a forfeited judgment ends undecided when the membership ends
	FaultJudgeItemShowsDeliveryDue     Fault = "judge-item-shows-delivery-due"     // an assignment's judge duty in the turn carries its delivery deadline
)

func init() {
	Faults = append(Faults, FaultDeliveryDueFromPost, FaultJudgmentDueFromTake, FaultTaskDeliveryDueFromVersion,
		FaultTaskJudgmentDueFromEngagement, FaultForfeitEndsNow, FaultJudgeItemShowsDeliveryDue)
}
