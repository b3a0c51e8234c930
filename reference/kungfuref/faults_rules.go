package kungfuref

// CaughtBy names, for every planted fault, the rules whose checks must
// catch it: a fault counts as caught (sifu selftest, the suite's negative
// test) only when a check that evidences one of these rules fails on it.
// A check that cannot fail is no evidence; one that fails for another
// rule's reason is no evidence of this one.
var CaughtBy = map[Fault][]string{
	FaultNonAuthorWrites:          {"KF-5-04"},
	FaultStartsPublic:             {"KF-5-03"},
	FaultMutableVersions:          {"KF-5-06", "KF-L1-02"},
	FaultWithdrawNotTerminal:      {"KF-5-05"},
	FaultReplayDrift:              {"KF-L3-04"},
	FaultReplayReexecutes:         {"KF-L3-02"},
	FaultConflictIgnored:          {"KF-L3-03"},
	FaultExistenceLeak:            {"KF-12-07"},
	FaultImplicitSuccess:          {"KF-L2-06"},
	FaultNoNextStep:               {"KF-L2-04", "KF-8-14"},
	FaultStrangerReadsOldVersions: {"KF-5-09"},
	FaultUpdateChangesVisibility:  {"KF-5-08"},
	FaultListsWithdrawn:           {"KF-5-11"},
	FaultNoRateLimit:              {"KF-L4-05"},
	FaultDeactivatedActs:          {"KF-4-01"},
	FaultDeactivationErases:       {"KF-4-04"},
	FaultContentInStructure:       {"KF-L6-01", "KF-12-01"},
	FaultSharedKeys:               {"KF-L3-01", "KF-9-13"},
	FaultLostUpdate:               {"KF-L5-01"},
	FaultRestartForgetsUpdates:    {"KF-L1-01", "KF-L1-04"},
	FaultPhantomObligation:        {"KF-1-03"},
	FaultPartialEffect:            {"KF-L2-03", "KF-L2-01"},
	FaultCompensation:             {"KF-L2-07", "KF-L4-06"},
	FaultContentActs:              {"KF-L6-03"},
	FaultRevokedReads:             {"KF-9-18"},
	FaultPublicListsWithdrawn:     {"KF-5-11"},
	FaultOwnTaskTake:              {"KF-7.2-03"},
	FaultRevisionRebinds:          {"KF-7.1-07", "KF-7.1-08", "KF-2-08"},
	FaultInputDrift:               {"KF-7.1-02", "KF-9-10"},
	FaultSecondDelivery:           {"KF-7.3-08"},
	FaultRestrictedLeak:           {"KF-7.2-01", "KF-9-09"},
	FaultCapCountsRejections:      {"KF-7.4-01"},
	FaultCapRace:                  {"KF-7.4-02"},
	FaultRejectWithoutReason:      {"KF-7.3-10"},
	FaultJudgeByAnyone:            {"KF-7-01", "KF-8-05"},
	FaultNoDeliveryTimeout:        {"KF-7.3-07"},
	FaultRepeatTakeCreates:        {"KF-7.3-05", "KF-L2-05"},
	FaultAuthorCancels:            {"KF-7.3-13"},
	FaultDeactivationCancels:      {"KF-7.3-12"},
	FaultDefaultIgnored:           {"KF-7.1-04", "KF-7.3-11"},
	FaultEngagementLeak:           {"KF-9-11"},

	// Thread profile faults (reference/kungfu/faults_thread.go).
	FaultNoDeadlines:            {"KF-6.4-16", "KF-6.4-17", "KF-L4-03"},
	FaultRespondersWidened:      {"KF-6.3-10"},
	FaultReplyKeepsResponse:     {"KF-6.3-12"},
	FaultNoteLeaks:              {"KF-6.3-16", "KF-9-07"},
	FaultSecretReplayed:         {"KF-L3-06", "KF-6.1-07", "KF-12-03"},
	FaultReissueKeepsOldGrant:   {"KF-6.1-05", "KF-12-05"},
	FaultLastGovernorLeaves:     {"KF-6.2-06", "KF-6.2-07"},
	FaultCloseKeepsResponses:    {"KF-6.5-03"},
	FaultLeaveKeepsAssignments:  {"KF-6.2-13", "KF-6.2-14"},
	FaultJudgeAfterForfeit:      {"KF-6.2-16", "KF-6.4-08"},
	FaultSecondTake:             {"KF-6.4-15"},
	FaultOthersPinSurvives:      {"KF-5-15", "KF-5-13", "KF-9-05"},
	FaultOwnPinLost:             {"KF-5-14"},
	FaultWithdrawnPinnable:      {"KF-5-10"},
	FaultDemotionKeepsResponses: {"KF-6.2-10"},
	FaultOrphanThreadStaysOpen:  {"KF-4-07"},
	FaultHandleTwice:            {"KF-L5-02"},
	FaultDoubleVerdict:          {"KF-L5-03", "KF-6.4-20"},
	FaultFormerMemberReads:      {"KF-9-14"},
	FaultVoidKeepsGrant:         {"KF-6.1-06"},

	// References between threads and Tasks (reference/kungfu/faults_thread.go).
	FaultTaskRefGrantsAccess:      {"KF-7.5-02"},
	FaultTaskRefCreatesObligation: {"KF-7.5-02", "KF-2-09"},
	FaultConversionExists:         {"KF-2-10", "KF-7.5-03", "KF-2-09"},

	// Entry references that name a thread, and the author's Task listing.
	FaultCrossThreadReply:      {"KF-6.3-03", "KF-6.5-08"},
	FaultCrossThreadEntry:      {"KF-9-04", "KF-6.5-08", "KF-6.3-15"},
	FaultRejectedCreateRecords: {"KF-L2-03", "KF-7-02"},

	// Role matrices (features/kungfu/roles_thread.feature).
	FaultObserverGoverns:         {"KF-6.1-09", "KF-6.2-03", "KF-6.5-01"},
	FaultFormerMemberPosts:       {"KF-6.3-01", "KF-9-14"},
	FaultAskFormerMember:         {"KF-6.3-04"},
	FaultAssignFormerMember:      {"KF-6.4-01"},
	FaultRoleChangeEndsResponses: {"KF-6.2-10"},
	FaultNoteVisibleToGovernors:  {"KF-6.3-16", "KF-9-07"},
	FaultGovernorOverrides:       {"KF-6.3-17", "KF-6.4-08", "KF-6.4-11"},
	FaultRemovalDemotes:          {"KF-9-04", "KF-9-14", "KF-6.2-12"},
	FaultPeersReadEngagements:    {"KF-9-11", "KF-7-01"},
	FaultJudgeCancels:            {"KF-7.3-13"},

	// Version matrices (features/kungfu/versions_task.feature).
	FaultDuesFollowCurrentVersion:     {"KF-7.1-07", "KF-7.1-09"},
	FaultDefaultFollowsCurrentVersion: {"KF-7.1-04", "KF-7.1-07"},
	FaultReadersFollowCurrentVersion:  {"KF-9-12", "KF-7.1-07"},
	FaultInputsFollowCurrentVersion:   {"KF-7.1-02", "KF-9-10"},
	FaultCapFollowsCurrentVersion:     {"KF-7.4-01", "KF-7.1-08"},

	// Deadline matrices (features/kungfu/deadlines_matrix.feature).
	FaultDeliveryDueFromPost:           {"KF-6.4-04"},
	FaultJudgmentDueFromTake:           {"KF-6.4-04"},
	FaultTaskDeliveryDueFromVersion:    {"KF-7.1-09"},
	FaultTaskJudgmentDueFromEngagement: {"KF-7.1-09"},
	FaultForfeitEndsNow:                {"KF-6.2-15"},
	FaultJudgeItemShowsDeliveryDue:     {"KF-L4-02", "KF-8-05"},

	// Rules re-examined from the not-black-box list.
	FaultAgentsSetState: {"KF-4-03"},
}
