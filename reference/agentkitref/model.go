package agentkitref

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// message is one chat message of the OpenAI-compatible API.
type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Covered, on a session's summary record (role summary, never sent),
	// is how many of the session's messages the summary stands for.
	Covered int `json:"covered,omitempty"`
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
	faults  []Fault
}

func newModelClient(m ModelConfig, hc *http.Client) *modelClient {
	s := func(k string) string { v, _ := m.Config[k].(string); return v }
	return &modelClient{http: hc, baseURL: strings.TrimRight(s("base_url"), "/"), apiKey: s("api_key"), model: s("model")}
}

// complete asks the model for the next message. With onDelta set the reply
// is streamed and every non-empty content chunk is passed on as it arrives.
func (c *modelClient) complete(ctx context.Context, msgs []message, tools []toolSpec, onDelta func(string) error, stream bool) (message, error) {
	body := map[string]any{"model": c.model, "messages": msgs}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	if stream {
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
		return message{}, fmt.Errorf("model call: %w: %w", errNoAnswer, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return message{}, &statusError{code: resp.StatusCode, body: strings.TrimSpace(string(b))}
	}
	if !stream {
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
	return readStream(resp.Body, onDelta, c.faults)
}

// statusError is a model call answered with an HTTP error.
type statusError struct {
	code int
	body string
}

func (e *statusError) Error() string { return fmt.Sprintf("model call: HTTP %d: %s", e.code, e.body) }

// transient reports whether a failed model call is worth trying again: a
// 429 or a 5xx, or no answer at all; never a cancelled call.
func transient(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var se *statusError
	if errors.As(err, &se) {
		return se.code == http.StatusTooManyRequests || se.code >= 500
	}
	return errors.Is(err, errNoAnswer)
}

// errNoAnswer marks a model call that got no HTTP answer.
var errNoAnswer = errors.New("no answer")

// completeRetrying is complete with the agent's retry policy
// (reliability.retry of the agent, else of the app): a transient failure
// before any streamed byte is tried again after a backoff, up to
// max_attempts calls in all (3 by default).
func (g *Gateway) completeRetrying(ctx context.Context, a *agentRT, msgs []message, tools []toolSpec, onDelta func(string) error) (message, error) {
	r := Retry{}
	switch {
	case a.cfg.Reliability.Retry != nil:
		r = *a.cfg.Reliability.Retry
	case g.app.Reliability.Retry != nil:
		r = *g.app.Reliability.Retry
	}
	attempts := r.MaxAttempts
	switch {
	case attempts == 0:
		attempts = 3
	case attempts < 1:
		attempts = 1
	}
	if has(g.faults, FaultNoRetry) {
		attempts = 1
	}
	base, limit := time.Duration(r.BaseDelay), time.Duration(r.MaxDelay)
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	if limit <= 0 {
		limit = 8 * time.Second
	}
	var err error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			d := base << (i - 1)
			if d > limit {
				d = limit
			}
			select {
			case <-ctx.Done():
				return message{}, err
			case <-time.After(d):
			}
		}
		streamed := false
		var reply message
		reply, err = g.model.complete(ctx, msgs, tools, func(d string) error {
			streamed = true
			return onDelta(d)
		}, onDelta != nil)
		if err == nil || streamed || !(transient(ctx, err) || has(g.faults, FaultRetryDeterministic)) {
			return reply, err
		}
	}
	return message{}, err
}

// readStream assembles a streamed reply from chat.completion.chunk frames.
func readStream(r io.Reader, onDelta func(string) error, faults []Fault) (message, error) {
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
				if tc.ID == "" && has(faults, FaultStreamArgsFirst) {
					continue // keeps the fragment that came with the call's id only
				}
				t.Function.Arguments += tc.Function.Arguments
			}
		}
	}
	if err := sc.Err(); err != nil {
		return msg, fmt.Errorf("model stream broke: %w", err)
	}
	return msg, fmt.Errorf("model stream ended without [DONE]")
}
