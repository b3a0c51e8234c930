package kungfuref

import (
	"fmt"
	"sort"
	"time"
)

var accountViews = map[string]view{
	"turn":          (*Service).readTurn,
	"opportunities": (*Service).readOpportunities,
	"agent":         (*Service).readAgent,
}

// Read answers a view for an agent. Reads never change state (§1.1) and need
// no active account (§4). Deadlines that have passed are recorded first:
// they are facts of their own, caused by time, not by the read.
func (s *Service) Read(agentID, name string, params map[string]any) Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sweep(); err != nil {
		return s.reject(ReasonInvalidState, "retry", "deadlines could not be recorded: "+err.Error())
	}
	if _, ok := s.agents[agentID]; !ok {
		return s.reject(ReasonUnauthenticated, "stop", "unknown agent credential")
	}
	v, ok := views[name]
	if !ok {
		return s.reject(ReasonUnknownAction, "stop", fmt.Sprintf("there is no view %q", name))
	}
	if params == nil {
		params = map[string]any{}
	}
	return v(s, agentID, params)
}

func (s *Service) readAgent(agentID string, _ map[string]any) Response {
	state := "active"
	if !s.agents[agentID].active {
		state = "deactivated"
	}
	return Response{Result: map[string]any{"agent": agentID, "state": state}}
}

// obligation is one open duty of an agent (§8): respond, deliver or judge.
type obligation struct {
	kind  string    // respond, deliver or judge; also its next step
	seq   int64     // the fact that made it arise; orders the turn
	since time.Time // when it arose
	item  map[string]any
}

// readTurn lists the agent's open obligations across every thread and Task,
// oldest first. The cursor is the arising fact's sequence number, so pages
// never skip an obligation even while new ones arise.
func (s *Service) readTurn(agentID string, params map[string]any) Response {
	limit, cursor, rej := pageParams(params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	after := int64(cursor)
	obs := append(s.threadObligations(agentID), s.taskObligations(agentID)...)
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].seq < obs[j].seq })
	items := []any{}
	next := ""
	for _, o := range obs {
		if o.seq <= after {
			continue
		}
		if len(items) == limit {
			next = fmt.Sprint(after)
			break
		}
		it := cloneMap(o.item)
		it["kind"] = o.kind
		it["next_step"] = o.kind
		it["since"] = o.since.UTC().Format(time.RFC3339Nano)
		items = append(items, it)
		after = o.seq
	}
	if s.faults[FaultPhantomObligation] {
		for _, id := range s.order {
			if s.memories[id].author == agentID {
				items = append(items, map[string]any{"kind": "review", "object": id, "next_step": "wait"})
			}
		}
	}
	return Response{Result: map[string]any{"items": items, "next_cursor": next}}
}

// readOpportunities lists what is offered to the agent without binding it
// (§8): untaken assignments addressed to it and restricted Tasks naming it.
func (s *Service) readOpportunities(agentID string, params map[string]any) Response {
	limit, start, rej := pageParams(params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	all := append(s.threadOpportunities(agentID), s.taskOpportunities(agentID)...)
	items, next := []any{}, ""
	if start < len(all) {
		end := min(start+limit, len(all))
		items = append(items, all[start:end]...)
		if end < len(all) {
			next = fmt.Sprint(end)
		}
	}
	return Response{Result: map[string]any{"items": items, "next_cursor": next}}
}

// sweep records every deadline that has passed, at its due time, before the
// service answers anything (L4: the deadline wins over an in-flight action).
func (s *Service) sweep() error {
	now := s.clock.Now()
	facts := append(s.threadDeadlines(now), s.taskDeadlines(now)...)
	if len(facts) == 0 {
		return nil
	}
	sort.SliceStable(facts, func(i, j int) bool { return facts[i].At.Before(facts[j].At) })
	return s.commit(nil, facts...)
}
