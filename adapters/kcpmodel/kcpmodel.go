// Package kcpmodel serves the scripted OpenAI-compatible model a KCP
// command vector declares (kcp.ModelScript) on loopback, for the commands
// of one check (kcp-agent's ask), records what it received, and runs a
// request's commands — the first and its reruns — in one directory around
// it. It is harness-side: it holds no planner logic.
package kcpmodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/suite/kcp"
)

// Model is a running scripted model.
type Model struct {
	ln  net.Listener
	srv *http.Server

	mu       sync.Mutex
	replies  []kcp.ModelReply
	served   []bool
	requests []kcp.ModelRequest
}

// Start serves the script on 127.0.0.1 at a free port.
func Start(script kcp.ModelScript) (*Model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("scripted model: listen on loopback: %w", err)
	}
	m := &Model{ln: ln, replies: script.Replies, served: make([]bool, len(script.Replies))}
	mux := http.NewServeMux()
	mux.HandleFunc("/", m.serve)
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

// URL is the base URL an OpenAI-compatible client is given: it posts
// URL()+"/chat/completions".
func (m *Model) URL() string { return "http://" + m.ln.Addr().String() + "/v1" }

// Close stops the server.
func (m *Model) Close() error { return m.srv.Close() }

// Take returns the requests received since the last Take.
func (m *Model) Take() []kcp.ModelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.requests
	m.requests = nil
	if out == nil {
		out = []kcp.ModelRequest{}
	}
	return out
}

type chatBody struct {
	Model    string `json:"model"`
	Messages []struct {
		Content any `json:"content"`
	} `json:"messages"`
}

func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	var body any
	if json.Unmarshal(raw, &body) != nil {
		body = string(raw)
	}
	var chat chatBody
	_ = json.Unmarshal(raw, &chat)
	var contents []string
	for _, msg := range chat.Messages {
		if s, ok := msg.Content.(string); ok {
			contents = append(contents, s)
		}
	}
	m.mu.Lock()
	m.requests = append(m.requests, kcp.ModelRequest{Path: r.Method + " " + r.URL.Path, Authorization: r.Header.Get("Authorization"), Body: body, Text: strings.Join(contents, "\n\n")})
	pick := -1
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions") {
		for i, rep := range m.replies {
			if !m.served[i] && rep.Fits(chat.Model, contents) {
				pick = i
				m.served[i] = true
				break
			}
		}
	}
	m.mu.Unlock()
	if pick < 0 {
		http.Error(w, "sifu scripted model: no scripted reply fits this request", http.StatusInternalServerError)
		return
	}
	rep := m.replies[pick]
	w.Header().Set("Content-Type", "application/json")
	if rep.Content == nil {
		w.WriteHeader(rep.Status)
		_, _ = io.WriteString(w, *rep.Body)
		return
	}
	out, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("sifu-%d", pick), "object": "chat.completion", "created": 0, "model": chat.Model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": *rep.Content}, "finish_reason": "stop"}},
	})
	_, _ = w.Write(out)
}

// RunFunc runs one command line with its arguments placed, in a
// directory the request was materialized in.
type RunFunc func(ctx context.Context, args []string) (kcp.CLIResult, error)

// Run runs a request's command, then its reruns, in one materialized
// directory, with its scripted model served around them when it has one
// (its URL in place of kcp.ModelPlaceholder), and returns the first
// command's result with each command's model requests and the reruns'
// results; output has the paths written back as placeholders, and the
// model's URL as kcp.ModelPlaceholder.
func Run(ctx context.Context, req kcp.CLIRequest, run RunFunc) (kcp.CLIResult, error) {
	dir, manifest, args, err := req.Materialize()
	if err != nil {
		return kcp.CLIResult{}, err
	}
	defer os.RemoveAll(dir)
	var model *Model
	url := kcp.ModelPlaceholder
	if req.Model != nil {
		if model, err = Start(*req.Model); err != nil {
			return kcp.CLIResult{}, err
		}
		defer model.Close()
		url = model.URL()
	}
	one := func(args []string) (kcp.CLIResult, error) {
		res, err := run(ctx, kcp.PlaceModel(args, url))
		if err != nil {
			return res, err
		}
		res.Stdout = strings.ReplaceAll(kcp.Unplace(res.Stdout, dir, manifest), url, kcp.ModelPlaceholder)
		res.Stderr = strings.ReplaceAll(kcp.Unplace(res.Stderr, dir, manifest), url, kcp.ModelPlaceholder)
		if model != nil {
			res.Model = model.Take()
		}
		return res, nil
	}
	first, err := one(args)
	if err != nil {
		return first, err
	}
	for i, r := range req.Rerun {
		args, err := r.Rerun(dir, manifest, req.Args)
		if err != nil {
			return first, fmt.Errorf("rerun %d: %w", i, err)
		}
		res, err := one(args)
		if err != nil {
			return first, fmt.Errorf("rerun %d: %w", i, err)
		}
		first.Reruns = append(first.Reruns, res)
	}
	return first, nil
}
