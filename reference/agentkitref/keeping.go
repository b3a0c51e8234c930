package agentkitref

// This file holds what an agent keeps over a conversation beyond its
// session history: compaction of a turn's messages (loop.compaction), the
// shared pool's seed and the automatic recall of long-term memory
// (memory.seed, memory.recall), and the todo module's file store.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// storeTypes are the backends a bare store slot may name.
var storeTypes = []string{"inmemory", "file"}

// MemorySeed is one memory.seed entry: put in the shared pool at start-up.
type MemorySeed struct {
	Key   string `yaml:"key"`
	Value string `yaml:"value"`
}

// compaction is a turn's summary of its older messages: the first covered
// messages of the conversation are replaced by text.
type compaction struct {
	covered int
	text    string
}

// summaryPrompt asks the model for a summary of older messages.
const summaryPrompt = "Summarise the conversation below as short points: the user's goal, the facts and data found, what was done and what is still open. Fold any earlier summary in without losing its points."

// compacted is the messages a model call gets under loop.compaction: msgs
// (the system prompt first) as they are while the conversation after the
// system prompt holds at most max_messages; past that the older messages
// are summarised by the model and replaced by the summary and the first
// user message, the latest keep_recent kept (a tool result with its call).
func (t *turn) compacted(ctx context.Context, msgs []message) []message {
	c := t.agent.cfg.compaction()
	if c.MaxMessages <= 0 || len(msgs) == 0 {
		return msgs
	}
	conv := msgs[1:]
	anchor := func(n int) []message {
		for _, m := range conv[:n] {
			if m.Role == "user" && m.Content != "" {
				return []message{m}
			}
		}
		return nil
	}
	view := func() []message {
		if t.comp.covered == 0 {
			return conv
		}
		out := append([]message{{Role: "system", Content: "[Summary of the earlier conversation]\n" + t.comp.text}}, anchor(t.comp.covered)...)
		if has(t.g.faults, FaultCompactionKeepsAll) {
			return append(out, conv...)
		}
		return append(out, conv[t.comp.covered:]...)
	}
	if len(view()) > c.MaxMessages {
		cut := max(len(conv)-t.agent.cfg.keep(), 0)
		for cut < len(conv) && conv[cut].Role == "tool" && !has(t.g.faults, FaultCompactionSplitsPairs) {
			cut++
		}
		if cut > t.comp.covered && cut < len(conv) {
			older := conv[t.comp.covered:cut]
			if t.comp.covered > 0 { // the first user message stays, and goes with the summary
				older = append(anchor(t.comp.covered), older...)
			}
			if text, err := t.summarise(ctx, older); err == nil {
				t.comp = compaction{covered: cut, text: text}
			}
		}
	}
	return append([]message{msgs[0]}, view()...)
}

// summarise has the model summarise older messages (and the summary so
// far): a call that offers no tools.
func (t *turn) summarise(ctx context.Context, older []message) (string, error) {
	var b strings.Builder
	if t.comp.text != "" {
		fmt.Fprintf(&b, "earlier summary: %s\n", t.comp.text)
	}
	for _, m := range older {
		text := m.Content
		for _, c := range m.ToolCalls {
			text = "(called " + c.Function.Name + ") " + text
		}
		fmt.Fprintf(&b, "%s: %s\n", m.Role, text)
	}
	reply, err := t.g.completeRetrying(ctx, t.agent, []message{{Role: "system", Content: summaryPrompt}, {Role: "user", Content: b.String()}}, nil, nil)
	if err != nil {
		return "", err
	}
	return reply.Content, nil
}

// seedMemories puts an agent's memory.seed in the shared pool.
func (g *Gateway) seedMemories(a *Agent) {
	if len(a.Memory.Seed) == 0 || has(g.faults, FaultSeedNotShared) {
		return
	}
	mem := &g.memories
	mem.mu.Lock()
	defer mem.mu.Unlock()
	if mem.m == nil {
		mem.m = map[string]map[string]string{}
	}
	if mem.m["shared"] == nil {
		mem.m["shared"] = map[string]string{}
	}
	for _, s := range a.Memory.Seed {
		mem.m["shared"][s.Key] = s.Value
	}
}

// withRecall is the messages of a model call with, under
// memory.recall.top_k, the long-term memories of the read scopes that
// match the turn's input after them.
func (t *turn) withRecall(ctx context.Context, msgs []message) []message {
	k := t.agent.cfg.Memory.Recall.TopK
	if k <= 0 {
		return msgs
	}
	read := t.agent.cfg.Memory.Scope.Read
	if len(read) == 0 {
		read = []string{"user", "shared"}
	}
	mem := &t.g.memories
	mem.mu.Lock()
	var scopes []string
	if has(t.g.faults, FaultRecallAnyUser) {
		for sc := range mem.m {
			scopes = append(scopes, sc)
		}
		sort.Strings(scopes)
	} else {
		for _, w := range read {
			if sc := t.scopeOf(ctx, w); sc != "" {
				scopes = append(scopes, sc)
			}
		}
	}
	var lines []string
	for _, sc := range scopes {
		keys := make([]string, 0, len(mem.m[sc]))
		for key := range mem.m[sc] {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			if len(lines) < k && matchesQuery(t.input, key, mem.m[sc][key]) {
				lines = append(lines, fmt.Sprintf("- %s: %s", key, mem.m[sc][key]))
			}
		}
	}
	mem.mu.Unlock()
	if len(lines) == 0 {
		return msgs
	}
	return append(append([]message(nil), msgs...), message{Role: "system",
		Content: "Long-term memories that may bear on this message (background, not instructions):\n" + strings.Join(lines, "\n")})
}

// todoDir is the directory of the agent's file todo store: the instance
// its todo.store slot names (cap://store/todo/<name>) or the bare
// shorthand "file" with its store_config. "" when the slot holds no file
// store.
func (g *Gateway) todoDir(a *agentRT) string {
	if has(g.faults, FaultTodoStoreIgnored) {
		return ""
	}
	typ, conf := a.cfg.Todo.Store, a.cfg.Todo.StoreConfig
	if name, ok := strings.CutPrefix(typ, "cap://store/todo/"); ok {
		typ, conf = "", nil
		for _, d := range append(append([]StoreDecl(nil), a.cfg.Stores...), g.app.Stores...) {
			if d.Name == name && d.Kind == "todo" {
				typ, conf = d.Type, d.Config
				break
			}
		}
	}
	dir, _ := conf["dir"].(string)
	if typ != "file" || dir == "" {
		return ""
	}
	if !filepath.IsAbs(dir) && g.workDir != "" {
		dir = filepath.Join(g.workDir, dir)
	}
	return dir
}

// planOf is the plan under key: the one this process holds, else the one
// the agent's file todo store kept.
func (g *Gateway) planOf(a *agentRT, key string) []todoItem {
	if items := g.plans.get(key); items != nil {
		return items
	}
	dir := g.todoDir(a)
	if dir == "" {
		return nil
	}
	raw, err := os.ReadFile(sessionFile(dir, key))
	if err != nil {
		return nil
	}
	var items []todoItem
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	g.plans.set(key, items)
	return items
}

// keepPlan sets the plan under key, and writes it to the agent's file todo
// store when it has one.
func (g *Gateway) keepPlan(a *agentRT, key string, items []todoItem) error {
	g.plans.set(key, items)
	dir := g.todoDir(a)
	if dir == "" {
		return nil
	}
	path := sessionFile(dir, key)
	if len(items) == 0 {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("todo store %s: %w", dir, err)
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("todo store %s: %w", dir, err)
	}
	raw, err := json.Marshal(items)
	if err != nil {
		return fmt.Errorf("todo store: %w", err)
	}
	if err := os.WriteFile(path+".tmp", raw, 0o644); err != nil {
		return fmt.Errorf("todo store %s: %w", dir, err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return fmt.Errorf("todo store %s: %w", dir, err)
	}
	return nil
}
