package acpref

import (
	"fmt"
	"slices"
	"strings"
)

// State is what the event log says: the phase, the proposal owner and who
// the collaboration waits for.
type State struct {
	Phase    string // "" until an initialized event (Python's None)
	Owner    string
	OwnerSet bool // an owner was derived (Python: proposal_owner is not None)
	Waiting  []string

	classSeq        int
	inputSeq        int
	readinessPassed bool
	primaryDrafted  bool
	primaryFrozen   bool
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

// derive replays events the way upstream's derive_state does and returns
// the state with every phase and ownership error, in event order. An error
// does not stop the replay: the transition still happens. Values are read
// with Python's semantics (a seq of true or 1.0 equals 1; an actor that is
// not a string owns nothing). rd is the current readiness.md, re-checked
// for every decision_accepted.
func (t *Tools) derive(schema Schema, participants []string, events []Event, rd Readiness) (State, []string) {
	s := State{Waiting: []string{}}
	var reviewers, acceptors map[string]bool
	var errs []string
	listed := func(x any) bool {
		str, ok := x.(string)
		return ok && slices.Contains(participants, str)
	}
	waitList := func(set map[string]bool) []string {
		if !t.faults[FaultUnsortedWaiting] {
			return sortedKeys(set)
		}
		var out []string
		for _, p := range participants {
			if set[p] && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		return append([]string{}, out...)
	}
	ownerList := func() []string {
		if s.Owner != "" {
			return []string{s.Owner}
		}
		return []string{}
	}
	for _, e := range events {
		name, _ := e.Fields["event"].(string)
		if _, isStr := e.Fields["event"].(string); !isStr {
			name = "" // no branch matches a name that is not a string
		}
		seq := e.SeqLabel()
		actor := e.Fields["from"]
		fail := func(format string, args ...any) {
			errs = append(errs, "seq "+seq+": "+fmt.Sprintf(format, args...))
		}
		notFrom := func(allowed ...string) bool { return !slices.Contains(allowed, s.Phase) && !t.faults[FaultAnyPhase] }
		phaseErr := func(allowed ...string) {
			if notFrom(allowed...) {
				fail("%s is not allowed from phase %s", name, s.PhaseLabel())
			}
		}
		expect := func(allowed []string, action string) {
			if t.faults[FaultAnyoneAdvances] {
				return
			}
			a, ok := actor.(string)
			if ok && slices.Contains(allowed, a) {
				return
			}
			who := "no participant"
			if len(allowed) > 0 {
				sorted := slices.Clone(allowed)
				slices.Sort(sorted)
				who = strings.Join(slices.Compact(sorted), ", ")
			}
			fail("%s is reserved for %s; got %s", action, who, PyStr(actor))
		}
		ownerOnly := func(action string) {
			if s.Owner != "" {
				expect([]string{s.Owner}, action)
			}
		}
		seqInt, seqIsInt := e.PySeq()
		switch name {
		case "initialized":
			if !pyEq(e.Fields["seq"], 1) {
				errs = append(errs, "initialized must be seq 1")
			}
			if !listed(actor) {
				fail("initialized participant is not listed in protocol.json")
			}
			a, ok := actor.(string)
			s.Owner, s.OwnerSet = a, ok
			s.Phase, s.Waiting = PhaseDrafting, ownerList()
		case "blocked":
			if !t.Compat && s.Phase == PhaseCompleted && !t.faults[FaultBlockAfterCompleted] {
				fail("blocked is not allowed from phase completed")
			}
			s.Phase, s.Waiting = PhaseBlocked, []string{}
		case "deliverable_drafted", "deliverable_revised", "deliverable_frozen":
			if schema != SchemaV2 || e.Fields["role"] != "primary" {
				continue
			}
			switch name {
			case "deliverable_drafted":
				phaseErr(PhaseDrafting, PhaseRevising, PhaseDecisionReview)
				ownerOnly("deliverable draft")
				s.primaryDrafted = true
			case "deliverable_revised":
				if s.primaryFrozen && !t.faults[FaultReviseAfterFreeze] {
					fail("deliverable_revised is not allowed after deliverable_frozen")
				}
				phaseErr(PhaseRevising, PhaseDecisionReview)
				ownerOnly("deliverable revision")
				s.primaryDrafted = true
			case "deliverable_frozen":
				if s.primaryFrozen && !t.faults[FaultRefreeze] {
					fail("primary deliverable can be frozen only once")
				}
				phaseErr(PhaseReadinessCheck)
				ownerOnly("deliverable freeze")
				s.primaryFrozen = true
			}
		case "proposal_submitted":
			phaseErr(PhaseDrafting, PhaseRevising)
			if schema == SchemaV2 && !s.primaryDrafted && !t.faults[FaultProposalWithoutDeliverable] {
				fail("proposal_submitted requires prior primary deliverable_drafted")
			}
			if s.Owner != "" {
				expect([]string{s.Owner}, "proposal submission")
			} else if a, ok := actor.(string); ok {
				expect([]string{a}, "proposal submission")
			} else {
				expect(nil, "proposal submission")
			}
			if a, ok := actor.(string); ok {
				s.Owner, s.OwnerSet = a, true
			}
			reviewers = map[string]bool{}
			for _, p := range participants {
				if p != s.Owner {
					reviewers[p] = true
				}
			}
			if len(reviewers) == 0 {
				fail("proposal_submitted requires at least one reviewer")
			}
			s.Phase, s.Waiting = PhaseReviewing, waitList(reviewers)
		case "review_submitted":
			phaseErr(PhaseReviewing)
			expect(sortedKeys(reviewers), "review submission")
			if a, ok := actor.(string); ok {
				delete(reviewers, a)
			}
			if len(reviewers) > 0 && !t.faults[FaultFirstReviewEndsRound] {
				s.Phase, s.Waiting = PhaseReviewing, waitList(reviewers)
			} else {
				s.Phase, s.Waiting = PhaseRevising, ownerList()
			}
		case "proposal_revised", "decision_proposed":
			if name == "proposal_revised" {
				phaseErr(PhaseRevising)
				ownerOnly("proposal revision")
			} else {
				phaseErr(PhaseRevising, PhaseDecisionReview)
				ownerOnly("decision proposal")
			}
			if seqIsInt {
				s.inputSeq = seqInt
			}
			s.classSeq = 0
			s.Phase, s.Waiting = PhaseDecisionReview, ownerList()
		case "question_classified":
			phaseErr(PhaseDecisionReview)
			ownerOnly("question classification")
			if seqIsInt {
				s.classSeq = seqInt
			}
			acceptors = map[string]bool{}
			for _, p := range participants {
				acceptors[p] = true
			}
			s.Waiting = waitList(acceptors)
			if !t.faults[FaultOutOfPhaseKeepsPhase] {
				s.Phase = PhaseDecisionReview
			}
		case "decision_accepted":
			phaseErr(PhaseDecisionReview)
			if s.inputSeq != 0 && s.classSeq <= s.inputSeq && !t.faults[FaultAcceptUnclassified] {
				fail("decision_accepted requires question_classified after the latest proposal or decision")
			}
			expect(sortedKeys(acceptors), "decision acceptance")
			if !t.faults[FaultSkipReadinessGate] {
				for _, msg := range rd.DecisionErrors() {
					fail("%s", msg)
				}
			}
			if a, ok := actor.(string); ok {
				delete(acceptors, a)
			}
			if len(acceptors) > 0 {
				s.Waiting = waitList(acceptors)
				if !t.faults[FaultOutOfPhaseKeepsPhase] {
					s.Phase = PhaseDecisionReview
				}
			} else {
				s.Phase, s.Waiting = PhaseReadinessCheck, ownerList()
			}
		case "readiness_passed":
			phaseErr(PhaseReadinessCheck)
			if schema == SchemaV2 && !s.primaryFrozen && !t.faults[FaultReadinessWithoutFreeze] {
				fail("readiness_passed requires primary deliverable_frozen")
			}
			ownerOnly("readiness pass")
			s.readinessPassed = true
			s.Phase, s.Waiting = PhaseReadinessCheck, ownerList()
		case "completed":
			if (s.Phase != PhaseReadinessCheck || !s.readinessPassed) && !t.faults[FaultCompleteWithoutReadiness] {
				fail("completed requires a prior readiness_passed event")
			}
			if e.Fields["doc"] != "conclusion.md" && !t.faults[FaultCompleteAnyDoc] {
				fail("completed must reference conclusion.md")
			}
			ownerOnly("completion")
			s.Phase, s.Waiting = PhaseCompleted, []string{}
		}
	}
	return s, errs
}
