package kungfuref

import (
	"fmt"
	"slices"
	"sort"
)

// maxExpand bounds how many entries one read may expand (§8: every read is
// bounded).
const maxExpand = 50

// pinReadable says whether current members may read an entry's pinned
// version (§5, §9): a pin of the entry author's own Memory always; a pin of
// another agent's Memory only while that Memory is valid and public.
func (s *Service) pinReadable(e *entry) bool {
	m := s.memories[e.pin.Memory]
	if m.author == e.author {
		return !(s.faults[FaultOwnPinLost] && m.withdrawn)
	}
	return m.public && !m.withdrawn || s.faults[FaultOthersPinSurvives]
}

func (s *Service) pinView(p pin, readable bool) map[string]any {
	v := map[string]any{"memory": p.Memory, "version": p.Version, "readable": readable}
	if readable {
		v["content"] = s.memories[p.Memory].versions[p.Version-1]
	}
	return v
}

// entryDigest is an entry's structure; a handle note appears only to the
// entry's author and that responder (§6.3, §9).
func (s *Service) entryDigest(t *thread, e *entry, reader string) map[string]any {
	d := map[string]any{"entry": e.seq, "author": e.author, "memory": e.pin.Memory, "version": e.pin.Version,
		"at": stamp(e.at)}
	if e.replyTo > 0 {
		d["reply_to"] = e.replyTo
	}
	if e.hasAsk {
		d["ask"] = stringsAny(e.ask)
	}
	responders := []any{}
	responses := []any{}
	for _, r := range e.responses {
		responders = append(responders, r.responder)
		rv := map[string]any{"responder": r.responder, "state": "pending"}
		if r.ended {
			rv["state"], rv["ended_by"] = "ended", r.endedBy
			if r.note != "" && (reader == e.author || reader == r.responder || s.faults[FaultNoteLeaks] ||
				s.faults[FaultNoteVisibleToGovernors] && t.members[reader] != nil && t.members[reader].role == RoleGovernor) {
				rv["note"] = r.note
			}
		}
		responses = append(responses, rv)
	}
	d["responders"], d["responses"] = responders, responses
	if e.assign != "" {
		d["assignment"] = map[string]any{"assignment": e.assign, "state": s.threads.assignments[e.assign].state}
	}
	if e.task != nil {
		d["task"] = s.taskRefView(e.task)
	}
	return d
}

// taskRefView is the contract layer of a referenced Task as the thread's
// current members read it (§7.5): the contract version pinned at posting,
// whatever the Task's audience. It carries nothing else of the Task — no
// audience list, engagements, deliveries or judgments (§9).
func (s *Service) taskRefView(r *taskRef) map[string]any {
	t := s.tasks.tasks[r.Task]
	return map[string]any{"task": r.Task, "version": r.Version, "contract": taskContractView(t.versions[r.Version-1])}
}

// referencedTo says whether an entry the agent can read as a current member
// references the Task. Only the planted task-ref-grants-access fault asks.
func (s *Service) referencedTo(agentID, taskID string) bool {
	for _, t := range s.threads.byID {
		if _, member := t.members[agentID]; !member {
			continue
		}
		for _, e := range t.entries {
			if e.task != nil && e.task.Task == taskID {
				return true
			}
		}
	}
	return false
}

// readThread is the working set of a thread (§8): identity and state, the
// reader's role, a bounded page of the history digest, expansions on demand,
// the reader's obligations there and the actions open to it.
func (s *Service) readThread(agentID string, params map[string]any) Response {
	t, m, rej := s.memberThread(agentID, params)
	if rej != nil && s.faults[FaultFormerMemberReads] {
		if ft, ok := s.threads.byID[fmt.Sprint(params["thread"])]; ok && ft.former[agentID] {
			t, m, rej = ft, &membership{agent: agentID, role: RoleObserver}, nil // planted
		}
	}
	if rej != nil {
		return Response{Rejection: rej}
	}
	limit, after, rej := pageParams(params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	timeline := []any{}
	next := ""
	for _, e := range t.entries {
		if e.seq <= after {
			continue
		}
		if len(timeline) == limit {
			next = fmt.Sprint(e.seq - 1)
			break
		}
		timeline = append(timeline, s.entryDigest(t, e, agentID))
	}
	expanded := []any{}
	if rawExpand, given := params["expand"]; given && rawExpand != nil {
		raw, ok := rawExpand.([]any)
		if !ok {
			return s.reject(ReasonInvalidParams, "retry", "expand is a list of entries of this thread (numbers, or {thread, entry})")
		}
		if len(raw) > maxExpand {
			return s.reject(ReasonInvalidParams, "retry", fmt.Sprintf("expand at most %d entries at once", maxExpand))
		}
		for _, x := range raw {
			e, rej := s.entryRef(t, x, "each expand item")
			if rej != nil {
				return Response{Rejection: rej}
			}
			v := s.pinView(e.pin, s.pinReadable(e))
			v["entry"] = e.seq
			expanded = append(expanded, v)
		}
	}
	members := []any{}
	ids := make([]string, 0, len(t.members))
	for id := range t.members {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := t.members[ids[i]], t.members[ids[j]]
		return a.joinedAt.Before(b.joinedAt) || a.joinedAt.Equal(b.joinedAt) && ids[i] < ids[j]
	})
	for _, id := range ids {
		mm := t.members[id]
		mv := map[string]any{"agent": id, "role": mm.role, "joined_at": stamp(mm.joinedAt)}
		if mm.admission != "" {
			mv["admission"] = mm.admission
		}
		members = append(members, mv)
	}
	admission := map[string]any{"live": t.grant != nil}
	if g := t.grant; g != nil {
		admission["admission"], admission["role"], admission["issued_at"] = g.id, g.role, stamp(g.issuedAt)
	}
	// The caller's obligations here, in the order they arose, as in the turn.
	obs := s.threadObligations(agentID)
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].seq < obs[j].seq })
	obligations := []any{}
	for _, o := range obs {
		if o.item["thread"] == t.id {
			it := cloneMap(o.item)
			it["kind"], it["next_step"] = o.kind, o.kind
			obligations = append(obligations, it)
		}
	}
	state := "open"
	if t.closed {
		state = "closed"
	}
	return Response{Result: map[string]any{
		"thread": t.id, "subject": t.subject, "state": state, "role": m.role,
		"members": members, "admission": admission, "timeline": timeline, "next_cursor": next,
		"expanded": expanded, "obligations": obligations, "actions": stringsAny(s.threadActionsFor(t, m)),
	}}
}

// threadActionsFor lists the thread actions open to a member right now.
func (s *Service) threadActionsFor(t *thread, m *membership) []string {
	if t.closed { // read-only: a member may only leave
		return []string{"thread.leave"}
	}
	acts := []string{"thread.handle", "thread.retract"}
	if m.role != RoleGovernor || s.governors(t) > 1 { // the last governor hands over or closes first
		acts = append(acts, "thread.leave")
	}
	if maySpeak(m.role) {
		acts = append(acts, "thread.post")
	}
	if m.role == RoleGovernor {
		acts = append(acts, "thread.admit", "thread.void_admission", "thread.remove", "thread.set_role", "thread.close")
	}
	slices.Sort(acts)
	return acts
}

// listThreads lists the threads the agent is a current member of, oldest
// first, a bounded page at a time (§8: every read is bounded).
func (s *Service) listThreads(agentID string, params map[string]any) Response {
	limit, after, rej := pageParams(params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	items := []any{}
	next := ""
	for _, t := range s.agentThreads(agentID) {
		m := t.members[agentID]
		if idNum(t.id) <= after {
			continue
		}
		if len(items) == limit {
			next = fmt.Sprint(after)
			break
		}
		state := "open"
		if t.closed {
			state = "closed"
		}
		items = append(items, map[string]any{"thread": t.id, "subject": t.subject, "role": m.role, "state": state})
		after = idNum(t.id)
	}
	return Response{Result: map[string]any{"items": items, "next_cursor": next}}
}

func (s *Service) readEntry(agentID string, params map[string]any) Response {
	t, _, rej := s.memberThread(agentID, params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	e, rej := s.threadEntry(t, params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	d := s.entryDigest(t, e, agentID)
	d["thread"] = t.id
	d["pinned"] = s.pinView(e.pin, s.pinReadable(e))
	return Response{Result: d}
}

// readAssignment shows an assignment to current members of its thread. A
// delivered Memory version stays readable to them even if its author later
// unpublishes, updates or withdraws it (§9).
func (s *Service) readAssignment(agentID string, params map[string]any) Response {
	a, t, rej := s.memberAssignment(agentID, params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	v := map[string]any{"assignment": a.id, "thread": t.id, "entry": a.entry, "creator": a.creator,
		"addressee": a.addressee, "criteria": a.criteria, "state": a.state,
		"delivery_due_seconds": a.deliverySecs, "judgment_due_seconds": a.judgmentSecs}
	if a.outputSchema != nil {
		v["output_schema"] = a.outputSchema
	}
	if a.references != "" {
		v["references"] = a.references
	}
	if !a.takenAt.IsZero() {
		v["taken_at"], v["delivery_due"] = stamp(a.takenAt), stamp(a.deliveryDue())
	}
	if !a.deliveredAt.IsZero() {
		mems := []any{}
		for _, p := range a.memories {
			mems = append(mems, s.pinView(p, true))
		}
		v["delivery"] = map[string]any{"payload": a.payload, "memories": mems, "at": stamp(a.deliveredAt)}
		v["judgment_due"] = stamp(a.judgmentDue())
		v["judge_right"] = !a.forfeited
	}
	if a.verdict != "" {
		v["verdict"] = map[string]any{"verdict": a.verdict, "reason": a.reason}
	}
	return Response{Result: v}
}
