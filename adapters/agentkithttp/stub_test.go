package agentkithttp

import "testing"

func msg(role, content string, calls int) map[string]any {
	m := map[string]any{"role": role, "content": content}
	if calls > 0 {
		list := make([]any, calls)
		m["tool_calls"] = list
	}
	return m
}

// TestTurnOf: the reply position counts from the message that opened the
// current turn, whatever the session history before it or a restatement of
// the input after it.
func TestTurnOf(t *testing.T) {
	cases := []struct {
		name string
		msgs []map[string]any
		key  string
		at   int
	}{
		{"first call", []map[string]any{msg("system", "s", 0), msg("user", "go [sifu:k-a]", 0)}, "k-a", 1},
		{"focus at the tail", []map[string]any{msg("system", "s", 0), msg("user", "go [sifu:k-a]", 0), msg("assistant", "", 1),
			msg("tool", "r", 0), msg("user", "current question: go [sifu:k-a]", 0)}, "k-a", 1},
		{"history with the same script", []map[string]any{msg("system", "s", 0), msg("user", "go [sifu:k-a]", 0), msg("assistant", "done", 0),
			msg("user", "again [sifu:k-a]", 0), msg("assistant", "", 1), msg("tool", "r", 0)}, "k-a", 3},
		{"history with another script", []map[string]any{msg("user", "one [sifu:k-a]", 0), msg("assistant", "done", 0),
			msg("user", "two [sifu:k-b]", 0)}, "k-b", 2},
		{"unmarked new input", []map[string]any{msg("user", "one [sifu:k-a]", 0), msg("assistant", "done", 0), msg("user", "plain", 0)}, "", -1},
		{"nothing marked", []map[string]any{msg("user", "plain", 0)}, "", -1},
	}
	for _, c := range cases {
		if key, at := turnOf(c.msgs); key != c.key || at != c.at {
			t.Errorf("%s: got %q at %d, want %q at %d", c.name, key, at, c.key, c.at)
		}
	}
}

func TestSplitWordsJoinsBack(t *testing.T) {
	for _, s := range []string{"", "one", "one two  three ", " lead"} {
		got := ""
		for _, p := range splitWords(s) {
			got += p
		}
		if got != s {
			t.Errorf("%q split and joined is %q", s, got)
		}
	}
}
