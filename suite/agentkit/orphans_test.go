package agentkit

import "testing"

// TestOrphanResults: a tool result counts as an orphan when no assistant
// message before it in the request made the call it answers.
func TestOrphanResults(t *testing.T) {
	call := func(id string) map[string]any {
		return map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": id}}}
	}
	result := func(id string) map[string]any { return map[string]any{"role": "tool", "tool_call_id": id} }
	cases := []struct {
		name string
		msgs []map[string]any
		want int
	}{
		{"paired", []map[string]any{{"role": "user"}, call("a"), result("a")}, 0},
		{"call summarised away", []map[string]any{{"role": "system"}, result("a"), call("b"), result("b")}, 1},
		{"result before its call", []map[string]any{result("a"), call("a")}, 1},
	}
	for _, c := range cases {
		if got := orphanResults(c.msgs); got != c.want {
			t.Errorf("%s: %d orphans, want %d", c.name, got, c.want)
		}
	}
}
