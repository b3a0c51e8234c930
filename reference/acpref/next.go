package acpref

import (
	"slices"
	"strings"
)

// NextAction is next's answer for one participant.
type NextAction struct {
	Phase, Owner string
	Waiting      []string
	LastEvent    string // "seq 3 review_submitted from reader", or ""
	Action       string
	Invalid      bool // the phase in protocol.json is not a phase (exit 1)
}

// Lines renders the answer as the tool prints it.
func (n NextAction) Lines() []string {
	waiting := "none"
	if len(n.Waiting) > 0 {
		waiting = strings.Join(n.Waiting, ", ")
	}
	out := []string{"phase: " + n.Phase, "proposal owner: " + n.Owner, "waiting for: " + waiting}
	if n.LastEvent != "" {
		out = append(out, "last event: "+n.LastEvent)
	}
	return append(out, "next action: "+n.Action)
}

// Next tells a participant what to do, from protocol.json as written and the
// event log, as upstream's next_action does; unless Compat, sifu's strict
// texts replace the two that send the owner to an append that is refused.
func (t *Tools) Next(folder, participant string) (NextAction, error) {
	proto, err := ReadProtocol(folder)
	if err != nil {
		return NextAction{}, err
	}
	participants := proto.Participants()
	if !slices.Contains(participants, participant) {
		return NextAction{}, refuse("participant %s is not listed in protocol.json", PyRepr(participant))
	}
	read, err := ReadEvents(folder, t.Compat)
	if err != nil {
		return NextAction{}, err
	}
	if read.Missing {
		return NextAction{}, refuse("missing events.jsonl")
	}
	if msgs := t.readProblems(read); len(msgs) > 0 {
		return NextAction{}, refuse("%s", strings.Join(msgs, "; "))
	}
	events := read.Events
	schema := t.schemaFor(proto)
	rd := ScanReadiness(readText(folder, "readiness.md"))
	n := NextAction{Phase: PyStr(proto["currentPhase"]), Owner: PyStr(proto["proposalOwner"]), Waiting: proto.Waiting()}
	if len(events) > 0 {
		last := events[len(events)-1]
		n.LastEvent = "seq " + last.SeqLabel() + " " + PyStr(last.Fields["event"]) + " from " + PyStr(last.Fields["from"])
	}
	lastOf := func(name string) (Event, bool) {
		for i := len(events) - 1; i >= 0; i-- {
			if events[i].Fields["event"] == name {
				return events[i], true
			}
		}
		return Event{}, false
	}
	anyOf := func(name string, primary bool) bool {
		for _, e := range events {
			if e.Fields["event"] == name && (!primary || e.Fields["role"] == "primary") {
				return true
			}
		}
		return false
	}
	mine := slices.Contains(n.Waiting, participant) || t.faults[FaultNextAlwaysYourTurn]
	if _, isList := proto["waitingFor"].([]any); !isList {
		mine = t.faults[FaultNextAlwaysYourTurn]
	}
	v2 := schema == SchemaV2
	switch proto["currentPhase"] {
	case PhaseDrafting:
		switch {
		case mine && v2:
			n.Action = "draft the primary deliverable, append deliverable_drafted, update proposal.md, then append proposal_submitted."
		case mine:
			n.Action = "update proposal.md, then append proposal_submitted."
		default:
			n.Action = "wait for the proposal owner to submit the proposal."
		}
	case PhaseReviewing:
		proposal, ok := lastOf("proposal_submitted")
		if !ok {
			proposal, ok = lastOf("proposal_revised")
		}
		switch {
		case mine && ok && !pyEq(proposal.Fields["from"], participant) && v2:
			n.Action = "review proposal.md and the primary deliverable, update review.md with Review Scope, then append review_submitted."
		case mine && ok && !pyEq(proposal.Fields["from"], participant):
			n.Action = "append a structured review to review.md, then append review_submitted."
		case pyEq(proto["proposalOwner"], participant) && v2:
			n.Action = "wait for the listed reviewer(s); do not edit proposal.md or deliverables while reviewing unless blocking the collaboration."
		case pyEq(proto["proposalOwner"], participant):
			n.Action = "wait for the listed reviewer(s); do not edit proposal.md, decisions.md, readiness.md, or protocol.json unless blocking the collaboration."
		default:
			n.Action = "wait for the listed reviewer(s) to submit review_submitted or blocked."
		}
	case PhaseRevising:
		review, ok := lastOf("review_submitted")
		switch {
		case mine && ok && !pyEq(review.Fields["from"], participant) && v2:
			n.Action = "revise proposal.md and deliverables as needed, append deliverable_revised if the deliverable changed, then append proposal_revised."
		case mine && ok && !pyEq(review.Fields["from"], participant):
			n.Action = "revise proposal.md, address required changes, then append proposal_revised."
		default:
			n.Action = "wait for the proposal owner to revise."
		}
	case PhaseDecisionReview:
		accepted := false
		for _, e := range events {
			if e.Fields["event"] == "decision_accepted" && pyEq(e.Fields["from"], participant) {
				accepted = true
			}
		}
		state, _ := t.derive(schema, participants, events, rd)
		switch {
		case !t.Compat && mine && participant == n.Owner && !state.Classified():
			n.Action = "classify every open question in readiness.md, then append question_classified."
		case mine && !accepted:
			n.Action = "review decisions.md and append decision_accepted only if decisions are explicit."
		default:
			n.Action = "wait for remaining participants to accept decisions."
		}
	case PhaseReadinessCheck:
		passed, frozen := anyOf("readiness_passed", false), anyOf("deliverable_frozen", true)
		ref := ""
		if v2 {
			ref = proto.PrimaryRef()
		}
		switch {
		case rd.Blocking || rd.Unresolved || rd.MissingReason:
			n.Action = "classify readiness.md questions and clear blockers before readiness_passed."
		case !rd.ReadyChecked:
			n.Action = "complete the final design checklist in readiness.md."
		case v2 && !passed && !frozen && !t.Compat:
			n.Action = "freeze the primary deliverable with deliverable_frozen, run validate_collaboration.py, then append readiness_passed."
		case !passed:
			n.Action = "run validate_collaboration.py, then append readiness_passed."
		case v2 && !frozen:
			n.Action = "freeze the primary deliverable with deliverable_frozen, run validate_collaboration.py, then append readiness_passed."
		case len(ConclusionErrors(schema, readText(folder, "conclusion.md"), ref)) > 0 && v2:
			n.Action = "write conclusion.md with the final outcome, deliverable receipt, readiness result, and next action."
		case len(ConclusionErrors(schema, readText(folder, "conclusion.md"), ref)) > 0:
			n.Action = "write conclusion.md with the final outcome, rationale, implementation approach, and next action."
		default:
			n.Action = "run validate_collaboration.py, then append completed with doc=conclusion.md."
		}
	case PhaseCompleted:
		n.Action = "stop; collaboration is complete."
	case PhaseBlocked:
		n.Action = "resolve the blocker or start a new collaboration round."
	default:
		n.Action, n.Invalid = "run validate_collaboration.py; current phase is invalid.", true
	}
	return n, nil
}
