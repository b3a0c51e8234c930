package agentkitref

// This file holds long-term memory: with memory.expose_tools the model
// gets memory_save and memory_search. A save goes to the write scope (the
// end user's own by default, and then it needs the message's user); a
// search covers the read scopes (the user's and the shared pool by
// default). The store is the process's memory.

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// memories are the saved memories by scope and key.
type memories struct {
	mu sync.Mutex
	m  map[string]map[string]string
}

type userKey struct{}

// withUser carries the message's end user (its user field) to the turn.
func withUser(ctx context.Context, user string) context.Context {
	return context.WithValue(ctx, userKey{}, user)
}

func userOf(ctx context.Context) string { u, _ := ctx.Value(userKey{}).(string); return u }

// memorySpecs are the memory tools as the model is offered them.
func memorySpecs(add func(name, desc string, params map[string]any)) {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	add("memory_save", "Keep a long-term memory: a short title and its self-contained content.", map[string]any{"type": "object",
		"properties": map[string]any{"key": str("a short title"), "value": str("the content")}, "required": []any{"key", "value"}})
	add("memory_search", "Search long-term memory by keywords.", map[string]any{"type": "object",
		"properties": map[string]any{"query": str("keywords")}, "required": []any{"query"}})
}

// scopeOf names the bucket of one scope word; "" when the call lacks the
// identity it needs.
func (t *turn) scopeOf(ctx context.Context, word string) string {
	switch word {
	case "", "user":
		if u := userOf(ctx); u != "" {
			return "user:" + u
		}
		if has(t.g.faults, FaultMemoryAnonymousShared) {
			return "shared"
		}
		return ""
	case "session":
		if has(t.g.faults, FaultSessionScopeShared) {
			return "session:"
		}
		return "session:" + t.session
	}
	return word
}

// memory runs memory_save or memory_search; handled is false for other
// tools.
func (t *turn) memory(ctx context.Context, name, args string) (result string, handled bool) {
	mem := &t.g.memories
	scope := t.agent.cfg.Memory.Scope
	switch name {
	case "memory_save":
		var a struct{ Key, Value string }
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			return "memory not saved: the arguments must be {\"key\", \"value\"}: " + err.Error(), true
		}
		sc := t.scopeOf(ctx, scope.Write)
		if scope.Write == "shared" && has(t.g.faults, FaultSharedWriteAsUser) {
			sc = t.scopeOf(ctx, "user")
		}
		if has(t.g.faults, FaultMemoryOneBucket) {
			sc = "all"
		}
		if sc == "" {
			return "memory not saved: a user's memory needs the user's identity, and this message named no user", true
		}
		mem.mu.Lock()
		defer mem.mu.Unlock()
		if mem.m == nil {
			mem.m = map[string]map[string]string{}
		}
		if mem.m[sc] == nil {
			mem.m[sc] = map[string]string{}
		}
		mem.m[sc][a.Key] = a.Value
		return "saved", true
	case "memory_search":
		var a struct{ Query string }
		_ = json.Unmarshal([]byte(args), &a)
		read := scope.Read
		if len(read) == 0 {
			read = []string{"user", "shared"}
		}
		if has(t.g.faults, FaultMemoryOneBucket) {
			read = []string{"all"}
		}
		mem.mu.Lock()
		defer mem.mu.Unlock()
		var lines []string
		for _, word := range read {
			sc := word
			if word != "all" {
				sc = t.scopeOf(ctx, word)
			}
			if sc == "" {
				continue
			}
			keys := make([]string, 0, len(mem.m[sc]))
			for k := range mem.m[sc] {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if matchesQuery(a.Query, k, mem.m[sc][k]) {
					lines = append(lines, fmt.Sprintf("- %s: %s", k, mem.m[sc][k]))
				}
			}
		}
		if len(lines) == 0 {
			return "no memory found", true
		}
		return strings.Join(lines, "\n"), true
	}
	return "", false
}

// matchesQuery: some word of the query is in the key or the value.
func matchesQuery(query, key, value string) bool {
	text := strings.ToLower(key + " " + value)
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}
