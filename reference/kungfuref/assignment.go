package kungfuref

import (
	"fmt"
	"time"
)

// Assignment deadlines are bounded (L4): from a minute to a week. So is
// what an assignment and its delivery may carry.
const (
	minDueSecs       = 60
	maxDueSecs       = 7 * 24 * 3600
	maxCriteriaRunes = 4000
	maxSchemaBytes   = 16 << 10
	maxPayloadBytes  = 64 << 10
	maxDeliveryPins  = 10
)

// assignFrom validates the assignment part of a post (§6.4): addressed to
// exactly one member who may speak (the creator included), with acceptance
// criteria and deadlines fixed at creation.
func (s *Service) assignFrom(t *thread, creator string, raw any) (*assignData, *Rejection) {
	obj, _ := raw.(map[string]any)
	if obj == nil {
		return nil, rejection(ReasonInvalidParams, "retry", "assign is an object {to, criteria, output_schema?, delivery_due?, judgment_due?, references?}")
	}
	to, ok := obj["to"].(string)
	if !ok || to == "" {
		return nil, rejection(ReasonInvalidParams, "retry", "assign.to must name exactly one member")
	}
	if m, ok := t.members[to]; (!ok || !maySpeak(m.role)) && !(s.faults[FaultAssignFormerMember] && !ok && t.former[to]) {
		return nil, rejection(ReasonInvalidParams, "retry", fmt.Sprintf("assign.to %q is not a member who may speak", to))
	}
	criteria, _ := obj["criteria"].(string)
	if criteria == "" {
		return nil, rejection(ReasonInvalidParams, "retry", "assign.criteria (the acceptance criteria) is required")
	}
	if len([]rune(criteria)) > maxCriteriaRunes {
		return nil, rejection(ReasonInvalidParams, "retry", fmt.Sprintf("assign.criteria is at most %d characters", maxCriteriaRunes))
	}
	if raw, ok := obj["output_schema"]; ok && raw != nil && len(mustJSON(raw)) > maxSchemaBytes {
		return nil, rejection(ReasonInvalidParams, "retry", fmt.Sprintf("assign.output_schema is at most %d bytes", maxSchemaBytes))
	}
	a := &assignData{ID: fmt.Sprintf("asg-%d", s.seq+1), To: to, Criteria: criteria, OutputSchema: obj["output_schema"],
		DeliverySecs: defaultDeliverySecs, JudgmentSecs: defaultJudgmentSecs}
	for _, due := range []struct {
		name string
		dst  *int
	}{{"delivery_due", &a.DeliverySecs}, {"judgment_due", &a.JudgmentSecs}} {
		name, dst := due.name, due.dst
		v, given, err := intParam(obj, name)
		if err != nil || given && (v < minDueSecs || v > maxDueSecs) {
			return nil, rejection(ReasonInvalidParams, "retry", fmt.Sprintf("assign.%s is a number of seconds from %d to %d", name, minDueSecs, maxDueSecs))
		}
		if given {
			*dst = v
		}
	}
	if ref, ok := obj["references"].(string); ok && ref != "" {
		old, ok := s.threads.assignments[ref]
		if !ok || old.thread != t.id {
			return nil, rejection(ReasonInvalidParams, "retry", "assign.references must be an assignment of this thread")
		}
		a.References = ref
	}
	return a, nil
}

// memberAssignment finds an assignment in a thread the caller is a current
// member of; any other is indistinguishable from a missing one.
func (s *Service) memberAssignment(agentID string, params map[string]any) (*assignment, *thread, *Rejection) {
	id, ok := stringParam(params, "assignment")
	if !ok {
		return nil, nil, rejection(ReasonInvalidParams, "retry", "assignment (the assignment id) is required")
	}
	missing := rejection(ReasonNotFound, "stop", fmt.Sprintf("no assignment %q is visible to you", id))
	a, ok := s.threads.assignments[id]
	if !ok {
		return nil, nil, missing
	}
	t := s.threads.byID[a.thread]
	if _, member := t.members[agentID]; !member {
		return nil, nil, missing
	}
	return a, t, nil
}

func terminalRejection(a *assignment) *Rejection {
	return rejection(ReasonInvalidState, "stop", fmt.Sprintf("the assignment is %s; that is final", a.state))
}

func (s *Service) takeAssignment(req Request) ([]Fact, map[string]any, *Rejection) {
	a, t, rej := s.memberAssignment(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if a.addressee != req.Agent {
		return nil, nil, rejection(ReasonForbidden, "stop", "only the addressee may take this assignment")
	}
	if a.state == "taken" && s.faults[FaultSecondTake] { // planted: an implicit success
		return nil, map[string]any{"assignment": a.id, "thread": t.id, "state": "taken", "delivery_due": stamp(a.deliveryDue())}, nil
	}
	if a.state != "open" {
		if a.terminal() {
			return nil, nil, terminalRejection(a)
		}
		return nil, nil, rejection(ReasonInvalidState, "stop", "the assignment is already taken; it can be taken once")
	}
	facts := []Fact{threadFact(FactAssignmentTaken, req.Agent, t.id, threadData{Assignment: a.id})}
	receipt := map[string]any{"assignment": a.id, "thread": t.id, "state": "taken",
		"delivery_due": stamp(s.clock.Now().Add(time.Duration(a.deliverySecs) * time.Second))}
	if raw, ok := req.Params["deliver"]; ok && raw != nil {
		obj, _ := raw.(map[string]any)
		d, rej := s.deliveryFrom(req.Agent, obj)
		if rej != nil {
			return nil, nil, rej // the combined action fails whole: nothing is taken either
		}
		d.Assignment = a.id
		facts = append(facts, threadFact(FactAssignmentDelivered, req.Agent, t.id, d))
		receipt["state"] = "delivered"
		receipt["judgment_due"] = stamp(s.clock.Now().Add(time.Duration(a.judgmentSecs) * time.Second))
	}
	return facts, receipt, nil
}

// deliveryFrom validates a delivery: a payload and/or pinned versions of the
// deliverer's own valid Memories.
func (s *Service) deliveryFrom(agentID string, obj map[string]any) (threadData, *Rejection) {
	var d threadData
	if obj == nil {
		return d, rejection(ReasonInvalidParams, "retry", "a delivery is an object {payload?, memories?}")
	}
	d.Payload = obj["payload"]
	if d.Payload != nil && len(mustJSON(d.Payload)) > maxPayloadBytes {
		return d, rejection(ReasonInvalidParams, "retry", fmt.Sprintf("a payload is at most %d bytes", maxPayloadBytes))
	}
	if raw, ok := obj["memories"]; ok && raw != nil {
		list, ok := raw.([]any)
		if !ok || len(list) > maxDeliveryPins {
			return d, rejection(ReasonInvalidParams, "retry", fmt.Sprintf("memories is a list of at most %d {memory, version?}", maxDeliveryPins))
		}
		for _, e := range list {
			p, rej := s.pinFor(agentID, e)
			if rej != nil {
				return d, rej
			}
			if s.memories[p.Memory].author != agentID {
				return d, rejection(ReasonForbidden, "stop", "a delivery may pin only the deliverer's own Memories")
			}
			d.Memories = append(d.Memories, p)
		}
	}
	if d.Payload == nil && len(d.Memories) == 0 {
		return d, rejection(ReasonInvalidParams, "retry", "a delivery needs a payload or at least one memory")
	}
	return d, nil
}

func (s *Service) deliverAssignment(req Request) ([]Fact, map[string]any, *Rejection) {
	a, t, rej := s.memberAssignment(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if a.addressee != req.Agent {
		return nil, nil, rejection(ReasonForbidden, "stop", "only the taker may deliver this assignment")
	}
	if a.state == "open" {
		return nil, nil, rejection(ReasonInvalidState, "retry", "the assignment is not taken yet: take it first (or take and deliver in one action)")
	}
	if a.state != "taken" {
		if a.state == "delivered" {
			return nil, nil, rejection(ReasonInvalidState, "stop", "the assignment is already delivered; a delivery cannot be replaced")
		}
		return nil, nil, terminalRejection(a)
	}
	d, rej := s.deliveryFrom(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	d.Assignment = a.id
	return []Fact{threadFact(FactAssignmentDelivered, req.Agent, t.id, d)},
		map[string]any{"assignment": a.id, "state": "delivered",
			"judgment_due": stamp(s.clock.Now().Add(time.Duration(a.judgmentSecs) * time.Second))}, nil
}

func (s *Service) judgeAssignment(req Request) ([]Fact, map[string]any, *Rejection) {
	a, t, rej := s.memberAssignment(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if (a.creator != req.Agent || a.forfeited && !s.faults[FaultJudgeAfterForfeit]) && !s.governorOverrides(t, req.Agent) {
		return nil, nil, rejection(ReasonForbidden, "stop", "only the assignment's creator, while its right to judge stands, may judge it")
	}
	judgedAgain := s.faults[FaultDoubleVerdict] && (a.state == "adopted" || a.state == "rejected")
	if a.state != "delivered" && !judgedAgain {
		if a.terminal() {
			return nil, nil, terminalRejection(a)
		}
		return nil, nil, rejection(ReasonInvalidState, "wait", "nothing has been delivered yet")
	}
	verdict, _ := req.Params["verdict"].(string)
	reason, _ := req.Params["reason"].(string)
	switch {
	case verdict != "adopt" && verdict != "reject":
		return nil, nil, rejection(ReasonInvalidParams, "retry", `verdict must be "adopt" or "reject"`)
	case verdict == "reject" && reason == "":
		return nil, nil, rejection(ReasonInvalidParams, "retry", "a rejection needs a reason the taker can read")
	case len([]rune(reason)) > 4000:
		return nil, nil, rejection(ReasonInvalidParams, "retry", "a reason is at most 4000 characters")
	}
	state := map[string]string{"adopt": "adopted", "reject": "rejected"}[verdict]
	return []Fact{threadFact(FactAssignmentJudged, req.Agent, t.id, threadData{Assignment: a.id, Verdict: verdict, Reason: reason})},
		map[string]any{"assignment": a.id, "state": state}, nil
}

func (s *Service) dropAssignment(req Request) ([]Fact, map[string]any, *Rejection) {
	a, t, rej := s.memberAssignment(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if a.addressee != req.Agent {
		return nil, nil, rejection(ReasonForbidden, "stop", "only the taker may drop this assignment")
	}
	if a.state == "open" {
		return nil, nil, rejection(ReasonInvalidState, "stop", "the assignment is not taken; an untaken assignment binds nobody and needs no drop")
	}
	if a.state != "taken" {
		return nil, nil, rejection(ReasonInvalidState, "stop", fmt.Sprintf("the assignment is %s; only an undelivered assignment can be dropped", a.state))
	}
	return []Fact{threadFact(FactAssignmentDropped, req.Agent, t.id, threadData{Assignment: a.id})},
		map[string]any{"assignment": a.id, "state": "dropped"}, nil
}

func (s *Service) voidAssignment(req Request) ([]Fact, map[string]any, *Rejection) {
	a, t, rej := s.memberAssignment(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if a.creator != req.Agent && !s.governorOverrides(t, req.Agent) {
		return nil, nil, rejection(ReasonForbidden, "stop", "only the assignment's creator may void it")
	}
	if a.state != "open" && a.state != "taken" {
		return nil, nil, rejection(ReasonInvalidState, "stop", fmt.Sprintf("the assignment is %s; only an undelivered assignment can be voided", a.state))
	}
	return []Fact{threadFact(FactAssignmentVoided, req.Agent, t.id, threadData{Assignment: a.id})},
		map[string]any{"assignment": a.id, "state": "voided"}, nil
}

func (s *Service) applyAssignment(f Fact, t *thread, d threadData) error {
	a, ok := s.threads.assignments[d.Assignment]
	if !ok {
		return fmt.Errorf("fact %s names unknown assignment %q", f.Kind, d.Assignment)
	}
	switch f.Kind {
	case FactAssignmentTaken:
		a.state, a.takenAt, a.takeSeq = "taken", f.At, f.Seq
		a.deliveryFrom = f.At
		if s.faults[FaultDeliveryDueFromPost] {
			a.deliveryFrom = a.createdAt // planted: from the post that created it
		}
		if r := t.entries[a.entry-1].pending(a.addressee); r != nil {
			r.ended, r.endedBy = true, "take"
		}
	case FactAssignmentDelivered:
		a.state, a.deliveredAt, a.deliverSq = "delivered", f.At, f.Seq
		a.judgmentFrom = f.At
		if s.faults[FaultJudgmentDueFromTake] {
			a.judgmentFrom = a.takenAt // planted: from the take
		}
		a.payload, a.memories = d.Payload, d.Memories
	case FactAssignmentJudged:
		a.state = map[string]string{"adopt": "adopted", "reject": "rejected"}[d.Verdict]
		a.verdict, a.reason = d.Verdict, d.Reason
	case FactAssignmentDropped:
		a.state = "dropped"
	case FactAssignmentVoided:
		a.state = "voided"
	case FactAssignmentTimedOut:
		a.state = "timed_out"
	case FactAssignmentUnjudged:
		a.state = "undecided"
	default:
		return fmt.Errorf("unknown fact kind %q", f.Kind)
	}
	return nil
}
