// Package kungfu is sifu's reference implementation of the Kungfu protocol.
//
// Every change is an append-only fact (L1); the state an agent reads is
// derived from the fact log alone, so a service rebuilt from the same log
// answers every read identically. Actions are atomic (L2): they check every
// precondition before recording a single fact. Keyed actions are replay-safe
// (L3): the idempotency record travels inside the fact that the action wrote.
//
// The package knows nothing about any test harness.
package kungfuref

import (
	"encoding/json"
	"fmt"
	"time"
)

// FactKind names what a fact records.
type FactKind string

// The fact kinds of the Memory profile and the account layer.
const (
	FactAgentProvisioned FactKind = "agent.provisioned"
	FactAgentDeactivated FactKind = "agent.deactivated"
	// FactRequestRecorded carries only the idempotency record of a request
	// that succeeded without a new effect.
	FactRequestRecorded   FactKind = "agent.request_recorded"
	FactMemoryCreated     FactKind = "memory.created"
	FactMemoryUpdated     FactKind = "memory.updated"
	FactMemoryPublished   FactKind = "memory.published"
	FactMemoryUnpublished FactKind = "memory.unpublished"
	FactMemoryWithdrawn   FactKind = "memory.withdrawn"
)

// Fact is one recorded, immutable event. Seq orders the log.
type Fact struct {
	Seq    int64           `json:"seq"`
	At     time.Time       `json:"at"`
	Kind   FactKind        `json:"kind"`
	Agent  string          `json:"agent,omitempty"`
	Object string          `json:"object,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
	// Request is the idempotency record of the keyed action that wrote this fact.
	Request *RequestRecord `json:"request,omitempty"`
}

// RequestRecord identifies one logical request and keeps its receipt.
type RequestRecord struct {
	Agent   string         `json:"agent"`
	Action  string         `json:"action"`
	Key     string         `json:"key"`
	Hash    string         `json:"hash"`
	Receipt map[string]any `json:"receipt"`
}

// memoryData is the payload of memory.created and memory.updated facts.
type memoryData struct {
	Version int    `json:"version"`
	Content string `json:"content"`
}

// Store keeps the fact log. Append must make the fact durable before it
// returns: the service answers success only after Append succeeded.
type Store interface {
	Append(Fact) error
	Facts() ([]Fact, error)
}

// BatchStore is a Store that can record the facts of one action atomically.
// The service uses it when the store offers it.
type BatchStore interface {
	Store
	AppendAll([]Fact) error
}

// MemoryStore is a Store held in memory, for tests. It keeps the log in
// fixed-size chunks, so that appending never copies the whole log.
type MemoryStore struct{ chunks [][]Fact }

const chunkSize = 4096

// Append records a fact.
func (m *MemoryStore) Append(f Fact) error {
	if n := len(m.chunks); n == 0 || len(m.chunks[n-1]) == chunkSize {
		m.chunks = append(m.chunks, make([]Fact, 0, chunkSize))
	}
	last := &m.chunks[len(m.chunks)-1]
	*last = append(*last, f)
	return nil
}

// Facts returns a copy of the log.
func (m *MemoryStore) Facts() ([]Fact, error) {
	var out []Fact
	for _, c := range m.chunks {
		out = append(out, c...)
	}
	return out, nil
}

func mustJSON(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("kungfu: fact payload does not encode: %v", err))
	}
	return raw
}
