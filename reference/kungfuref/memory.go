package kungfuref

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"time"
)

// memory is the derived state of one Memory (§5).
type memory struct {
	id        string
	author    string
	versions  []string // content of version i+1
	public    bool
	withdrawn bool
	// everPublic is read only by the planted revoked-reads fault.
	everPublic bool
	createdAt  time.Time
}

func (m *memory) current() int { return len(m.versions) }

func (m *memory) visibility() string {
	if m.public {
		return "public"
	}
	return "private"
}

func (m *memory) state() string {
	if m.withdrawn {
		return "withdrawn"
	}
	return "valid"
}

// notFound is the one answer for a Memory the caller may not see, whether or
// not it exists (§12 minimal disclosure).
func notFound(id string) *Rejection {
	return rejection(ReasonNotFound, "stop", fmt.Sprintf("no memory %q is visible to you", id))
}

// ownMemory finds a Memory for an author-only action.
func (s *Service) ownMemory(req Request) (*memory, *Rejection) {
	id, ok := stringParam(req.Params, "memory")
	if !ok {
		return nil, rejection(ReasonInvalidParams, "retry", "memory (the Memory id) is required")
	}
	m, ok := s.memories[id]
	if !ok || !s.canRead(req.Agent, m) {
		if ok && s.faults[FaultExistenceLeak] {
			return nil, rejection(ReasonForbidden, "stop", fmt.Sprintf("memory %q is private", id))
		}
		return nil, notFound(id)
	}
	if m.author != req.Agent && !(s.faults[FaultNonAuthorWrites] && req.Action == "memory.update") {
		return nil, rejection(ReasonForbidden, "stop", "only the author of a Memory may change it")
	}
	return m, nil
}

func (s *Service) canRead(agentID string, m *memory) bool {
	if s.faults[FaultRevokedReads] && m.everPublic && !m.withdrawn {
		return true
	}
	return m.author == agentID || (m.public && !m.withdrawn)
}

func (s *Service) content(req Request) (string, *Rejection) {
	c, ok := req.Params["content"].(string)
	if !ok || c == "" {
		return "", rejection(ReasonInvalidParams, "retry", "content (a non-empty string) is required")
	}
	if s.limits.MaxContentBytes > 0 && len(c) > s.limits.MaxContentBytes {
		return "", rejection(ReasonInvalidParams, "retry",
			fmt.Sprintf("content is %d bytes; at most %d are allowed", len(c), s.limits.MaxContentBytes))
	}
	return c, nil
}

func (s *Service) createMemory(req Request) ([]Fact, map[string]any, *Rejection) {
	c, rej := s.content(req)
	if rej != nil {
		return nil, nil, rej
	}
	id := fmt.Sprintf("mem-%d", s.seq+1)
	facts := []Fact{{Kind: FactMemoryCreated, Agent: req.Agent, Object: id, Data: mustJSON(memoryData{Version: 1, Content: c})}}
	visibility := "private"
	if s.faults[FaultStartsPublic] || s.faults[FaultContentActs] && strings.Contains(c, "#publish") {
		facts = append(facts, Fact{Kind: FactMemoryPublished, Agent: req.Agent, Object: id})
		visibility = "public"
	}
	return facts, map[string]any{"memory": id, "author": req.Agent, "version": 1, "visibility": visibility, "state": "valid"}, nil
}

func (s *Service) updateMemory(req Request) ([]Fact, map[string]any, *Rejection) {
	m, rej := s.ownMemory(req)
	if rej != nil {
		return nil, nil, rej
	}
	if m.withdrawn && !s.faults[FaultWithdrawNotTerminal] {
		return nil, nil, rejection(ReasonInvalidState, "stop", "the Memory is withdrawn; withdrawal is terminal")
	}
	c, rej := s.content(req)
	if rej != nil {
		if s.faults[FaultPartialEffect] {
			return []Fact{{Kind: FactMemoryUpdated, Agent: req.Agent, Object: m.id,
				Data: mustJSON(memoryData{Version: m.current() + 1, Content: c})}}, nil, rej
		}
		return nil, nil, rej
	}
	version := m.current() + 1
	if s.faults[FaultLostUpdate] {
		// planted: let a competing update in between reading and writing the version number
		s.mu.Unlock()
		runtime.Gosched()
		time.Sleep(time.Millisecond)
		s.mu.Lock()
	}
	f := Fact{Kind: FactMemoryUpdated, Agent: req.Agent, Object: m.id, Data: mustJSON(memoryData{Version: version, Content: c})}
	facts := []Fact{f}
	if s.faults[FaultUpdateChangesVisibility] && m.public {
		facts = append(facts, Fact{Kind: FactMemoryUnpublished, Agent: req.Agent, Object: m.id})
	}
	return facts, map[string]any{"memory": m.id, "version": version}, nil
}

func (s *Service) publishMemory(req Request) ([]Fact, map[string]any, *Rejection) {
	return s.setVisibility(req, true)
}

func (s *Service) unpublishMemory(req Request) ([]Fact, map[string]any, *Rejection) {
	return s.setVisibility(req, false)
}

func (s *Service) setVisibility(req Request, public bool) ([]Fact, map[string]any, *Rejection) {
	m, rej := s.ownMemory(req)
	if rej != nil {
		return nil, nil, rej
	}
	if m.withdrawn && !s.faults[FaultWithdrawNotTerminal] {
		return nil, nil, rejection(ReasonInvalidState, "stop", "the Memory is withdrawn; withdrawal is terminal")
	}
	kind, word := FactMemoryPublished, "public"
	if !public {
		kind, word = FactMemoryUnpublished, "private"
	}
	if m.public == public && !s.faults[FaultImplicitSuccess] {
		return nil, nil, rejection(ReasonInvalidState, "done", fmt.Sprintf("the Memory is already %s; nothing to do", word))
	}
	return []Fact{{Kind: kind, Agent: req.Agent, Object: m.id}},
		map[string]any{"memory": m.id, "visibility": word, "version": m.current()}, nil
}

func (s *Service) withdrawMemory(req Request) ([]Fact, map[string]any, *Rejection) {
	m, rej := s.ownMemory(req)
	if rej != nil {
		return nil, nil, rej
	}
	if m.withdrawn {
		return nil, nil, rejection(ReasonInvalidState, "done", "the Memory is already withdrawn")
	}
	return []Fact{{Kind: FactMemoryWithdrawn, Agent: req.Agent, Object: m.id}},
		map[string]any{"memory": m.id, "state": "withdrawn", "version": m.current()}, nil
}

func (s *Service) applyMemory(f Fact) error {
	if f.Kind == FactMemoryCreated {
		var d memoryData
		if err := json.Unmarshal(f.Data, &d); err != nil {
			return err
		}
		s.memories[f.Object] = &memory{id: f.Object, author: f.Agent, versions: []string{d.Content}, createdAt: f.At}
		s.order = append(s.order, f.Object)
		return nil
	}
	m, ok := s.memories[f.Object]
	if !ok {
		return fmt.Errorf("fact %s names unknown memory %q", f.Kind, f.Object)
	}
	switch f.Kind {
	case FactMemoryUpdated:
		var d memoryData
		if err := json.Unmarshal(f.Data, &d); err != nil {
			return err
		}
		switch {
		case s.faults[FaultMutableVersions]:
			for i := range m.versions {
				m.versions[i] = d.Content
			}
			m.versions = append(m.versions, d.Content)
		case d.Version <= len(m.versions) && s.faults[FaultLostUpdate]:
			m.versions[d.Version-1] = d.Content
		default:
			m.versions = append(m.versions, d.Content)
		}
	case FactMemoryPublished:
		m.public = true
		m.everPublic = true
	case FactMemoryUnpublished:
		m.public = false
	case FactMemoryWithdrawn:
		m.withdrawn = true
	default:
		return fmt.Errorf("unknown fact kind %q", f.Kind)
	}
	return nil
}

var memoryActions = map[string]handler{
	"memory.create":    (*Service).createMemory,
	"memory.update":    (*Service).updateMemory,
	"memory.publish":   (*Service).publishMemory,
	"memory.unpublish": (*Service).unpublishMemory,
	"memory.withdraw":  (*Service).withdrawMemory,
}

var memoryViews = map[string]view{
	"memory":   (*Service).readMemory,
	"memories": (*Service).listMemories,
}

func (s *Service) readMemory(agentID string, params map[string]any) Response {
	id, ok := stringParam(params, "memory")
	if !ok {
		return s.reject(ReasonInvalidParams, "retry", "memory (the Memory id) is required")
	}
	m, ok := s.memories[id]
	if !ok || !s.canRead(agentID, m) {
		if ok && s.faults[FaultExistenceLeak] {
			return s.reject(ReasonForbidden, "stop", fmt.Sprintf("memory %q is private", id))
		}
		return Response{Rejection: notFound(id)}
	}
	version, given, err := intParam(params, "version")
	if err != nil {
		return s.reject(ReasonInvalidParams, "retry", err.Error())
	}
	if !given {
		version = m.current()
	}
	if version < 1 || version > m.current() {
		return Response{Rejection: notFound(id)}
	}
	if m.author != agentID && version != m.current() && !s.faults[FaultStrangerReadsOldVersions] {
		// Others read the current version only (§5): older ones are not visible to them.
		return Response{Rejection: notFound(id)}
	}
	res := map[string]any{
		"memory": m.id, "author": m.author, "version": version, "current_version": m.current(),
		"visibility": m.visibility(), "state": m.state(),
		"created_at": m.createdAt.UTC().Format(time.RFC3339Nano),
		"content":    m.versions[version-1],
	}
	if s.faults[FaultContentInStructure] {
		var smuggled map[string]any
		if json.Unmarshal([]byte(strings.TrimSpace(m.versions[version-1])), &smuggled) == nil {
			for k, v := range smuggled {
				res[k] = v
			}
		}
	}
	return Response{Result: res}
}

func (s *Service) listMemories(agentID string, params map[string]any) Response {
	scope, _ := params["scope"].(string)
	if scope == "" {
		scope = "own"
	}
	if scope != "own" && scope != "public" {
		return s.reject(ReasonInvalidParams, "retry", `scope must be "own" or "public"`)
	}
	limit, start, rej := pageParams(params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	pg := newOffsetPager(limit, start)
	for _, id := range s.order {
		m := s.memories[id]
		if m.withdrawn && !s.faults[FaultListsWithdrawn] && !(s.faults[FaultPublicListsWithdrawn] && scope == "public") {
			continue
		}
		if scope == "own" && m.author != agentID || scope == "public" && !m.public {
			continue
		}
		if !pg.offer(func() any {
			return map[string]any{"memory": m.id, "author": m.author, "version": m.current(),
				"visibility": m.visibility(), "state": m.state()}
		}) {
			break
		}
	}
	return Response{Result: map[string]any{"items": pg.items, "next_cursor": pg.next}}
}

// currentView is the planted replay-drift fault: it answers a replay with the
// object's present state instead of the stored receipt.
func (s *Service) currentView(receipt map[string]any) map[string]any {
	out := cloneMap(receipt)
	id, _ := receipt["memory"].(string)
	if m, ok := s.memories[id]; ok {
		out["version"] = m.current()
		out["visibility"] = m.visibility()
		out["state"] = m.state()
	}
	return out
}
