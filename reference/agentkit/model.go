package agentkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// message is one chat message of the OpenAI-compatible API.
type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type toolSpec struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

// modelClient calls POST {base_url}/chat/completions.
type modelClient struct {
	http    *http.Client
	baseURL string
	apiKey  string
	model   string
}

func newModelClient(m ModelConfig, hc *http.Client) *modelClient {
	s := func(k string) string { v, _ := m.Config[k].(string); return v }
	return &modelClient{http: hc, baseURL: strings.TrimRight(s("base_url"), "/"), apiKey: s("api_key"), model: s("model")}
}

// complete asks the model for the next message. With onDelta set the reply
// is streamed and every non-empty content chunk is passed on as it arrives.
func (c *modelClient) complete(ctx context.Context, msgs []message, tools []toolSpec, onDelta func(string) error) (message, error) {
	body := map[string]any{"model": c.model, "messages": msgs}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	if onDelta != nil {
		body["stream"] = true
	}
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/chat/completions", bytes.NewReader(raw))
	if err != nil {
		return message{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	resp, err := c.http.Do(req)
	if err != nil {
		return message{}, fmt.Errorf("model call: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return message{}, fmt.Errorf("model call: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if onDelta == nil {
		var out struct {
			Choices []struct {
				Message message `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			return message{}, fmt.Errorf("model reply: %w", err)
		}
		if len(out.Choices) == 0 {
			return message{}, fmt.Errorf("model reply has no choices")
		}
		return out.Choices[0].Message, nil
	}
	return readStream(resp.Body, onDelta)
}

// readStream assembles a streamed reply from chat.completion.chunk frames.
func readStream(r io.Reader, onDelta func(string) error) (message, error) {
	msg := message{Role: "assistant"}
	var content strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		line = strings.TrimSpace(line)
		if line == "[DONE]" {
			msg.Content = content.String()
			return msg, nil
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(line), &chunk); err != nil {
			return msg, fmt.Errorf("model stream: %w", err)
		}
		for _, ch := range chunk.Choices {
			if d := ch.Delta.Content; d != "" {
				content.WriteString(d)
				if err := onDelta(d); err != nil {
					return msg, err
				}
			}
			for _, tc := range ch.Delta.ToolCalls {
				for len(msg.ToolCalls) <= tc.Index {
					msg.ToolCalls = append(msg.ToolCalls, toolCall{Type: "function"})
				}
				t := &msg.ToolCalls[tc.Index]
				if tc.ID != "" {
					t.ID = tc.ID
				}
				t.Function.Name += tc.Function.Name
				t.Function.Arguments += tc.Function.Arguments
			}
		}
	}
	if err := sc.Err(); err != nil {
		return msg, fmt.Errorf("model stream broke: %w", err)
	}
	return msg, fmt.Errorf("model stream ended without [DONE]")
}
