package agentkitref

// CaughtBy names, for every planted fault, the rules whose checks must
// catch it: a fault counts as caught (sifu selftest, the suite's negative
// test) only when a check that evidences one of these rules fails on it.
// A check that cannot fail is no evidence; one that fails for another
// rule's reason is no evidence of this one.
var CaughtBy = map[Fault][]string{
	FaultEffectTwice:          {"AK-SUSPEND-09"},
	FaultSSENoDone:            {"AK-SSE-03", "AK-SSE-04"},
	FaultInflightReexecuted:   {"AK-SUSPEND-10"},
	FaultResumeAnySession:     {"AK-SUSPEND-03"},
	FaultWrongErrorText:       {"AK-HTTP-05", "AK-CTL-02", "AK-A2A-04"},
	FaultAcceptInvalidConfig:  {"AK-CONFIG-01"},
	FaultApprovalText:         {"AK-SUSPEND-06"},
	FaultA2AErrorStatus:       {"AK-A2A-03"},
	FaultLenientApprove:       {"AK-SUSPEND-08"},
	FaultHealthzBody:          {"AK-HTTP-01"},
	FaultNoSessionEcho:        {"AK-HTTP-02", "AK-SUSPEND-01"},
	FaultSessionFormat:        {"AK-HTTP-03"},
	FaultUnknownAgent500:      {"AK-HTTP-04"},
	FaultLongUserAccepted:     {"AK-HTTP-06"},
	FaultAnyMethod:            {"AK-HTTP-07"},
	FaultRunError200:          {"AK-HTTP-08", "AK-SUSPEND-12"},
	FaultNoAskUser:            {"AK-HTTP-09", "AK-SUSPEND-01"},
	FaultNoCacheHeader:        {"AK-SSE-01"},
	FaultErrorEvent:           {"AK-SSE-04"},
	FaultSSEAskFails:          {"AK-SSE-05"},
	FaultControl200:           {"AK-CTL-01"},
	FaultIgnoreInterrupt:      {"AK-CTL-03"},
	FaultA2ANoDescription:     {"AK-A2A-01"},
	FaultA2AResultKey:         {"AK-A2A-02"},
	FaultA2ASharedSession:     {"AK-A2A-05"},
	FaultWaitingNoSession:     {"AK-SUSPEND-01"},
	FaultNoResume:             {"AK-SUSPEND-02"},
	FaultForgetOnRestart:      {"AK-SUSPEND-04"},
	FaultStaleTurn:            {"AK-SUSPEND-05"},
	FaultStrictApprove:        {"AK-SUSPEND-07"},
	FaultDenyEndsTurn:         {"AK-SUSPEND-08"},
	FaultAutoAsks:             {"AK-SUSPEND-11"},
	FaultNoBudget:             {"AK-SUSPEND-12"},
	FaultLenientConfig:        {"AK-CONFIG-02", "AK-CONFIG-03", "AK-CONFIG-04", "AK-CONFIG-05", "AK-CONFIG-06", "AK-CONFIG-07", "AK-CONFIG-09", "AK-CONFIG-10", "AK-CONFIG-11", "AK-CONFIG-12"},
	FaultRejectBoundary:       {"AK-CONFIG-08"},
	FaultNoToolRename:         {"AK-HTTP-10"},
	FaultSSEBuffered:          {"AK-SSE-02"},
	FaultDivergentAnswer:      {"AK-SUSPEND-13"},
	FaultKeepDangerous:        {"AK-TOOL-06"},
	FaultUndeclaredArgs:       {"AK-TOOL-01", "AK-TOOL-02"},
	FaultToolErrorFails:       {"AK-TOOL-03"},
	FaultNoDedup:              {"AK-TOOL-08"},
	FaultRiskDefault:          {"AK-TOOL-05"},
	FaultArgsInBody:           {"AK-TOOL-04"},
	FaultTruncateBytes:        {"AK-TOOL-07"},
	FaultPolicyLastMatch:      {"AK-POLICY-02"},
	FaultPolicyIgnoresArgs:    {"AK-POLICY-01"},
	FaultPolicyRawArgs:        {"AK-POLICY-02"},
	FaultPolicyDenyAsks:       {"AK-POLICY-01"},
	FaultMemoryWithoutWindow:  {"AK-SESSION-02"},
	FaultNoSessionMemory:      {"AK-SESSION-01"},
	FaultMemoryAcrossSessions: {"AK-SESSION-01"},
	FaultNoRetry:              {"AK-RETRY-01"},
	FaultRetryDeterministic:   {"AK-RETRY-02"},
	FaultUnknownKeys:          {"AK-CONFIG-13"},
	FaultParamTypes:           {"AK-CONFIG-14"},
	FaultRiskLevels:           {"AK-CONFIG-14"},
	FaultSelfImport:           {"AK-CONFIG-15"},
	FaultNoDeliverables:       {"AK-HTTP-11"},
	FaultEffectKeyByTool:      {"AK-SUSPEND-14"},
	FaultApprovalByTool:       {"AK-SUSPEND-14"},
	FaultCanonicalArgs:        {"AK-SUSPEND-06"},
	FaultCJKUntrimmed:         {"AK-SUSPEND-07"},
	FaultUserRunes:            {"AK-HTTP-06"},
	FaultSessionKeyASCII:      {"AK-SUSPEND-03"},
	FaultStreamArgsFirst:      {"AK-SSE-03"},
	FaultAcceptExact:          {"AK-SSE-01"},
	FaultCoerceInput:          {"AK-HTTP-05"},
	FaultCorruptPending500:    {"AK-SUSPEND-15"},
	FaultNoSessionLock:        {"AK-SESSION-03"},
	FaultMCPBareText:          {"AK-MCP-03"},
	FaultMCPIgnoreAllowList:   {"AK-MCP-04"},
	FaultMCPOptionalFatal:     {"AK-MCP-08"},
	FaultMCPRiskMutating:      {"AK-MCP-05"},
	FaultMCPPrefixedNames:     {"AK-MCP-01"},
	FaultMCPDeclaredArgs:      {"AK-MCP-02"},
	FaultMCPNoApproval:        {"AK-MCP-06"},
	FaultMCPErrorHidden:       {"AK-MCP-07"},
	FaultMCPRequiredSkipped:   {"AK-MCP-09"},
	FaultMCPFirstSource:       {"AK-MCP-10"},

	FaultCatalogLastWins:    {"AK-CAT-01"},
	FaultCatalogFirstWins:   {"AK-CAT-02"},
	FaultIncludeOverExclude: {"AK-CAT-03"},
	FaultKindUnchecked:      {"AK-CAT-04"},
	FaultVersionIgnored:     {"AK-CAT-05"},
	FaultRenameUnsanitized:  {"AK-CAT-06"},
	FaultHTTPSourceProbed:   {"AK-CAT-07"},
	FaultExecReadonly:       {"AK-EXEC-01"},
	FaultExecArgsDropped:    {"AK-EXEC-02"},
	FaultExecExitHidden:     {"AK-EXEC-03"},
	FaultNoLocalTool:        {"AK-LOCAL-01"},
	FaultStatus400OK:        {"AK-TOOL-03"},
	FaultPathQueryEscape:    {"AK-TOOL-04"},
	FaultHeadReadonly:       {"AK-TOOL-05"},
	FaultTruncateAtLimit:    {"AK-TOOL-07"},
	FaultSSEFirstErrorEvent: {"AK-SSE-04"},
	FaultEmptyIncludeAll:    {"AK-CAT-08"},
}

// supplyCaughtBy are the rules of the remote agents, vector, prompt and
// secret faults.
var supplyCaughtBy = map[Fault][]string{
	FaultA2APrefixedNames: {"AK-REMOTE-01"},
	FaultA2AWholeArgs:     {"AK-REMOTE-02"},
	FaultA2AReadonly:      {"AK-REMOTE-03"},
	FaultA2AAllowList:     {"AK-REMOTE-04"},
	FaultA2AErrorHidden:   {"AK-REMOTE-05"},
	FaultA2ANoHeaders:     {"AK-REMOTE-06"},
	FaultVectorMutating:   {"AK-RAG-01"},
	FaultVectorEveryDoc:   {"AK-RAG-02"},
	FaultVectorNoTopK:     {"AK-RAG-03"},
	FaultVectorNoTruncate: {"AK-RAG-03"},

	FaultPromptLiteral:       {"AK-PROMPT-01"},
	FaultPromptNoLabel:       {"AK-PROMPT-02"},
	FaultPromptRefAnywhere:   {"AK-PROMPT-03"},
	FaultPromptMissingEmpty:  {"AK-PROMPT-04"},
	FaultSecretsUnexpanded:   {"AK-SECRET-01"},
	FaultSecretFileIgnored:   {"AK-SECRET-02"},
	FaultSecretMissingEmpty:  {"AK-SECRET-03"},
	FaultSecretsInComments:   {"AK-SECRET-04"},
	FaultMCPEffectTwice:      {"AK-MCP-11"},
	FaultTodoNotOffered:      {"AK-TODO-01"},
	FaultTodoUnchecked:       {"AK-TODO-02"},
	FaultTodoNotShown:        {"AK-TODO-03"},
	FaultTodoShared:          {"AK-TODO-03"},
	FaultStructuredProse:     {"AK-STRUCT-01"},
	FaultStructuredNoFix:     {"AK-STRUCT-02"},
	FaultStructuredFailOpen:  {"AK-STRUCT-03"},
	FaultTrajectoryNoTools:   {"AK-TRACE-01"},
	FaultTrajectoryNoSession: {"AK-TRACE-01"},
	FaultDigestNever:         {"AK-DIGEST-01"},
	FaultReadResultLost:      {"AK-DIGEST-02"},
	FaultDigestAlways:        {"AK-DIGEST-03"},
}

// storesCaughtBy are the rules of the faults of MCP approval rules and
// admission, tool_timeout, remember, deliver modes and stores.
var storesCaughtBy = map[Fault][]string{
	FaultMCPRulesIgnored:       {"AK-MCP-12"},
	FaultMCPDangerousDropped:   {"AK-MCP-13"},
	FaultToolTimeoutIgnored:    {"AK-RELY-01"},
	FaultToolTimeoutFailsTurn:  {"AK-RELY-01"},
	FaultRememberPlain:         {"AK-POLICY-03"},
	FaultAttachAlways:          {"AK-DELIVER-01"},
	FaultEvidenceDelivered:     {"AK-DELIVER-01"},
	FaultDirectIgnored:         {"AK-DELIVER-02"},
	FaultDirectAnyCall:         {"AK-DELIVER-02"},
	FaultSessionStoreIgnored:   {"AK-STORE-01"},
	FaultMemoryOneBucket:       {"AK-MEMORY-01"},
	FaultMemoryAnonymousShared: {"AK-MEMORY-02"},
}

// keepingCaughtBy are the rules of the faults of compaction, memory scopes
// and module store slots.
var keepingCaughtBy = map[Fault][]string{
	FaultCompactionKeepsAll:    {"AK-COMPACT-01"},
	FaultCompactionSplitsPairs: {"AK-COMPACT-01"},
	FaultRollingSummaryIgnored: {"AK-COMPACT-02"},
	FaultToolClearIgnored:      {"AK-COMPACT-03"},
	FaultSeedNotShared:         {"AK-MEMORY-03"},
	FaultSharedWriteAsUser:     {"AK-MEMORY-04"},
	FaultSessionScopeShared:    {"AK-MEMORY-05"},
	FaultRecallAnyUser:         {"AK-MEMORY-06"},
	FaultModuleSlotsUnchecked:  {"AK-STORE-02"},
	FaultTodoStoreIgnored:      {"AK-STORE-03"},
}

func init() {
	for f, rules := range keepingCaughtBy {
		CaughtBy[f] = rules
	}
	for f, rules := range supplyCaughtBy {
		CaughtBy[f] = rules
	}
	for f, rules := range storesCaughtBy {
		CaughtBy[f] = rules
	}
}
