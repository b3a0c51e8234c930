package agentkitref

// This file holds the digest of long tool results: a result longer than
// digest.over is kept aside, the model reduces it to the points the task
// needs, and the conversation gets the points with a pointer that the
// built-in read_result gives back page by page.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// readResultPage is how many characters read_result gives at a time.
const readResultPage = 3000

// results are the raw texts of digested results by agent and session.
type results struct {
	mu sync.Mutex
	m  map[string][]string
}

// put keeps a raw text and returns its id: r1, r2, ... per session.
func (r *results) put(key, text string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string][]string{}
	}
	r.m[key] = append(r.m[key], text)
	return fmt.Sprintf("r%d", len(r.m[key]))
}

func (r *results) get(key, id string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int
	if _, err := fmt.Sscanf(strings.TrimSpace(id), "r%d", &n); err != nil || n < 1 || n > len(r.m[key]) {
		return "", false
	}
	return r.m[key][n-1], true
}

// digestOver is the agent's digest.over; 0 for no digest.
func (a *agentRT) digestOver() int {
	if o := a.cfg.Digest.Over; o != nil && *o > 0 {
		return *o
	}
	return 0
}

func readResultSpec(add func(name, desc string, params map[string]any)) {
	add("read_result", "Read the raw text of a digested tool result, a page at a time from offset.", map[string]any{"type": "object",
		"properties": map[string]any{"id": map[string]any{"type": "string", "description": "the id the digest gives, as r1"},
			"offset": map[string]any{"type": "integer", "description": "the character to start at (0 by default)"}}, "required": []any{"id"}})
}

// readResult answers a read_result call.
func (t *turn) readResult(args string) string {
	var a struct {
		ID     string `json:"id"`
		Offset int    `json:"offset"`
	}
	_ = json.Unmarshal([]byte(args), &a)
	text, ok := t.g.results.get(t.todoKey(), a.ID)
	if !ok || has(t.g.faults, FaultReadResultLost) {
		return fmt.Sprintf("No result %q is kept in this session.", a.ID)
	}
	r := []rune(text)
	if a.Offset < 0 || a.Offset >= len(r) {
		return fmt.Sprintf("offset out of range: the text has %d characters.", len(r))
	}
	end := min(a.Offset+readResultPage, len(r))
	return fmt.Sprintf("[%d-%d of %d characters]\n%s", a.Offset, end, len(r), string(r[a.Offset:end]))
}

// digest is what the conversation gets of a tool result: the result
// itself up to digest.over characters, else the model's digest of it with
// a pointer to the raw text (or the head of the text when the digest
// fails).
func (t *turn) digest(ctx context.Context, tool, out string) string {
	over := t.agent.digestOver()
	r := []rune(out)
	if over == 0 || has(t.g.faults, FaultDigestNever) || (len(r) <= over && !has(t.g.faults, FaultDigestAlways)) {
		return out
	}
	id := t.g.results.put(t.todoKey(), out)
	t.calls++
	reply, err := t.g.completeRetrying(ctx, t.agent, []message{
		{Role: "system", Content: "Reduce the raw tool result to the points the task needs. Keep ids, numbers, times, paths and names exactly as written; add nothing of your own; keep it under 800 characters."},
		{Role: "user", Content: fmt.Sprintf("Task: %s\n\nRaw result of tool %s:\n%s", t.input, tool, out)},
	}, nil, nil)
	if err != nil {
		return fmt.Sprintf("[result too long and its digest failed: %d characters, the head follows; the raw text is %s, read it with read_result(id=%q, offset=N)]\n%s",
			len(r), id, id, string(r[:min(over, len(r))]))
	}
	return fmt.Sprintf("[result digested: %d characters; the raw text is %s, read it with read_result(id=%q, offset=N)]\n%s", len(r), id, id, reply.Content)
}
