package agentkithttp

// This file is the stub supply a generated configuration points at besides
// the model, the tools and the MCP servers: remote agents a `type: a2a`
// source lists and sends tasks to (/a2a-stub/<check>/<source>/a2a/...), and
// the prompt platform of an http prompt source
// (/prompt-stub/<check>/prompts/<name>). Each records what it received per
// check, so a check reads what the gateway sent.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// a2aAgents are the remote agents the stub A2A server lists.
var a2aAgents = []map[string]string{
	{"name": "researcher", "description": "Researches a topic and reports findings"},
	{"name": "writer", "description": "Writes a short draft on a topic"},
}

// promptSource is the source name under which the stub's prompts are read.
const promptSource = "prompts"

func (s *Stub) recordSupply(key, source string, r *http.Request, body any) int {
	req := agentkit.SupplyRequest{Method: r.Method, Path: r.URL.EscapedPath(), Query: map[string]string{}, Headers: map[string]string{}, Body: body}
	for k, v := range r.URL.Query() {
		req.Query[k] = v[0]
	}
	for k, v := range r.Header {
		if k == "Authorization" || strings.HasPrefix(k, "X-") {
			req.Headers[k] = v[0]
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key + "\x1f" + source
	s.supply[k] = append(s.supply[k], req)
	n := 0
	for _, q := range s.supply[k] {
		if q.Method == http.MethodPost {
			n++
		}
	}
	return n
}

// SupplyRequests returns what the stub remote agents of source, or the
// stub prompt platform (source "prompts"), received for key.
func (s *Stub) SupplyRequests(key, source string) []agentkit.SupplyRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]agentkit.SupplyRequest(nil), s.supply[key+"\x1f"+source]...)
}

// serveSupply adds the stub A2A agents and prompt platform to the mux.
func (s *Stub) serveSupply(mux *http.ServeMux) {
	mux.HandleFunc("GET /a2a-stub/{key}/{source}/{answer}/a2a/agents", func(w http.ResponseWriter, r *http.Request) {
		s.recordSupply(r.PathValue("key"), r.PathValue("source"), r, nil)
		writeJSON(w, http.StatusOK, a2aAgents)
	})
	mux.HandleFunc("POST /a2a-stub/{key}/{source}/{answer}/a2a/agents/{name}/tasks", func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var body any
		if json.Unmarshal(raw, &body) != nil {
			body = string(raw)
		}
		n := s.recordSupply(r.PathValue("key"), r.PathValue("source"), r, body)
		name := r.PathValue("name")
		if r.PathValue("answer") == "error" {
			writeJSON(w, http.StatusOK, map[string]string{"error": "sifu stub: scripted failure of remote agent " + name})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"result": fmt.Sprintf("%s-a2a-receipt-%d", name, n)})
	})
	mux.HandleFunc("GET /prompt-stub/{key}/prompts/{name}", func(w http.ResponseWriter, r *http.Request) {
		key, name := r.PathValue("key"), r.PathValue("name")
		s.recordSupply(key, promptSource, r, nil)
		s.mu.Lock()
		text, ok := s.prompts[key][name]
		s.mu.Unlock()
		if !ok {
			http.Error(w, "sifu stub: no prompt named "+name, http.StatusNotFound)
			return
		}
		label := r.URL.Query().Get("label")
		writeJSON(w, http.StatusOK, map[string]string{"name": name, "version": "sifu-" + label, "text": strings.ReplaceAll(text, "{label}", label)})
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// SupplySourceData is one a2a or vector source ready to render.
type SupplySourceData struct {
	Name, Type string
	Required   bool
	Config     map[string]any
	// Include is the assistant's include pattern for the source.
	Include string
}

// supplyData fills the supply part of the templates and tells the stub
// which prompts to serve for the check.
func (s *Stub) supplyData(d *ConfigData) {
	st := d.Settings
	for _, a := range st.A2A {
		cfg := map[string]any{"base_url": s.URL() + "/a2a-stub/" + st.MCPKey + "/" + a.Name + "/" + answerPath(a.Answer)}
		if len(a.Agents) > 0 {
			cfg["agents"] = a.Agents
		}
		if a.Risk != "" {
			cfg["risk"] = a.Risk
		}
		if len(a.Headers) > 0 {
			cfg["headers"] = a.Headers
		}
		d.SupplySources = append(d.SupplySources, SupplySourceData{Name: a.Name, Type: "a2a", Required: a.Required, Config: cfg, Include: "cap://agent/" + a.Name + "/*"})
	}
	for _, v := range st.Vector {
		cfg := map[string]any{"docs": v.Docs}
		if v.ToolName != "" {
			cfg["tool_name"] = v.ToolName
		}
		if v.Description != "" {
			cfg["description"] = v.Description
		}
		if v.TopK != 0 {
			cfg["top_k"] = v.TopK
		}
		if v.MaxDocLen != 0 {
			cfg["max_doc_len"] = v.MaxDocLen
		}
		d.SupplySources = append(d.SupplySources, SupplySourceData{Name: v.Name, Type: "vector", Config: cfg, Include: "cap://tool/" + v.Name + "/*"})
	}
	if p := st.Prompts; p != nil {
		d.PromptsURL = s.URL() + "/prompt-stub/" + st.MCPKey
		s.mu.Lock()
		s.prompts[st.MCPKey] = p.Served
		s.mu.Unlock()
	}
}

func answerPath(a string) string {
	if a == "" {
		return "ok"
	}
	return a
}

// SupplyFiles are the files besides the templates a check's settings ask
// for: the file prompts (prompts/<name>.md) and the secrets file.
func SupplyFiles(st agentkit.Settings) map[string]string {
	out := map[string]string{}
	if st.Prompts != nil {
		for n, text := range st.Prompts.Files {
			out["prompts/"+n+".md"] = text
		}
	}
	if st.Secrets != nil && st.Secrets.File != nil {
		names := make([]string, 0, len(st.Secrets.File))
		for n := range st.Secrets.File {
			names = append(names, n)
		}
		sort.Strings(names)
		var b strings.Builder
		for _, n := range names {
			v, _ := json.Marshal(st.Secrets.File[n])
			fmt.Fprintf(&b, "%s: %s\n", n, v)
		}
		out["secrets.yaml"] = b.String()
	}
	return out
}
