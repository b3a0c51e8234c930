package kcpref

// CaughtBy names, for every planted fault, the rules whose checks must
// catch it: a fault counts as caught (sifu selftest, the suite's negative
// test) only when a check that evidences one of these rules fails on it.
// A check that cannot fail is no evidence; one that fails for another
// rule's reason is no evidence of this one.
var CaughtBy = map[Fault][]string{
	FaultAudienceIgnored:            {"KCP-4"},
	FaultNotForIgnored:              {"KCP-4"},
	FaultExpiryIgnored:              {"KCP-4.22"},
	FaultDeprecatedKept:             {"KCP-4.22"},
	FaultGatesSwapped:               {"KCP-4", "KCP-4.22"},
	FaultSupersessionIgnored:        {"KCP-4.22"},
	FaultReasonReworded:             {"KCP-15"},
	FaultBudgetUnchecked:            {"KCP-4.14"},
	FaultContextUnchecked:           {"KCP-4.15"},
	FaultRestrictedOpen:             {"KCP-4.11"},
	FaultAttestationIgnored:         {"KCP-3.2"},
	FaultSkillsEligible:             {"KCP-4.3a"},
	FaultTieBreakReversed:           {"KCP-15"},
	FaultMaxUnitsOffByOne:           {"KCP-15"},
	FaultCurrencyIgnored:            {"KCP-4.14"},
	FaultStrictKeepsUnsized:         {"KCP-4.15"},
	FaultUnaffordableSelected:       {"KCP-4.14", "KCP-fail-closed"},
	FaultAuthenticatedReasonDropped: {"KCP-4.11"},
	FaultNoteReworded:               {"KCP-plan-json"},
	FaultShortTermsKept:             {"KCP-15"},
	FaultValidFromExclusive:         {"KCP-4.22"},
	FaultBudgetCeilingExclusive:     {"KCP-4.14"},
	FaultContextCeilingExclusive:    {"KCP-4.15"},
	FaultBytesFloor:                 {"KCP-4.15"},
	FaultMaxUnitsFloored:            {"KCP-15"},
	FaultAuthorityAtCeilingRefused:  {"KCP-4.3a"},
	FaultSpendAtMaxRefused:          {"KCP-4.3a"},
	FaultDenyStarCrossesSlash:       {"KCP-4.3a"},
	FaultDriftStubbed:               {"KCP-mcp-dedup"},
	FaultEscalationAllFire:          {"KCP-4.3a"},
	FaultSelfReportOneDivided:       {"KCP-confidence-gate"},
	FaultReplayDriftIgnored:         {"KCP-cmd-replay"},
	FaultValidateExitsZero:          {"KCP-cmd-validate"},
	// signatures
	FaultTamperAccepted:           {"KCP-sig-tamper"},
	FaultTrustKeyIgnored:          {"KCP-sig-trust-key"},
	FaultUnsignedSatisfiesRequire: {"KCP-sig-require"},
	FaultHexSignatureUnread:       {"KCP-sig-encodings"},
	FaultNoVerifyIgnored:          {"KCP-sig-no-verify"},
	FaultMCPSignatureUnchecked:    {"KCP-sig-mcp"},
	FaultNewlineStrict:            {"KCP-sig-verify"},
	FaultUnverifiableRefused:      {"KCP-sig-unverifiable"},
	FaultEnvelopeKeyIgnored:       {"KCP-sig-encodings"},
}
