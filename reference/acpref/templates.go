package acpref

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

// The v2 documents. They keep what v2's checks read: the review scope and
// the primary deliverable's reference in review.md, a checkbox for every
// objective and generated gate and the freeze snapshot in readiness.md, a
// receipt naming the deliverable in conclusion.md, and a deliverable with
// a Status line and its type's sections.

func proposalTemplateV2(objective, ref string) string {
	return fmt.Sprintf(`# Proposal

Objective: %s

The proposal owner drafts the primary deliverable (%s), appends
deliverable_drafted, writes the current proposal here, then appends
proposal_submitted.
`, objective, "`"+ref+"`")
}

func reviewTemplateV2(ref string) string {
	return `# Reviews

Each review_submitted event gets a section headed
"## <UTC time> - <participant> - seq <seq of that review_submitted event>"
with the parts Context, Position, Concerns, Required Changes and Questions.
Each review names what it read:

Reviewed primary deliverable: ` + "`" + ref + "`" + `

Review Scope:
- Proposal coherence
- Primary deliverable completeness
- Accepted decision traceability
- Implementation readiness
`
}

func readinessTemplateV2(objective, generated []string, ref string) string {
	var b strings.Builder
	b.WriteString("# Readiness\n\n## Open Question Classification\n\n- [unresolved] The deliverable has not been reviewed yet.\n\n")
	b.WriteString("Classify every open question as [resolved], [deferred_nonblocking] (with Reason: …) or [blocking].\n\n")
	b.WriteString("## Objective Gates\n\n")
	for _, g := range objective {
		b.WriteString("- [ ] " + g + "\n")
	}
	b.WriteString("\n## Generated Deliverable Gates\n\n")
	for _, g := range generated {
		b.WriteString("- [ ] " + g + "\n")
	}
	b.WriteString("\n## Deliverable Snapshot\n\n- Primary: `" + ref + "`\n- SHA-256:\n\n")
	b.WriteString("## Ready to Implement\n\n- [ ] Ready to implement\n")
	return b.String()
}

func conclusionTemplateV2(ref, typ string) string {
	var b strings.Builder
	b.WriteString("# Conclusion\n\n")
	for _, s := range ConclusionSectionsV2 {
		b.WriteString("## " + s + "\n\n")
		switch s {
		case "Decision Outcome":
			b.WriteString("- [blocked] The collaboration has not concluded.\n\n")
		case "Deliverable Receipt":
			b.WriteString("- Primary: `" + ref + "`\n- Type: `" + typ + "`\n- SHA-256:\n\n")
		default:
			b.WriteString("Not written yet.\n\n")
		}
	}
	return b.String()
}

// deliverableTemplate is a fresh primary deliverable: a draft with its
// type's (or its checklist's) sections, empty.
func deliverableTemplate(d map[string]any) string {
	title := "Deliverable"
	typ, _ := d["type"].(string)
	if spec, ok := DeliverableTypes[typ]; ok {
		title = spec.Title
	} else if typ == "custom" {
		title = "Custom Deliverable"
	}
	var b strings.Builder
	b.WriteString("# " + title + "\n\nDeliverable type: `" + typ + "`\nStatus: Draft\n\n")
	for _, s := range DeliverableSections(d) {
		b.WriteString("## " + s + "\n\n")
	}
	return b.String()
}
