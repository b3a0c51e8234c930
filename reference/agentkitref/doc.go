// Package agentkit is sifu's reference gateway for the agent-kit HTTP
// contract: messages (JSON and SSE), control, an A2A surface, health,
// durable suspend and resume of questions and approvals whose effects run at
// most once, and configuration rejected at start-up when it breaks the
// assembly rules.
//
// It is written from the contract notes, not from agent-kit's code, and it
// knows nothing of the harness: it reads an app.yaml (with agents/*.yaml and
// namespaces/*.yaml beside it), talks to any OpenAI-compatible model server
// and calls HTTP tools. Planted faults (faults.go) make it break one rule on
// purpose, so the suite can show that its checks catch each one.
package agentkitref
