package agentkitref

// This file holds the supply besides http and mcp sources: remote agents
// (type a2a: another deployment's agents over its A2A endpoints) and the
// vector source (type vector: retrieval over in-memory documents with a
// lexical backend).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode"
)

// a2aSource is the config of a source of type a2a.
type a2aSource struct {
	BaseURL string            `json:"base_url"`
	Headers map[string]string `json:"headers"`
	// Agents is the allow-list; empty takes every remote agent.
	Agents     []string `json:"agents"`
	Risk       string   `json:"risk"` // default mutating: a remote agent's effects are unseen
	TimeoutSec int      `json:"timeout_sec"`
}

// a2aDecl is an a2a source as configured, listed when the gateway is built.
type a2aDecl struct {
	name     string
	required bool
	cfg      a2aSource
	risk     int
}

func (s Source) readA2A() (*a2aDecl, error) {
	var cfg a2aSource
	if err := recodeConfig(s.Config, &cfg); err != nil {
		return nil, err
	}
	if cfg.BaseURL == "" {
		return nil, errors.New("a2a: base_url is required")
	}
	if cfg.Risk == "" {
		cfg.Risk = "mutating"
	}
	risk, err := parseRisk(cfg.Risk)
	if err != nil {
		return nil, err
	}
	if cfg.TimeoutSec <= 0 {
		cfg.TimeoutSec = 300
	}
	return &a2aDecl{name: s.Name, required: s.Required != nil && *s.Required, cfg: cfg, risk: risk}, nil
}

func recodeConfig(from map[string]any, to any) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, to); err != nil {
		return fmt.Errorf("decode config: %w", err)
	}
	return nil
}

// connectA2A lists the remote agents: each becomes
// cap://agent/<source>/<name>, called with one argument, task.
func connectA2A(d *a2aDecl, faults []Fault) ([]*capability, error) {
	client := &http.Client{Timeout: time.Duration(d.cfg.TimeoutSec) * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), mcpConnectLimit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.cfg.BaseURL+"/a2a/agents", nil)
	if err != nil {
		return nil, err
	}
	d.headers(req, faults)
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list remote agents: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("list remote agents: HTTP %d: %s", resp.StatusCode, body)
	}
	var agents []struct{ Name, Description string }
	if err := json.NewDecoder(resp.Body).Decode(&agents); err != nil {
		return nil, fmt.Errorf("list remote agents: %w", err)
	}
	var out []*capability
	for _, a := range agents {
		if len(d.cfg.Agents) > 0 && !contains(d.cfg.Agents, a.Name) && !has(faults, FaultA2AAllowList) {
			continue
		}
		name := a.Name
		risk := d.risk
		if has(faults, FaultA2AReadonly) {
			risk = 0
		}
		out = append(out, &capability{ref: Ref{Kind: "agent", Domain: d.name, Name: name}, description: a.Description, risk: risk,
			run: func(ctx context.Context, args string) (string, bool) { return d.task(ctx, client, name, args, faults) }})
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (d *a2aDecl) headers(req *http.Request, faults []Fault) {
	if has(faults, FaultA2ANoHeaders) {
		return
	}
	for k, v := range d.cfg.Headers {
		req.Header.Set(k, v)
	}
}

// task sends the model's task to a remote agent. A transport failure or a
// remote error is a result the model sees.
func (d *a2aDecl) task(ctx context.Context, client *http.Client, agent, args string, faults []Fault) (string, bool) {
	task := args
	var given map[string]any
	if json.Unmarshal([]byte(args), &given) == nil {
		if v, ok := given["task"]; ok {
			task = fmt.Sprint(v)
		}
	}
	if has(faults, FaultA2AWholeArgs) {
		task = args
	}
	body, _ := json.Marshal(map[string]string{"task": task})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.cfg.BaseURL+"/a2a/agents/"+url.PathEscape(agent)+"/tasks", bytes.NewReader(body))
	if err != nil {
		return "a2a error: " + err.Error(), true
	}
	req.Header.Set("Content-Type", "application/json")
	d.headers(req, faults)
	resp, err := client.Do(req)
	if err != nil {
		return "a2a error: " + err.Error(), false
	}
	defer resp.Body.Close()
	var out struct{ Result, Error string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "a2a error: the remote answer is not JSON: " + err.Error(), true
	}
	if out.Error != "" {
		if has(faults, FaultA2AErrorHidden) {
			return "", true
		}
		return "a2a remote error: " + out.Error, true
	}
	return out.Result, true
}

// vectorSource is the config of a source of type vector.
type vectorSource struct {
	Description string   `json:"description"`
	ToolName    string   `json:"tool_name"`
	TopK        int      `json:"top_k"`
	MaxDocLen   int      `json:"max_doc_len"`
	Backend     string   `json:"backend"`
	Docs        []string `json:"docs"`
}

// supply is what an app reaches besides its sources: its configuration's
// files, for file prompts.
type supply struct {
	// root and base are the configuration's files and the app file's
	// directory in it (file prompts are read there).
	root fs.FS
	base string
}

// vectorDecl is a vector source as configured.
type vectorDecl struct {
	name string
	cfg  vectorSource
}

// readSupply reads a source of type a2a or vector into d.
func (d *sourceDecl) readSupply(s Source) error {
	switch s.Type {
	case "a2a":
		a, err := s.readA2A()
		if err != nil {
			return err
		}
		d.a2a = a
		return nil
	case "vector":
		var cfg vectorSource
		if err := recodeConfig(s.Config, &cfg); err != nil {
			return err
		}
		if cfg.Backend != "" && cfg.Backend != "inmemory" {
			return fmt.Errorf("vector: unknown backend %q (this gateway has inmemory)", cfg.Backend)
		}
		if cfg.ToolName == "" {
			cfg.ToolName = "search_knowledge_base"
		}
		if cfg.Description == "" {
			cfg.Description = "Search the knowledge base for the passages most relevant to a query."
		}
		d.vector = &vectorDecl{name: s.Name, cfg: cfg}
		return nil
	}
	return fmt.Errorf("source type %q is not an a2a or vector source", s.Type)
}

// supplyCaps lists an a2a source's remote agents or makes a vector
// source's tool. A required a2a source that cannot be listed fails
// start-up; an optional one is skipped with a warning (ok false).
func supplyCaps(src sourceDecl, faults []Fault, warn io.Writer) (caps []*capability, ok bool, err error) {
	if d := src.a2a; d != nil {
		caps, err := connectA2A(d, faults)
		if err != nil {
			if d.required {
				return nil, false, fmt.Errorf("catalog: required source %q is unavailable: %w", d.name, err)
			}
			if warn != nil {
				fmt.Fprintf(warn, "agentkit: optional source %q is unavailable, started without its agents: %v\n", d.name, err)
			}
			return nil, false, nil
		}
		return caps, true, nil
	}
	v := src.vector
	cfg := v.cfg
	risk := 0
	if has(faults, FaultVectorMutating) {
		risk = 1
	}
	return []*capability{{ref: Ref{Kind: "tool", Domain: v.name, Name: cfg.ToolName}, description: cfg.Description, risk: risk,
		run: func(_ context.Context, args string) (string, bool) { return cfg.search(args, faults), true }}}, true, nil
}

// search ranks the documents by the character bigrams they share with the
// query (case and spaces aside) and lists the top_k (3 by default) that
// share any, best first.
func (cfg vectorSource) search(args string, faults []Fault) string {
	var a struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil || a.Query == "" {
		a.Query = args
	}
	if q := strings.TrimSpace(a.Query); q == "" || q == "{}" {
		return "invalid arguments: query is required"
	}
	q := bigrams(a.Query)
	type hit struct {
		doc   string
		score int
	}
	var hits []hit
	for _, d := range cfg.Docs {
		n := 0
		for g := range bigrams(d) {
			if _, ok := q[g]; ok {
				n++
			}
		}
		if n > 0 || has(faults, FaultVectorEveryDoc) {
			hits = append(hits, hit{d, n})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	k := cfg.TopK
	if k <= 0 {
		k = 3
	}
	if len(hits) > k && !has(faults, FaultVectorNoTopK) {
		hits = hits[:k]
	}
	if len(hits) == 0 {
		return "no relevant documents found"
	}
	var b strings.Builder
	for i, h := range hits {
		text := h.doc
		if r := []rune(text); cfg.MaxDocLen > 0 && len(r) > cfg.MaxDocLen && !has(faults, FaultVectorNoTruncate) {
			text = string(r[:cfg.MaxDocLen]) + "..."
		}
		fmt.Fprintf(&b, "[doc %d] %s\n", i+1, text)
	}
	return b.String()
}

// bigrams are the pairs of neighbouring characters of s, lower-cased,
// spaces left out.
func bigrams(s string) map[string]struct{} {
	var chars []rune
	for _, c := range s {
		if !unicode.IsSpace(c) {
			chars = append(chars, unicode.ToLower(c))
		}
	}
	out := make(map[string]struct{}, len(chars))
	for i := 1; i < len(chars); i++ {
		out[string(chars[i-1:i+1])] = struct{}{}
	}
	return out
}
