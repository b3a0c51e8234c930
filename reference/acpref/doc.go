// Package acp is an independent Go reference of the Agent Collaboration
// Protocol (ACP v1): a strict state machine kept in a shared folder —
// protocol.json, an append-only events.jsonl and five Markdown documents —
// and the five tools that work on it: [Tools.Init], [Tools.Append],
// [Tools.Next], [Tools.Wait] and [Tools.Validate].
//
// The tools reproduce the upstream scripts' observable behaviour: the same
// files, the same event lines, the same messages and exit codes (0 valid,
// 1 warnings, 2 invalid or refused). Where the upstream behaviour is a quirk
// (see docs/acp.md), the default mode is stricter and reports the
// questionable case against the rule it touches; [Options.Compat] restores
// the upstream verdicts exactly.
//
// Time is injected ([Options.Now]) so runs are reproducible. Appends take an
// exclusive lock on the folder and replace events.jsonl and protocol.json by
// rename, so concurrent writers never lose or duplicate a seq and a crash
// never leaves a torn line.
//
// The package knows nothing about any harness.
package acpref
