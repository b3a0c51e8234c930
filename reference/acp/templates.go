package acp

import (
	"fmt"
	"strings"
)

// The documents init writes. They are sifu's own wording; what matters to
// the gates is kept: an unresolved placeholder question, one unchecked item
// per completion gate, the final design checklist, and a blocked outcome with
// placeholders in every conclusion section, so nothing can be accepted or
// completed until the participants edit them.

func readmeTemplate(objective string, participants []string) string {
	return fmt.Sprintf(`# ACP collaboration

Objective: %s

Participants: %s

This folder is an Agent Collaboration Protocol workspace. Act on
protocol.json's currentPhase and waitingFor; record every step with the
append tool; never edit events.jsonl by hand. This README is not a protocol
file.
`, objective, strings.Join(participants, ", "))
}

func proposalTemplate(objective string) string {
	return fmt.Sprintf(`# Proposal

Objective: %s

The proposal owner writes the current proposal here before proposal_submitted.
`, objective)
}

const reviewTemplate = `# Reviews

Each review_submitted event gets a section headed
"## <UTC time> - <participant> - seq <seq of that review_submitted event>"
with the parts Context, Position, Concerns, Required Changes and Questions.
`

const decisionsTemplate = `# Decisions

Only accepted decisions belong here.
`

func readinessTemplate(gates []string) string {
	var b strings.Builder
	b.WriteString("# Readiness\n\n## Open Question Classification\n\n- [unresolved] TBD.\n\n")
	b.WriteString("Classify every open question as [resolved], [deferred_nonblocking] (with Reason: …) or [blocking].\n\n")
	b.WriteString("## Completion Gates\n\n")
	for _, g := range gates {
		b.WriteString("- [ ] " + g + "\n")
	}
	b.WriteString("\n## Final Design Document Checklist\n\n")
	for _, item := range []string{"Accepted Decisions", "Assumptions", "Deferred Follow-ups", "Implementation Blockers", "Ready to implement"} {
		b.WriteString("- [ ] " + item + "\n")
	}
	return b.String()
}

func conclusionTemplate() string {
	var b strings.Builder
	b.WriteString("# Conclusion\n\n")
	for _, s := range ConclusionSections {
		b.WriteString("## " + s + "\n\n")
		if s == "Decision Outcome" {
			b.WriteString("- [blocked] TBD\n\n")
			continue
		}
		b.WriteString("TBD\n\n")
	}
	return b.String()
}
