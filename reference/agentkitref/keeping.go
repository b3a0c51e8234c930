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
	if (c.MaxMessages <= 0 && c.ToolClearOver <= 0) || len(msgs) == 0 {
		return msgs
	}
	conv := msgs[1:]
	if c.ToolClearOver > 0 && !has(t.g.faults, FaultToolClearIgnored) {
		keep := c.ToolClearKeep
		if keep <= 0 {
			keep = t.agent.cfg.keep()
		}
		conv = clearToolResults(conv, c.ToolClearOver, keep)
	}
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
	if c.MaxMessages > 0 && len(view()) > c.MaxMessages {
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

// clearToolResults is conv with each tool result longer than over
// characters, outside the latest keep messages, replaced by a short note
// (its call and id kept).
func clearToolResults(conv []message, over, keep int) []message {
	out := append([]message(nil), conv...)
	for i := 0; i < len(out)-keep; i++ {
		if n := len([]rune(out[i].Content)); out[i].Role == "tool" && n > over {
			out[i].Content = fmt.Sprintf("[an earlier tool result of %d characters, cleared; call the tool again if it is needed]", n)
		}
	}
	return out
}

// summarise has the model summarise older messages (and the summary so
// far): a call that offers no tools.
func (t *turn) summarise(ctx context.Context, older []message) (string, error) {
	if t.comp.text != "" {
		older = append([]message{{Role: "earlier summary", Content: t.comp.text}}, older...)
	}
	return t.g.summarise(ctx, t.agent, older)
}

// summarise has the model summarise messages, in a call that offers no
// tools.
func (g *Gateway) summarise(ctx context.Context, a *agentRT, older []message) (string, error) {
	var b strings.Builder
	for _, m := range older {
		text := m.Content
		for _, c := range m.ToolCalls {
			text = "(called " + c.Function.Name + ") " + text
		}
		fmt.Fprintf(&b, "%s: %s\n", m.Role, text)
	}
	reply, err := g.completeRetrying(ctx, a, []message{{Role: "system", Content: summaryPrompt}, {Role: "user", Content: b.String()}}, nil, nil)
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
	return g.fileStoreDir(a, "todo", a.cfg.Todo.Store, a.cfg.Todo.StoreConfig)
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

// summaryRole marks a session's summary record in its history.
const summaryRole = "summary"

// sessionView is a session's history as later turns see it: after its
// latest summary record, the summary, the session's first user message
// and the messages the summary does not cover; head is how many of those
// come before the session's own messages (the summary and the first user
// message).
func (g *Gateway) sessionView(h []message) (view []message, head int) {
	var raw []message
	var last *message
	for i := range h {
		if h[i].Role == summaryRole {
			last = &h[i]
			continue
		}
		raw = append(raw, h[i])
	}
	if last == nil || has(g.faults, FaultRollingSummaryIgnored) {
		return raw, 0
	}
	n := min(last.Covered, len(raw))
	view = []message{{Role: "system", Content: "[Summary of the earlier conversation]\n" + last.Content}}
	for _, m := range raw[:n] {
		if m.Role == "user" && m.Content != "" {
			view = append(view, m)
			break
		}
	}
	head = len(view)
	return append(view, raw[n:]...), head
}

// rollSummary summarises a session whose view has grown past
// loop.compaction.max_messages (with session.window on): the view's older
// part goes into a summary record that later turns see in its place, the
// latest keep_recent messages kept.
func (g *Gateway) rollSummary(ctx context.Context, a *agentRT, key string) error {
	c := a.cfg.compaction()
	if c.MaxMessages <= 0 || a.cfg.Session.Window <= 0 {
		return nil
	}
	g.mu.Lock()
	h := g.storedHistory(a, key)
	view, head := g.sessionView(h)
	covered := 0
	for _, m := range h {
		if m.Role == summaryRole {
			covered = m.Covered
		}
	}
	cut := max(len(view)-a.cfg.keep(), 0)
	for cut < len(view) && view[cut].Role == "tool" {
		cut++
	}
	if len(view) <= c.MaxMessages || cut <= head || cut >= len(view) {
		g.mu.Unlock()
		return nil
	}
	older := append([]message(nil), view[:cut]...)
	g.mu.Unlock()
	text, err := g.summarise(ctx, a, older)
	if err != nil {
		return nil // a summary is an optimisation: the session goes on whole
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.history[key] = append(g.storedHistory(a, key), message{Role: summaryRole, Content: text, Covered: covered + cut - head})
	return g.storeHistory(a, key)
}
