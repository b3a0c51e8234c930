package kcpcli

import "testing"

// Model strings resolve as kcp-agent's do: a provider prefix, a base URL,
// or a bare id guessed from its name and the key given.
func TestResolveProvider(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	for _, c := range []struct {
		spec, base, key         string
		display, url, supported string
	}{
		{"openai/gpt", "http://h/v1/", "k", "openai/gpt", "http://h/v1/", "yes"},
		{"openai/gpt", "", "k", "openai/gpt", "https://api.openai.com/v1", "yes"},
		{"ollama/llama3", "", "", "ollama/llama3", "http://localhost:11434/v1", "yes"},
		{"acme/m1", "http://h", "k", "acme/m1", "http://h", "yes"},
		{"http://h/v1", "", "k", "custom/default", "http://h/v1", "yes"},
		{"anthropic/claude-x", "http://h", "k", "anthropic/claude-x", "", "no"},
		{"claude-haiku-4-5", "http://h", "k", "anthropic/claude-haiku-4-5", "", "no"},
		{"gpt-4o", "http://h", "k", "openai/gpt-4o", "http://h", "yes"},
		{"gpt-4o", "http://h", "", "anthropic/gpt-4o", "", "no"},
	} {
		p := resolveProvider(c.spec, c.base, c.key)
		supported := "yes"
		if p.unsupported != "" {
			supported = "no"
		}
		if p.display() != c.display || p.base != c.url || supported != c.supported {
			t.Errorf("%q (base %q, key %q): got %s at %q (supported %s), want %s at %q (%s)", c.spec, c.base, c.key, p.display(), p.base, supported, c.display, c.url, c.supported)
		}
	}
}
