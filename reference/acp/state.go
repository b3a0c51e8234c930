package acp

import (
	"fmt"
	"slices"
	"strings"
)

// State is what the event log says: the phase, the proposal owner and who
// the collaboration waits for.
type State struct {
	Phase   string // "" until an initialized event (Python's None)
	Owner   string
	Waiting []string

	reviewers       map[string]bool
	acceptors       map[string]bool
	accepted        map[string]bool // ever accepted, any round
	classSeq        int
	inputSeq        int
	readinessPassed bool
	lastProposalBy  string
	lastReviewBy    string
}

// PhaseLabel is the phase as the tools print it.
func (s State) PhaseLabel() string {
	if s.Phase == "" {
		return "None"
	}
	return s.Phase
}

// Classified reports whether questions were classified after the latest
// proposal or decision.
func (s State) Classified() bool { return s.classSeq > s.inputSeq }

// allowedFrom lists the phases each event may follow; nil means any.
var allowedFrom = map[string][]string{
	"proposal_submitted":  {PhaseDrafting, PhaseRevising},
	"review_submitted":    {PhaseReviewing},
	"proposal_revised":    {PhaseRevising},
	"decision_proposed":   {PhaseRevising, PhaseDecisionReview},
	"question_classified": {PhaseDecisionReview},
	"decision_accepted":   {PhaseDecisionReview},
	"readiness_passed":    {PhaseReadinessCheck},
	"completed":           {PhaseReadinessCheck},
}

// actionName is how ownership errors name an event.
var actionName = map[string]string{
	"proposal_submitted":  "proposal submission",
	"review_submitted":    "review submission",
	"proposal_revised":    "proposal revision",
	"decision_proposed":   "decision proposal",
	"question_classified": "question classification",
	"decision_accepted":   "decision acceptance",
	"readiness_passed":    "readiness pass",
	"completed":           "completion",
}

// derive replays events and returns the state with every phase and
// ownership error, in event order. An error does not stop the replay: the
// transition still happens, as upstream.
func (t *Tools) derive(participants []string, events []Event, rd Readiness) (State, []string) {
	s := State{Waiting: []string{}, reviewers: map[string]bool{}, acceptors: map[string]bool{}, accepted: map[string]bool{}}
	listed := map[string]bool{}
	for _, p := range participants {
		listed[p] = true
	}
	var errs []string
	for _, e := range events {
		seq := e.SeqLabel()
		seqNum, _ := asInt(e.Fields["seq"], true)
		ev, from := e.Str("event"), e.Str("from")
		fail := func(format string, args ...any) {
			errs = append(errs, "seq "+seq+": "+fmt.Sprintf(format, args...))
		}
		reserved := func(allowed []string) {
			if t.faults[FaultAnyoneAdvances] {
				return
			}
			if !slices.Contains(allowed, from) {
				who := "no participant"
				if len(allowed) > 0 {
					who = strings.Join(allowed, ", ")
				}
				fail("%s is reserved for %s; got %s", actionName[ev], who, from)
			}
		}
		owner := []string{}
		if s.Owner != "" {
			owner = []string{s.Owner}
		}
		if ev == "initialized" {
			if seqNum != 1 {
				fail("initialized must be seq 1")
			}
			if !listed[from] {
				fail("initialized participant is not listed in protocol.json")
			}
			s.Owner, s.Phase, s.Waiting = from, PhaseDrafting, []string{from}
			continue
		}
		if ev == "blocked" {
			if !t.Compat && s.Phase == PhaseCompleted && !t.faults[FaultBlockAfterCompleted] {
				fail("blocked is not allowed from phase completed")
			}
			s.Phase, s.Waiting = PhaseBlocked, []string{}
			continue
		}
		allowed, known := allowedFrom[ev]
		if !known {
			continue // unknown events are reported by the shape checks
		}
		if !slices.Contains(allowed, s.Phase) && !t.faults[FaultAnyPhase] {
			errs = append(errs, fmt.Sprintf("seq %s: %s is not allowed from phase %s", seq, ev, s.PhaseLabel()))
		}
		switch ev {
		case "proposal_submitted":
			reserved(owner)
			s.reviewers = map[string]bool{}
			for _, p := range participants {
				if p != s.Owner {
					s.reviewers[p] = true
				}
			}
			if len(s.reviewers) == 0 {
				fail("proposal_submitted requires at least one reviewer")
			}
			s.Phase, s.Waiting, s.lastProposalBy = PhaseReviewing, sortedKeys(s.reviewers), from
		case "review_submitted":
			reserved(sortedKeys(s.reviewers))
			delete(s.reviewers, from)
			s.lastReviewBy = from
			if len(s.reviewers) > 0 && !t.faults[FaultFirstReviewEndsRound] {
				s.Phase, s.Waiting = PhaseReviewing, sortedKeys(s.reviewers)
			} else {
				s.Phase, s.Waiting = PhaseRevising, owner
			}
		case "proposal_revised", "decision_proposed":
			reserved(owner)
			s.inputSeq, s.classSeq = seqNum, 0
			s.Phase, s.Waiting, s.lastProposalBy = PhaseDecisionReview, owner, from
		case "question_classified":
			reserved(owner)
			s.classSeq = seqNum
			s.acceptors = map[string]bool{}
			for _, p := range participants {
				s.acceptors[p] = true
			}
			s.Waiting = sortedKeys(s.acceptors)
		case "decision_accepted":
			if s.inputSeq != 0 && s.classSeq <= s.inputSeq && !t.faults[FaultAcceptUnclassified] {
				fail("decision_accepted requires question_classified after the latest proposal or decision")
			}
			reserved(sortedKeys(s.acceptors))
			if !t.faults[FaultSkipReadinessGate] {
				if rd.Blocking {
					fail("blocking readiness items must be cleared before decision_accepted")
				}
				if rd.Unresolved {
					fail("unresolved readiness questions must be classified before decision_accepted")
				}
				if rd.MissingReason {
					fail("deferred_nonblocking readiness items require a reason before decision_accepted")
				}
			}
			delete(s.acceptors, from)
			s.accepted[from] = true
			if len(s.acceptors) > 0 {
				s.Waiting = sortedKeys(s.acceptors)
			} else {
				s.Phase, s.Waiting = PhaseReadinessCheck, owner
			}
		case "readiness_passed":
			reserved(owner)
			s.readinessPassed = true
			s.Phase, s.Waiting = PhaseReadinessCheck, owner
		case "completed":
			if s.Phase == PhaseReadinessCheck && !s.readinessPassed && !t.faults[FaultCompleteWithoutReadiness] {
				fail("completed requires a prior readiness_passed event")
			}
			reserved(owner)
			if e.Str("doc") != "conclusion.md" && !t.faults[FaultCompleteAnyDoc] {
				fail("completed must reference conclusion.md")
			}
			s.Phase, s.Waiting = PhaseCompleted, []string{}
		}
	}
	return s, errs
}
