// Package kcp is an independent Go reference of the deterministic kcp-agent
// knowledge-manifest planner (KCP, the Knowledge Context Protocol).
//
// Given a task, a parsed knowledge.yaml and the agent's options, [Plan]
// decides which units to load and in which order, which to skip and why,
// which federated manifests may be fetched, and what it all costs. It is a
// pure function: no clock, no I/O, no randomness. The reason strings it
// writes are contract strings: other implementations are compared to them
// byte for byte.
//
// The package mirrors the JavaScript reference where that matters for the
// outcome: js-yaml 4 scalar resolution and JS coercions when a manifest is
// parsed ([ParseManifest]), String(number), toFixed and toLocaleString when
// numbers are written into reasons, toLowerCase and UTF-16 lengths in the
// tokenizer ([Terms]), and ICU collation for the tie-break between equal
// scores.
//
// Around the planner sit the projection used by the conformance vectors
// ([Outcome]), the machine-readable plan of the CLI ([PlanJSON]), the flag
// mapping of `kcp-agent plan` ([ParsePlanArgs]), the manifest lint of
// `kcp-agent validate` ([Validate]) and the post-synthesis confidence gate
// ([Assess]).
//
// The package knows nothing about any harness.
package kcpref
