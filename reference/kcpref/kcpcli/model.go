package kcpcli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// provider is a resolved model: the name kcp-agent shows (its prefix), the
// model id sent, and the endpoint. Only OpenAI-compatible endpoints are
// built in; another provider fails when it is called.
type provider struct {
	name, model, base, key string
	unsupported            string // why the provider cannot be called
}

// knownBases are the endpoints of kcp-agent's provider prefixes.
var knownBases = map[string]string{
	"openai": "https://api.openai.com/v1",
	"groq":   "https://api.groq.com/openai/v1",
	"ollama": "http://localhost:11434/v1",
}

var urlModel = regexp.MustCompile(`(?i)^https?://`)

func envKey(name string) string { return strings.TrimSpace(os.Getenv(name)) }

func orEnv(v string, names ...string) string {
	for _, n := range append([]string{""}, names...) {
		if v != "" {
			return v
		}
		if n != "" {
			v = envKey(n)
		}
	}
	return v
}

// resolveProvider reads a model string as kcp-agent does: "provider/id"
// (anthropic, openai, groq, ollama, or any other prefix as an
// OpenAI-compatible endpoint), a base URL, or a bare id guessed from its
// name and the keys at hand.
func resolveProvider(spec, baseURL, apiKey string) provider {
	anthropic := func(model string) provider {
		return provider{name: "anthropic", model: model, unsupported: "the Anthropic provider is not built into the Go port; point it at an OpenAI-compatible endpoint with --model openai/<id> --base-url <url>"}
	}
	or := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	if urlModel.MatchString(spec) {
		return provider{name: "custom", model: "default", base: spec, key: orEnv(apiKey, "OPENAI_API_KEY")}
	}
	if i := strings.Index(spec, "/"); i > 0 {
		prefix, id := strings.ToLower(spec[:i]), spec[i+1:]
		if prefix == "anthropic" {
			return anthropic(id)
		}
		if known, ok := knownBases[prefix]; ok {
			env := strings.ToUpper(prefix) + "_API_KEY"
			return provider{name: prefix, model: id, base: or(baseURL, known), key: orEnv(apiKey, env, "OPENAI_API_KEY")}
		}
		return provider{name: prefix, model: id, base: or(baseURL, knownBases["openai"]), key: orEnv(apiKey, "OPENAI_API_KEY")}
	}
	switch {
	case apiKey != "" && strings.HasPrefix(spec, "claude"):
		return anthropic(spec)
	case apiKey != "":
		return provider{name: "openai", model: spec, base: or(baseURL, knownBases["openai"]), key: apiKey}
	case envKey("ANTHROPIC_API_KEY") != "":
		return anthropic(spec)
	case envKey("OPENAI_API_KEY") != "":
		return provider{name: "openai", model: spec, base: or(baseURL, knownBases["openai"]), key: envKey("OPENAI_API_KEY")}
	}
	return anthropic(spec)
}

// display is how kcp-agent names the model in an answer.
func (p provider) display() string { return p.name + "/" + p.model }

var modelClient = &http.Client{Timeout: 5 * time.Minute}

// complete posts one chat completion and returns the assistant's text,
// trimmed ("" when the answer has none). A status that is not 2xx is
// "<name> API error <status>: <the body's first 200 characters>".
func (p provider) complete(faults []kcpref.Fault) kcpref.Complete {
	return func(messages []kcpref.ChatMessage, maxTokens int) (string, error) {
		if p.unsupported != "" {
			return "", errors.New(p.unsupported)
		}
		body, _ := json.Marshal(struct {
			Model     string               `json:"model"`
			Messages  []kcpref.ChatMessage `json:"messages"`
			MaxTokens int                  `json:"max_tokens"`
		}{p.model, messages, maxTokens})
		req, err := http.NewRequest(http.MethodPost, strings.TrimRight(p.base, "/")+"/chat/completions", bytes.NewReader(body))
		if err != nil {
			return "", err
		}
		req.Header.Set("Content-Type", "application/json")
		if p.key != "" {
			req.Header.Set("Authorization", "Bearer "+p.key)
		}
		res, err := modelClient.Do(req)
		if err != nil {
			return "", fmt.Errorf("%s API unreachable: %w", p.name, err)
		}
		defer res.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
		if err != nil {
			return "", fmt.Errorf("%s API answer unreadable: %w", p.name, err)
		}
		if res.StatusCode < 200 || res.StatusCode > 299 {
			if kcpref.HasFault(faults, kcpref.FaultAskModelErrorIgnored) {
				return "", nil
			}
			text := []rune(string(raw))
			if len(text) > 200 {
				text = text[:200]
			}
			return "", fmt.Errorf("%s API error %d: %s", p.name, res.StatusCode, string(text))
		}
		var answer struct {
			Choices []struct {
				Message struct {
					Content any `json:"content"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(raw, &answer); err != nil {
			return "", fmt.Errorf("%s API answer is not JSON: %v", p.name, err)
		}
		if len(answer.Choices) == 0 {
			return "", nil
		}
		s, _ := answer.Choices[0].Message.Content.(string)
		return strings.TrimSpace(s), nil
	}
}
