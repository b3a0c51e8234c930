package acp

import (
	"errors"
	"io/fs"
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
// event log.
func (t *Tools) Next(folder, participant string) (NextAction, error) {
	proto, err := ReadProtocol(folder)
	if err != nil {
		return NextAction{}, err
	}
	participants := proto.Participants()
	if !slices.Contains(participants, participant) {
		return NextAction{}, refuse("participant %s is not listed in protocol.json", PyRepr(participant))
	}
	events, _, err := ReadEvents(folder)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return NextAction{}, err
	}
	state, _ := t.derive(participants, events, ScanReadiness(readText(folder, "readiness.md")))
	n := NextAction{Phase: PyStr(proto["currentPhase"]), Owner: PyStr(proto["proposalOwner"]), Waiting: proto.Waiting()}
	if len(events) > 0 {
		last := events[len(events)-1]
		n.LastEvent = "seq " + last.SeqLabel() + " " + PyStr(last.Fields["event"]) + " from " + PyStr(last.Fields["from"])
	}
	mine := slices.Contains(n.Waiting, participant) || t.faults[FaultNextAlwaysYourTurn]
	switch n.Phase {
	case PhaseDrafting:
		if mine {
			n.Action = "update proposal.md, then append proposal_submitted."
		} else {
			n.Action = "wait for the proposal owner to submit the proposal."
		}
	case PhaseReviewing:
		switch {
		case mine && state.lastProposalBy != participant:
			n.Action = "append a structured review to review.md, then append review_submitted."
		case participant == n.Owner:
			n.Action = "wait for the listed reviewer(s); do not edit proposal.md, decisions.md, readiness.md, or protocol.json unless blocking the collaboration."
		default:
			n.Action = "wait for the listed reviewer(s) to submit review_submitted or blocked."
		}
	case PhaseRevising:
		if mine && state.lastReviewBy != participant {
			n.Action = "revise proposal.md, address required changes, then append proposal_revised."
		} else {
			n.Action = "wait for the proposal owner to revise."
		}
	case PhaseDecisionReview:
		switch {
		case !t.Compat && mine && participant == n.Owner && !state.Classified():
			n.Action = "classify every open question in readiness.md, then append question_classified."
		case mine && !state.accepted[participant]:
			n.Action = "review decisions.md and append decision_accepted only if decisions are explicit."
		default:
			n.Action = "wait for remaining participants to accept decisions."
		}
	case PhaseReadinessCheck:
		rd := ScanReadiness(readText(folder, "readiness.md"))
		switch {
		case rd.Blocking || rd.Unresolved || rd.MissingReason:
			n.Action = "classify readiness.md questions and clear blockers before readiness_passed."
		case !rd.ReadyChecked:
			n.Action = "complete the final design checklist in readiness.md."
		case !state.readinessPassed:
			n.Action = "run validate_collaboration.py, then append readiness_passed."
		case len(ConclusionErrors(readText(folder, "conclusion.md"))) > 0:
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
