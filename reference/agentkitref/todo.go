package agentkitref

// This file holds the plan of an agent's main loop: the tools todo_write
// (the whole list) and todo_read, the checks a write must pass, and the
// plan shown to the model on every round of the session's turns.

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// todoItem is one item of a plan.
type todoItem struct {
	Content    string `json:"content"`
	ActiveForm string `json:"active_form,omitempty"`
	Status     string `json:"status"` // pending, in_progress or completed
}

// plans are the plans by agent and session.
type plans struct {
	mu sync.Mutex
	m  map[string][]todoItem
}

func (p *plans) get(key string) []todoItem {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[key]
}

func (p *plans) set(key string, items []todoItem) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string][]todoItem{}
	}
	if len(items) == 0 {
		delete(p.m, key)
		return
	}
	p.m[key] = items
}

const maxTodoItems = 50

// todoSpecs are the plan tools as the model is offered them.
func todoSpecs(add func(name, desc string, params map[string]any)) {
	item := map[string]any{"type": "object", "properties": map[string]any{
		"content":     map[string]any{"type": "string", "description": "the task, in a few words"},
		"status":      map[string]any{"type": "string", "enum": []any{"pending", "in_progress", "completed"}},
		"active_form": map[string]any{"type": "string", "description": "the task as it reads while it is being done"},
	}, "required": []any{"content", "status"}}
	add("todo_write", "Replace the plan with this whole list: at most one item in progress; mark an item completed as soon as it is done.",
		map[string]any{"type": "object", "properties": map[string]any{"todos": map[string]any{"type": "array", "items": item}}, "required": []any{"todos"}})
	add("todo_read", "Read the current plan.", map[string]any{"type": "object", "properties": map[string]any{}})
}

// todoKey is the plan's key: the agent and the session.
func (t *turn) todoKey() string { return t.agent.cfg.Name + "\x1f" + t.session }

// todo runs todo_write or todo_read; handled is false for other tools.
func (t *turn) todo(name, args string) (result string, handled bool) {
	switch name {
	case "todo_read":
		items := t.g.planOf(t.agent, t.todoKey())
		if len(items) == 0 {
			return "The plan is empty.", true
		}
		return renderPlan(items), true
	case "todo_write":
		var a struct {
			Todos []todoItem `json:"todos"`
		}
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			return "Plan not written: the arguments must be {\"todos\": [...]}: " + err.Error(), true
		}
		if msg := checkPlan(a.Todos, t.g.faults); msg != "" {
			return msg, true
		}
		if err := t.g.keepPlan(t.agent, t.todoKey(), a.Todos); err != nil {
			return "Plan not kept: " + err.Error(), true
		}
		if len(a.Todos) == 0 {
			return "The plan is cleared.", true
		}
		return renderPlan(a.Todos), true
	}
	return "", false
}

// checkPlan says why a plan is refused, or "".
func checkPlan(items []todoItem, faults []Fault) string {
	if has(faults, FaultTodoUnchecked) {
		return ""
	}
	if len(items) > maxTodoItems {
		return fmt.Sprintf("Plan not written: %d items, at most %d.", len(items), maxTodoItems)
	}
	seen := map[string]bool{}
	running := 0
	for i, it := range items {
		c := strings.TrimSpace(it.Content)
		switch {
		case c == "":
			return fmt.Sprintf("Plan not written: item %d has no content.", i+1)
		case seen[c]:
			return fmt.Sprintf("Plan not written: item %q is listed twice.", c)
		}
		seen[c] = true
		switch it.Status {
		case "pending", "completed":
		case "in_progress":
			running++
		default:
			return fmt.Sprintf("Plan not written: item %d has status %q; a status is pending, in_progress or completed.", i+1, it.Status)
		}
	}
	if running > 1 {
		return fmt.Sprintf("Plan not written: %d items are in progress; keep exactly one in progress and the others pending.", running)
	}
	return ""
}

func renderPlan(items []todoItem) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "- [%s] %s\n", it.Status, it.Content)
	}
	return b.String()
}

// withPlan is the messages of a model call with the session's plan, when
// there is one, after them.
func (t *turn) withPlan(msgs []message) []message {
	if has(t.g.faults, FaultTodoNotShown) {
		return msgs
	}
	items := t.g.planOf(t.agent, t.todoKey())
	if has(t.g.faults, FaultTodoShared) {
		items = t.g.plans.anyPlan()
	}
	if len(items) == 0 {
		return msgs
	}
	return append(append([]message(nil), msgs...), message{Role: "system", Content: "Current plan (keep it up to date with todo_write):\n" + renderPlan(items)})
}

// anyPlan is some session's plan (the shared-plan fault).
func (p *plans) anyPlan() []todoItem {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, items := range p.m {
		return items
	}
	return nil
}
