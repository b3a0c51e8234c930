package kcpref

// Fault is a deliberate bug that can be planted in the planner, so that a
// check can show it catches the behaviour it claims to check. A fault is
// chosen through Options.Faults, which no vector or flag can set.
type Fault string

// The planted faults: each breaks one gate, reason or budget rule.
const (
	FaultAudienceIgnored      Fault = "audience-ignored"      // the audience gate lets every role through
	FaultNotForIgnored        Fault = "not-for-ignored"       // not_for never excludes a unit
	FaultExpiryIgnored        Fault = "expiry-ignored"        // an expired unit stays relevant
	FaultDeprecatedKept       Fault = "deprecated-kept"       // deprecated units are not skipped
	FaultGatesSwapped         Fault = "gates-swapped"         // deprecation is checked before the temporal window
	FaultSupersessionIgnored  Fault = "supersession-ignored"  // an active successor does not replace its predecessor
	FaultReasonReworded       Fault = "reason-reworded"       // the relevance reason string is reworded
	FaultBudgetUnchecked      Fault = "budget-unchecked"      // the money ceiling is never applied
	FaultContextUnchecked     Fault = "context-unchecked"     // the context ceiling is never applied
	FaultRestrictedOpen       Fault = "restricted-open"       // restricted units are eligible without credentials
	FaultAttestationIgnored   Fault = "attestation-ignored"   // required attestation is never asked for
	FaultSkillsEligible       Fault = "skills-eligible"       // skills and playbooks need no eligibility grant
	FaultTieBreakReversed     Fault = "tie-break-reversed"    // equal scores are ordered by id descending
	FaultMaxUnitsOffByOne     Fault = "max-units-off-by-one"  // one unit more than maxUnits is selected
	FaultCurrencyIgnored      Fault = "currency-ignored"      // a price in another currency counts against the budget
	FaultStrictKeepsUnsized   Fault = "strict-keeps-unsized"  // strict mode selects units that declare no size
	FaultUnaffordableSelected Fault = "unaffordable-selected" // a unit with no usable payment method stays eligible

	// Faults only the selected units' reasons, the governance blocks, the
	// boundary vectors or the plan-json answers catch.
	FaultAuthenticatedReasonDropped Fault = "authenticated-reason-dropped" // an authenticated unit without credentials says nothing about it
	FaultNoteReworded               Fault = "note-reworded"                // the budget note of a plan without a budget is reworded
	FaultShortTermsKept             Fault = "short-terms-kept"             // task terms of two characters are kept
	FaultValidFromExclusive         Fault = "valid-from-exclusive"         // a unit valid from asOf is not active yet
	FaultBudgetCeilingExclusive     Fault = "budget-ceiling-exclusive"     // a price that exactly fills the money ceiling is over it
	FaultContextCeilingExclusive    Fault = "context-ceiling-exclusive"    // a size that exactly fills the token ceiling is over it
	FaultBytesFloor                 Fault = "bytes-floor"                  // bytes/4 is rounded down
	FaultMaxUnitsFloored            Fault = "max-units-floored"            // a fractional maxUnits is rounded down
	FaultAuthorityAtCeilingRefused  Fault = "authority-at-ceiling-refused" // a step at the ceiling's own level is refused
	FaultSpendAtMaxRefused          Fault = "spend-at-max-refused"         // a proposed spend equal to max_spend is refused
	FaultDenyStarCrossesSlash       Fault = "deny-star-crosses-slash"      // a deny path's * matches across a slash
	FaultEscalationAllFire          Fault = "escalation-all-fire"          // insufficient_authority_level is owed by every step that declares it
	FaultSelfReportOneDivided       Fault = "self-report-one-divided"      // a self-reported confidence of exactly 1 is read as 1 %

	// A fault of the MCP surface, which only the mcp checks catch.
	FaultDriftStubbed Fault = "drift-stubbed" // kcp_load stubs a known unit whose bytes drifted

	// Faults of the other commands (kcpcli): only the command vectors
	// catch them.
	FaultReplayDriftIgnored Fault = "replay-drift-ignored" // replay reports identical whatever drifted
	FaultValidateExitsZero  Fault = "validate-exits-zero"  // validate exits 0 on a manifest with errors

	// Faults of signature verification (signatures profile): only the
	// command and mcp vectors over signed manifests catch them.
	FaultTamperAccepted           Fault = "tamper-accepted"            // an invalid signature is reported but the manifest is planned
	FaultTrustKeyIgnored          Fault = "trust-key-ignored"          // --trust-key is ignored: the manifest's own key verifies it
	FaultUnsignedSatisfiesRequire Fault = "unsigned-satisfies-require" // --require-signature lets an unsigned manifest through
	FaultHexSignatureUnread       Fault = "hex-signature-unread"       // a hex signature is read as base64
	FaultNoVerifyIgnored          Fault = "no-verify-ignored"          // --no-verify still verifies (and refuses)
	FaultMCPSignatureUnchecked    Fault = "mcp-signature-unchecked"    // the MCP tools plan a manifest without verifying it
	FaultNewlineStrict            Fault = "newline-strict"             // only the exact bytes are tried, not them with one trailing newline
	FaultUnverifiableRefused      Fault = "unverifiable-refused"       // an unverifiable signature refuses the manifest without --require-signature
	FaultEnvelopeKeyIgnored       Fault = "envelope-key-ignored"       // the key in a JSON signature envelope is never used

	// Faults of the network boundary (network profile).
	FaultCleartextAllowed    Fault = "cleartext-allowed"     // http:// is fetched without --allow-private-hosts
	FaultMappedV6Allowed     Fault = "mapped-v6-allowed"     // an IPv4-mapped IPv6 address is not decoded, so ::ffff:127.0.0.1 passes
	FaultRedirectsUnbounded  Fault = "redirects-unbounded"   // redirects are followed past the bound
	FaultSizeUncapped        Fault = "size-uncapped"         // a body over 8 MiB is read whole
	FaultGatedRefFetched     Fault = "gated-ref-fetched"     // --follow fetches a ref whose credential the agent lacks
	FaultAllowPrivateIgnored Fault = "allow-private-ignored" // --allow-private-hosts changes nothing
	FaultMCPAllowIgnored     Fault = "mcp-allow-ignored"     // the MCP tools ignore allow_private_hosts

	// Faults of the HTTP server (kcpcli's serve): only the serve checks
	// catch them.
	FaultServeAuthIgnored            Fault = "serve-auth-ignored"             // --api-key is never asked for
	FaultServeHealthGuarded          Fault = "serve-health-guarded"           // /health asks for the API key too
	FaultServeHealthToolsMiscounted  Fault = "serve-health-tools-miscounted"  // /health counts one tool fewer
	FaultServeTraceAsPlan            Fault = "serve-trace-as-plan"            // POST /trace answers the plan tree
	FaultServeRouteUnknownOK         Fault = "serve-route-unknown-ok"         // an unknown route answers 200
	FaultServeDefaultManifestIgnored Fault = "serve-default-manifest-ignored" // --manifest is not put in a call that names none
	FaultServeLinkSignatureDropped   Fault = "serve-link-signature-dropped"   // the signature's Link line is left out
	FaultServePublicURLUnchecked     Fault = "serve-public-url-unchecked"     // --public-url is never checked against serving.mcp
	FaultServeMCPToolDropped         Fault = "serve-mcp-tool-dropped"         // /mcp lists every tool but kcp_replay
)

// Faults of signature verification over serve (serve's REST and /mcp):
// only the serve vectors over signed manifests catch them.
const (
	FaultServeSignatureFlagsIgnored Fault = "serve-signature-flags-ignored" // serve takes --no-verify, --require-signature and --trust-key but verifies as if none were given
	FaultServeTraceUnverified       Fault = "serve-trace-unverified"        // POST /trace traces a manifest without verifying its signature
)

// Faults of watch without --once (scaffold profile): only the command
// vectors whose command keeps running catch them.
const (
	FaultWatchPlanStale        Fault = "watch-plan-stale"         // each cycle re-plans over the manifest as the first cycle read it
	FaultWatchDiffAgainstFirst Fault = "watch-diff-against-first" // --diff compares each cycle's plan with the first cycle's, not the previous one's
)

// Faults of ask --follow (ask profile).
const (
	FaultAskFollowRootOnly Fault = "ask-follow-root-only" // ask --follow plans the tree but answers from the root's units only
)

// A fault of kcp_plan's arguments (mcp profile): only the corpus's
// kcp_plan answers (vectors/kcp/mcp/corpus) catch it.
const (
	FaultMCPAttestDropped Fault = "mcp-attest-dropped" // the MCP tools plan as if no attest argument were given
)

// Faults of episodic memory (remember, recall, plan --memory, grounded
// replay): only the memory vectors catch them.
const (
	FaultMemoryKeepsContent   Fault = "memory-keeps-content"    // remember stores the unit bytes (content keys kept)
	FaultMemoryIDUnstripped   Fault = "memory-id-unstripped"    // an entry's id is the sha256 of the artifact before stripping
	FaultMemoryTrustsEntries  Fault = "memory-trusts-entries"   // an entry whose id does not match its artifact is recalled
	FaultRecallUnranked       Fault = "recall-unranked"         // recall keeps the store's order instead of ranking by overlap
	FaultRecallLimitIgnored   Fault = "recall-limit-ignored"    // recall --limit returns every hit
	FaultRecallReplayExitZero Fault = "recall-replay-exit-zero" // recall --replay exits 0 with a drifted hit
	FaultMemoryReusesDrifted  Fault = "memory-reuses-drifted"   // plan --memory calls a plan over changed bytes identical
	FaultMemoryIgnoresOptions Fault = "memory-ignores-options"  // plan --memory matches an episode of other options
	FaultGroundedIgnoresDrift Fault = "grounded-ignores-drift"  // grounded replay calls a changed unit still grounded
	FaultCheckGapsCloses      Fault = "check-gaps-closes"       // --check-gaps reports a gap closed where nothing was re-grounded
)

// Faults of the publisher tools (init, watch): only the scaffold vectors
// catch them.
const (
	FaultInitOverwrites    Fault = "init-overwrites"     // init writes over an existing knowledge.yaml without --force
	FaultInitDryRunWrites  Fault = "init-dry-run-writes" // init --dry-run writes the file too
	FaultLlmsOffSiteUnits  Fault = "llms-off-site-units" // an llms.txt link to another origin becomes a unit
	FaultLlmsNoTodos       Fault = "llms-no-todos"       // the llms.txt draft marks nothing it could not say as TODO
	FaultWatchExitsZero    Fault = "watch-exits-zero"    // watch --once exits 0 on a manifest with errors
	FaultDiscoverUnguarded Fault = "discover-unguarded"  // discover fetches loopback hosts without --allow-private-hosts
	FaultDiscoverNoLlms    Fault = "discover-no-llms"    // discover crawls without checking the site's llms.txt
)

// Faults of the other JSON outputs over the corpus (plan --trace --json,
// replay --json, diff --json): the cli goldens of vectors/kcp/cli/<kind>
// catch them.
const (
	FaultTraceSizedByID             Fault = "trace-sized-by-id"             // the trace sizes a unit as the last unit of its id, as the plan does
	FaultReplayContextBudgetDropped Fault = "replay-context-budget-dropped" // replay re-plans without the saved context budget
	FaultDiffWarningsIgnored        Fault = "diff-warnings-ignored"         // diff reports no warning added or removed
)

// Faults lists every planted fault.
var Faults = []Fault{
	FaultAudienceIgnored, FaultNotForIgnored, FaultExpiryIgnored, FaultDeprecatedKept, FaultGatesSwapped,
	FaultSupersessionIgnored, FaultReasonReworded, FaultBudgetUnchecked, FaultContextUnchecked,
	FaultRestrictedOpen, FaultAttestationIgnored, FaultSkillsEligible, FaultTieBreakReversed,
	FaultMaxUnitsOffByOne, FaultCurrencyIgnored, FaultStrictKeepsUnsized, FaultUnaffordableSelected,
	FaultAuthenticatedReasonDropped, FaultNoteReworded, FaultShortTermsKept, FaultValidFromExclusive,
	FaultBudgetCeilingExclusive, FaultContextCeilingExclusive, FaultBytesFloor, FaultMaxUnitsFloored,
	FaultAuthorityAtCeilingRefused, FaultSpendAtMaxRefused, FaultDenyStarCrossesSlash, FaultEscalationAllFire,
	FaultSelfReportOneDivided, FaultDriftStubbed, FaultReplayDriftIgnored, FaultValidateExitsZero,
	// memory
	FaultMemoryKeepsContent, FaultMemoryIDUnstripped, FaultMemoryTrustsEntries, FaultRecallUnranked,
	FaultRecallLimitIgnored, FaultRecallReplayExitZero, FaultMemoryReusesDrifted, FaultMemoryIgnoresOptions,
	FaultGroundedIgnoresDrift, FaultCheckGapsCloses,
	// scaffold
	FaultInitOverwrites, FaultInitDryRunWrites, FaultLlmsOffSiteUnits, FaultLlmsNoTodos, FaultWatchExitsZero,
	FaultDiscoverUnguarded, FaultDiscoverNoLlms,
	// serve
	FaultServeAuthIgnored, FaultServeHealthGuarded, FaultServeHealthToolsMiscounted, FaultServeTraceAsPlan,
	FaultServeRouteUnknownOK, FaultServeDefaultManifestIgnored, FaultServeLinkSignatureDropped,
	FaultServePublicURLUnchecked, FaultServeMCPToolDropped,
	// signatures
	FaultTamperAccepted, FaultTrustKeyIgnored, FaultUnsignedSatisfiesRequire, FaultHexSignatureUnread,
	FaultNoVerifyIgnored, FaultMCPSignatureUnchecked, FaultNewlineStrict, FaultUnverifiableRefused, FaultEnvelopeKeyIgnored,
	// network
	FaultCleartextAllowed, FaultMappedV6Allowed, FaultRedirectsUnbounded, FaultSizeUncapped, FaultGatedRefFetched,
	FaultAllowPrivateIgnored, FaultMCPAllowIgnored,
	// cli goldens
	FaultTraceSizedByID, FaultReplayContextBudgetDropped, FaultDiffWarningsIgnored,
	// signatures over serve
	FaultServeSignatureFlagsIgnored, FaultServeTraceUnverified,
	// watch without --once
	FaultWatchPlanStale, FaultWatchDiffAgainstFirst,
	// ask --follow
	FaultAskFollowRootOnly,
	// kcp_plan's arguments
	FaultMCPAttestDropped,
}

// hasFault reports whether f is among faults.
func hasFault(faults []Fault, f Fault) bool {
	for _, x := range faults {
		if x == f {
			return true
		}
	}
	return false
}

// has reports whether a fault is planted; the planner asks only on the
// paths a fault changes, so an honest plan pays one length check.
func (e *effective) has(f Fault) bool { return hasFault(e.faults, f) }

// reverseTies reverses each run of equal scores in a sorted order (the
// tie-break-reversed fault).
func reverseTies(store []SelectedUnit, order []int32) {
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && store[order[j]].Score == store[order[i]].Score {
			j++
		}
		for a, b := i, j-1; a < b; a, b = a+1, b-1 {
			order[a], order[b] = order[b], order[a]
		}
		i = j
	}
}

// HasFault reports whether f is among faults (for the command line, which
// plants the faults of its own commands).
func HasFault(faults []Fault, f Fault) bool { return hasFault(faults, f) }
