package agentkitref

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Fault is a deliberate bug planted in the reference so that a check can
// show it catches what it claims to check. Select faults by name.
type Fault string

// The planted faults; each breaks one rule of the contract.
const (
	FaultEffectTwice         Fault = "effect-twice"          // a replay runs an approved effect again
	FaultSSENoDone           Fault = "sse-no-done"           // an SSE stream ends without data: [DONE]
	FaultInflightReexecuted  Fault = "inflight-reexecuted"   // a replay that finds an in-flight marker runs the effect
	FaultResumeAnySession    Fault = "resume-any-session"    // an answer on another session resumes the pending turn
	FaultWrongErrorText      Fault = "wrong-error-text"      // the 400 texts are paraphrased
	FaultAcceptInvalidConfig Fault = "accept-invalid-config" // session.window below keep_recent+2 starts
	FaultApprovalText        Fault = "approval-text"         // the approval question is worded differently
	FaultA2AErrorStatus      Fault = "a2a-error-status"      // a failing A2A task answers 500, not 200 {"error"}
	FaultLenientApprove      Fault = "lenient-approve"       // any reply approves

	FaultHealthzBody      Fault = "healthz-body"       // /healthz answers with a body
	FaultNoSessionEcho    Fault = "no-session-echo"    // the JSON answer names another session
	FaultSessionFormat    Fault = "session-format"     // generated sessions are sess-<hex>
	FaultUnknownAgent500  Fault = "unknown-agent-500"  // an unknown agent is a 500
	FaultLongUserAccepted Fault = "long-user-accepted" // the user field is not checked
	FaultAnyMethod        Fault = "any-method"         // routes answer every method
	FaultRunError200      Fault = "run-error-200"      // a failed turn answers 200 done
	FaultNoAskUser        Fault = "no-ask-user"        // ask_user is not offered to the model
	FaultNoCacheHeader    Fault = "no-cache-header"    // SSE without Cache-Control: no-cache
	FaultErrorEvent       Fault = "error-event"        // a mid-stream failure sends an error event
	FaultSSEAskFails      Fault = "sse-ask-fails"      // a question over SSE fails the turn
	FaultControl200       Fault = "control-200"        // control answers 200 with a body
	FaultIgnoreInterrupt  Fault = "ignore-interrupt"   // interrupt and steer do nothing
	FaultA2ANoDescription Fault = "a2a-no-description" // the A2A list leaves out descriptions
	FaultA2AResultKey     Fault = "a2a-result-key"     // a task answers {"answer"}
	FaultA2ASharedSession Fault = "a2a-shared-session" // every A2A task runs in one session
	FaultWaitingNoSession Fault = "waiting-no-session" // a waiting answer has no session
	FaultNoResume         Fault = "no-resume"          // an answer starts a new turn
	FaultForgetOnRestart  Fault = "forget-on-restart"  // pending turns are lost at start-up
	FaultStaleTurn        Fault = "stale-turn"         // a finished turn's answers are reused
	FaultStrictApprove    Fault = "strict-approve"     // only "yes" approves
	FaultDenyEndsTurn     Fault = "deny-ends-turn"     // a denial ends the turn instead of reaching the model
	FaultAutoAsks         Fault = "auto-asks"          // approval mode auto asks anyway
	FaultNoBudget         Fault = "no-budget"          // the model-call budget is ignored
	FaultLenientConfig    Fault = "lenient-config"     // assembly rules other than the window rule are skipped
	FaultRejectBoundary   Fault = "reject-boundary"    // window = keep_recent+2 is rejected too
	FaultNoToolRename     Fault = "no-tool-rename"     // colliding tool names stay as they are
	FaultSSEBuffered      Fault = "sse-buffered"       // the whole answer comes as one delta at the end
	FaultDivergentAnswer  Fault = "divergent-answer"   // a replay's new question gets the old answer
	FaultKeepDangerous    Fault = "keep-dangerous"     // dangerous tools are offered despite catalog.max_risk
	FaultUndeclaredArgs   Fault = "undeclared-args"    // a tool passes undeclared arguments on and ignores missing required ones
	FaultToolErrorFails   Fault = "tool-error-hidden"  // a tool's 4xx/5xx answer reaches the model without its status and body
	FaultNoDedup          Fault = "no-dedup"           // identical calls with identical results run every time
	FaultRiskDefault      Fault = "risk-default"       // a tool without a risk is readonly whatever its method
	FaultArgsInBody       Fault = "args-in-body"       // every argument goes to a JSON body, even of a GET or a path parameter
	FaultTruncateBytes    Fault = "truncate-bytes"     // max_resp_len counts bytes and cuts inside characters

	FaultPolicyLastMatch      Fault = "policy-last-match"          // the last matching approval rule wins
	FaultPolicyIgnoresArgs    Fault = "policy-ignores-args"        // approval rules match whatever the arguments
	FaultPolicyRawArgs        Fault = "policy-raw-args"            // argument patterns compare the JSON text, not the value
	FaultPolicyDenyAsks       Fault = "policy-deny-asks"           // a deny rule asks instead of refusing
	FaultMemoryWithoutWindow  Fault = "memory-without-window"      // a session remembers with session.window 0
	FaultNoSessionMemory      Fault = "no-session-memory"          // a session forgets its turns whatever the window
	FaultMemoryAcrossSessions Fault = "memory-across-sessions"     // every session of an agent shares one memory
	FaultNoRetry              Fault = "no-retry"                   // a transient model error fails the turn at once
	FaultRetryDeterministic   Fault = "retry-deterministic"        // a 400 from the model is tried again
	FaultUnknownKeys          Fault = "unknown-keys-ignored"       // keys the schema does not know are ignored
	FaultParamTypes           Fault = "param-types-unchecked"      // any param type is taken (as a string)
	FaultRiskLevels           Fault = "risk-levels-unchecked"      // an unknown risk level is taken as readonly
	FaultSelfImport           Fault = "self-import"                // a namespace may import itself
	FaultNoDeliverables       Fault = "no-deliverables"            // a skill that delivers is answered like any other tool
	FaultEffectKeyByTool      Fault = "effect-key-by-tool"         // the effect log keys an effect by its tool alone, not its arguments
	FaultApprovalByTool       Fault = "approval-by-tool"           // an approval is keyed by the tool alone: one answer serves every call of it
	FaultCanonicalArgs        Fault = "approval-canonical-args"    // the approval question shows the arguments re-encoded, not as the model wrote them
	FaultCJKUntrimmed         Fault = "cjk-approve-untrimmed"      // 同意, 是, 批准 and 好 approve only exactly, not with surrounding whitespace
	FaultUserRunes            Fault = "user-limit-runes"           // the user limit counts characters, not bytes
	FaultSessionKeyASCII      Fault = "session-key-ascii"          // pending turns are keyed by the session with non-ASCII characters folded
	FaultStreamArgsFirst      Fault = "stream-args-first-fragment" // of a streamed tool call only the fragment with its id is kept
	FaultAcceptExact          Fault = "accept-exact"               // only an Accept of exactly text/event-stream streams
	FaultCoerceInput          Fault = "coerce-input"               // a message field of any JSON type is taken as its text
	FaultCorruptPending500    Fault = "corrupt-pending-500"        // a pending turn that cannot be read fails every message of its session
	FaultNoSessionLock        Fault = "no-session-lock"            // two messages of one session run their turns at once

	FaultMCPBareText        Fault = "mcp-bare-text"         // the model gets an MCP result's text, not the result object
	FaultMCPIgnoreAllowList Fault = "mcp-ignore-allow-list" // an MCP source's tools allow-list is ignored
	FaultMCPOptionalFatal   Fault = "mcp-optional-fatal"    // an optional MCP source that cannot start fails start-up
	FaultMCPRiskMutating    Fault = "mcp-risk-mutating"     // an MCP tool without a risk is mutating, not readonly
	FaultMCPPrefixedNames   Fault = "mcp-prefixed-names"    // the model sees MCP tools as <source>_<name> even when no name collides
	FaultMCPDeclaredArgs    Fault = "mcp-declared-args"     // arguments the MCP tool's input schema does not declare are dropped
	FaultMCPNoApproval      Fault = "mcp-no-approval"       // a mutating MCP tool runs without the approval gate
	FaultMCPErrorHidden     Fault = "mcp-error-hidden"      // an MCP tool's failure reaches the model without the server's message
	FaultMCPRequiredSkipped Fault = "mcp-required-skipped"  // a required MCP source that cannot start is skipped like an optional one
	FaultMCPFirstSource     Fault = "mcp-first-source"      // a call of a renamed MCP tool goes to the first source with that name

	// Catalogue governance, exec and local sources, and the boundaries of
	// the http plumbing.
	FaultCatalogLastWins    Fault = "catalog-last-wins"     // of two sources of equal priority the later silently wins
	FaultCatalogFirstWins   Fault = "catalog-first-wins"    // the first source of a capability keeps it whatever the priorities
	FaultIncludeOverExclude Fault = "include-over-exclude"  // an exclude pattern does not remove what an include selects
	FaultKindUnchecked      Fault = "kind-unchecked"        // a pattern's kind is not compared
	FaultVersionIgnored     Fault = "version-ignored"       // a pattern's version is not compared
	FaultRenameUnsanitized  Fault = "rename-unsanitized"    // the second-level rename compares names before replacing unsafe characters
	FaultHTTPSourceProbed   Fault = "http-source-probed"    // an http source whose tools cannot be reached at start-up is dropped
	FaultExecReadonly       Fault = "exec-readonly"         // an exec tool without a risk is readonly
	FaultExecArgsDropped    Fault = "exec-args-dropped"     // an exec tool's args never reach the script
	FaultExecExitHidden     Fault = "exec-exit-hidden"      // a script's non-zero exit is answered with its output alone
	FaultNoLocalTool        Fault = "no-local-tool"         // the built-in current_time is not in the catalogue
	FaultStatus400OK        Fault = "status-400-ok"         // a tool answer of exactly 400 is taken as a success
	FaultPathQueryEscape    Fault = "path-query-escape"     // a path parameter is escaped as a query value (a space becomes +)
	FaultHeadReadonly       Fault = "head-readonly"         // a HEAD tool without a risk is readonly, like GET
	FaultTruncateAtLimit    Fault = "truncate-at-limit"     // a result of exactly max_resp_len characters is marked truncated
	FaultSSEFirstErrorEvent Fault = "sse-first-error-event" // a streamed turn whose first model call fails answers 200 with an error event
	FaultEmptyIncludeAll    Fault = "empty-include-all"     // an agent without include patterns is offered every source's tools
)

// MCP tools under approval rules and risk admission, tool_timeout,
// remembered approvals, deliver modes and stores.
const (
	FaultMCPRulesIgnored       Fault = "mcp-rules-ignored"       // approval rules are not applied to MCP tools: every mutating call asks
	FaultMCPDangerousDropped   Fault = "mcp-dangerous-dropped"   // a dangerous MCP tool is left out whatever catalog.max_risk
	FaultToolTimeoutIgnored    Fault = "tool-timeout-ignored"    // reliability.tool_timeout is ignored: a slow tool is waited for
	FaultToolTimeoutFailsTurn  Fault = "tool-timeout-fails-turn" // a tool call over the time limit fails the turn
	FaultRememberPlain         Fault = "remember-plain-answers"  // with approval.remember a plain yes or no holds for every later call of the tool in the session
	FaultAttachAlways          Fault = "attach-always"           // an attach skill's result goes with every answer, cited or not
	FaultEvidenceDelivered     Fault = "evidence-delivered"      // a skill without deliver is a deliverable too
	FaultDirectIgnored         Fault = "direct-ignored"          // a direct skill acts as attach even as the turn's last call
	FaultDirectAnyCall         Fault = "direct-any-call"         // a direct skill's result is the answer even when another call followed it
	FaultSessionStoreIgnored   Fault = "session-store-ignored"   // a file session store is not used: history lives in memory only
	FaultMemoryOneBucket       Fault = "memory-one-bucket"       // every long-term memory goes to one bucket whatever the user
	FaultMemoryAnonymousShared Fault = "memory-anonymous-shared" // a save without a user identity lands in the shared pool
)

// The planted faults of compaction at run time, memory scopes beyond the
// user's, and the other modules' store slots.
const (
	FaultCompactionKeepsAll    Fault = "compaction-keeps-all"    // after a summary the older messages still reach the model
	FaultCompactionSplitsPairs Fault = "compaction-splits-pairs" // the kept part may start with a tool result whose call was summarised
	FaultRollingSummaryIgnored Fault = "rolling-summary-ignored" // a session's summary is made but later turns see only the window
	FaultToolClearIgnored      Fault = "tool-clear-ignored"      // loop.compaction.tool_clear_over clears nothing
	FaultSeedNotShared         Fault = "seed-not-shared"         // memory.seed is not put in the shared pool
	FaultSharedWriteAsUser     Fault = "shared-write-as-user"    // scope.write shared saves to the user's own scope
	FaultSessionScopeShared    Fault = "session-scope-shared"    // the session scope is one bucket for every session
	FaultRecallAnyUser         Fault = "recall-any-user"         // automatic recall reads every user's memories
	FaultModuleSlotsUnchecked  Fault = "module-slots-unchecked"  // only the session store slot is checked at start-up
	FaultTodoStoreIgnored      Fault = "todo-store-ignored"      // a file todo store is not used: plans live in memory only
)

// Faults lists every planted fault.
var Faults = []Fault{FaultEffectTwice, FaultSSENoDone, FaultInflightReexecuted, FaultResumeAnySession,
	FaultWrongErrorText, FaultAcceptInvalidConfig, FaultApprovalText, FaultA2AErrorStatus, FaultLenientApprove,
	FaultHealthzBody, FaultNoSessionEcho, FaultSessionFormat, FaultUnknownAgent500, FaultLongUserAccepted,
	FaultAnyMethod, FaultRunError200, FaultNoAskUser, FaultNoCacheHeader, FaultErrorEvent, FaultSSEAskFails,
	FaultControl200, FaultIgnoreInterrupt, FaultA2ANoDescription, FaultA2AResultKey, FaultA2ASharedSession,
	FaultWaitingNoSession, FaultNoResume, FaultForgetOnRestart, FaultStaleTurn, FaultStrictApprove,
	FaultDenyEndsTurn, FaultAutoAsks, FaultNoBudget, FaultLenientConfig, FaultRejectBoundary, FaultNoToolRename,
	FaultSSEBuffered, FaultDivergentAnswer, FaultKeepDangerous, FaultUndeclaredArgs, FaultToolErrorFails, FaultNoDedup, FaultRiskDefault, FaultArgsInBody, FaultTruncateBytes,
	FaultPolicyLastMatch, FaultPolicyIgnoresArgs, FaultPolicyRawArgs, FaultPolicyDenyAsks,
	FaultMemoryWithoutWindow, FaultNoSessionMemory, FaultMemoryAcrossSessions, FaultNoRetry, FaultRetryDeterministic,
	FaultUnknownKeys, FaultParamTypes, FaultRiskLevels, FaultSelfImport, FaultNoDeliverables,
	FaultEffectKeyByTool, FaultApprovalByTool, FaultCanonicalArgs,
	FaultCJKUntrimmed, FaultUserRunes, FaultSessionKeyASCII, FaultStreamArgsFirst, FaultAcceptExact, FaultCoerceInput, FaultCorruptPending500, FaultNoSessionLock,
	FaultMCPBareText, FaultMCPIgnoreAllowList, FaultMCPOptionalFatal, FaultMCPRiskMutating,
	FaultMCPPrefixedNames, FaultMCPDeclaredArgs, FaultMCPNoApproval, FaultMCPErrorHidden, FaultMCPRequiredSkipped,
	FaultMCPFirstSource,
	FaultCatalogLastWins, FaultCatalogFirstWins, FaultIncludeOverExclude, FaultKindUnchecked, FaultVersionIgnored,
	FaultRenameUnsanitized, FaultHTTPSourceProbed, FaultExecReadonly, FaultExecArgsDropped, FaultExecExitHidden,
	FaultNoLocalTool, FaultStatus400OK, FaultPathQueryEscape, FaultHeadReadonly, FaultTruncateAtLimit, FaultSSEFirstErrorEvent, FaultEmptyIncludeAll,
	FaultMCPRulesIgnored, FaultMCPDangerousDropped, FaultToolTimeoutIgnored, FaultToolTimeoutFailsTurn,
	FaultRememberPlain, FaultAttachAlways, FaultEvidenceDelivered, FaultDirectIgnored, FaultDirectAnyCall,
	FaultSessionStoreIgnored, FaultMemoryOneBucket, FaultMemoryAnonymousShared,
	FaultCompactionKeepsAll, FaultCompactionSplitsPairs, FaultRollingSummaryIgnored, FaultToolClearIgnored, FaultSeedNotShared, FaultSharedWriteAsUser, FaultSessionScopeShared, FaultRecallAnyUser,
	FaultModuleSlotsUnchecked, FaultTodoStoreIgnored}

// ParseFaults checks fault names.
func ParseFaults(names []string) ([]Fault, error) {
	var out []Fault
	for _, n := range names {
		if !slices.Contains(Faults, Fault(n)) {
			return nil, fmt.Errorf("unknown fault %q; known: %v", n, Faults)
		}
		out = append(out, Fault(n))
	}
	return out, nil
}

func has(faults []Fault, f Fault) bool { return slices.Contains(faults, f) }

// LoadDir is Load with planted faults that weaken the assembly rules.
func LoadDir(dir string, faults []Fault) (*App, error) {
	return LoadDirEnv(dir, faults, nil)
}

// LoadDirEnv is LoadDir with env added to the process's environment for
// the ${NAME} placeholders.
func LoadDirEnv(dir string, faults []Fault, env map[string]string) (*App, error) {
	if _, err := os.Stat(filepath.Join(dir, "app.yaml")); err != nil {
		return nil, fmt.Errorf("no readable app.yaml in %s (%v); run the gateway where its app.yaml is, or pass --dir", dir, err)
	}
	lookup := func(name string) (string, bool) {
		if v, ok := env[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}
	return LoadFSEnv(osDirFS(dir), "app.yaml", func(name string) bool {
		switch name {
		case "secrets-unexpanded", "secret-file-ignored", "secret-missing-empty", "secrets-in-comments":
			return has(faults, Fault(name))
		case "risk-default":
			return has(faults, FaultRiskDefault)
		case "strict":
			return has(faults, FaultUnknownKeys)
		case "param-types":
			return has(faults, FaultParamTypes)
		case "risk-levels":
			return has(faults, FaultRiskLevels)
		case "self-import":
			return has(faults, FaultSelfImport)
		case "module-slots":
			return has(faults, FaultModuleSlotsUnchecked)
		case "window":
			return has(faults, FaultAcceptInvalidConfig)
		case "boundary":
			return has(faults, FaultRejectBoundary)
		case "head-readonly":
			return has(faults, FaultHeadReadonly)
		case "exec-readonly":
			return has(faults, FaultExecReadonly)
		}
		return has(faults, FaultLenientConfig)
	}, lookup)
}

// The planted faults of the supply besides http and mcp sources: remote
// agents, the vector source, prompts and secrets.
const (
	FaultA2APrefixedNames Fault = "a2a-prefixed-names" // remote agents are offered as <source>_<name>
	FaultA2AWholeArgs     Fault = "a2a-whole-args"     // a task carries the model's whole arguments text
	FaultA2AReadonly      Fault = "a2a-readonly"       // remote agents run without the approval gate
	FaultA2AAllowList     Fault = "a2a-allow-list"     // the agents allow-list is ignored
	FaultA2AErrorHidden   Fault = "a2a-error-hidden"   // a remote error reaches the model as an empty result
	FaultA2ANoHeaders     Fault = "a2a-no-headers"     // an a2a source's headers are not sent
	FaultVectorMutating   Fault = "vector-mutating"    // the retrieval tool asks for approval
	FaultVectorEveryDoc   Fault = "vector-every-doc"   // documents sharing nothing with the query are returned
	FaultVectorNoTopK     Fault = "vector-no-top-k"    // top_k does not bound the documents
	FaultVectorNoTruncate Fault = "vector-no-truncate" // max_doc_len does not cut a document

	FaultPromptLiteral       Fault = "prompt-literal"        // a cap://prompt reference reaches the model as its text
	FaultPromptNoLabel       Fault = "prompt-no-label"       // prompts.default_label is not asked for
	FaultPromptRefAnywhere   Fault = "prompt-ref-anywhere"   // a value containing cap://prompt anywhere is taken as a reference
	FaultPromptMissingEmpty  Fault = "prompt-missing-empty"  // a prompt that cannot be read becomes empty and the gateway starts
	FaultSecretsUnexpanded   Fault = "secrets-unexpanded"    // placeholders stay as written
	FaultSecretFileIgnored   Fault = "secret-file-ignored"   // the file provider's secrets are read from the environment
	FaultSecretMissingEmpty  Fault = "secret-missing-empty"  // a placeholder that cannot be filled becomes empty
	FaultSecretsInComments   Fault = "secrets-in-comments"   // placeholders on comment lines are filled too
	FaultMCPEffectTwice      Fault = "mcp-effect-twice"      // a replay calls an approved mutating MCP tool again
	FaultTodoNotOffered      Fault = "todo-not-offered"      // the plan tools are not offered
	FaultTodoUnchecked       Fault = "todo-unchecked"        // any plan is kept
	FaultTodoNotShown        Fault = "todo-not-shown"        // the plan is not shown to the model
	FaultTodoShared          Fault = "todo-shared"           // a session is shown another session's plan
	FaultStructuredProse     Fault = "structured-prose"      // a structured answer keeps the prose around its JSON
	FaultStructuredNoFix     Fault = "structured-no-fix"     // an answer not meeting the schema is returned as it is
	FaultStructuredFailOpen  Fault = "structured-fail-open"  // an answer still not meeting it after the fixes is returned
	FaultTrajectoryNoTools   Fault = "trajectory-no-tools"   // tool calls leave no trajectory records
	FaultTrajectoryNoSession Fault = "trajectory-no-session" // trajectory records leave out the session
	FaultDigestNever         Fault = "digest-never"          // long tool results reach the model raw
	FaultReadResultLost      Fault = "read-result-lost"      // read_result finds no digested result
	FaultDigestAlways        Fault = "digest-always"         // short tool results are digested too
)

var supplyFaults = []Fault{FaultA2APrefixedNames, FaultA2AWholeArgs, FaultA2AReadonly, FaultA2AAllowList,
	FaultA2AErrorHidden, FaultA2ANoHeaders, FaultVectorMutating, FaultVectorEveryDoc, FaultVectorNoTopK, FaultVectorNoTruncate,
	FaultPromptLiteral, FaultPromptNoLabel, FaultPromptRefAnywhere, FaultPromptMissingEmpty,
	FaultSecretsUnexpanded, FaultSecretFileIgnored, FaultSecretMissingEmpty, FaultSecretsInComments, FaultMCPEffectTwice,
	FaultTodoNotOffered, FaultTodoUnchecked, FaultTodoNotShown, FaultTodoShared,
	FaultStructuredProse, FaultStructuredNoFix, FaultStructuredFailOpen,
	FaultTrajectoryNoTools, FaultTrajectoryNoSession, FaultDigestNever, FaultReadResultLost, FaultDigestAlways}

func init() { Faults = append(Faults, supplyFaults...) }
