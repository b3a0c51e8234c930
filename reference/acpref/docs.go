package acpref

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// patterns caches the regular expressions built from a gate or heading.
var patterns sync.Map

func pattern(expr string) *regexp.Regexp {
	if re, ok := patterns.Load(expr); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(expr)
	patterns.Store(expr, re)
	return re
}

// The document scans follow upstream's regular expressions, translated to
// Go with Python's meaning of \s (Unicode whitespace, newlines included),
// over the whole text as read in text mode: a status item's \s* may run
// across a line break, as it does upstream.

// Readiness is what readiness.md says about the gates.
type Readiness struct {
	Blocking      bool
	Unresolved    bool
	MissingReason bool // a deferred_nonblocking item whose text lacks "reason:"
	ReadyChecked  bool // "- [x] Ready to implement"
	Text          string
	UnknownTags   []TagLine // tags the protocol does not define (ambiguity A4)
}

// TagLine is a status item with a tag outside the protocol's vocabulary.
type TagLine struct {
	Line int
	Tag  string
}

var (
	statusItem   = regexp.MustCompile(`(?m)^` + ws + `*-` + ws + `*\[([A-Za-z_]+)\]` + ws + `*(.*)$`)
	readyItem    = regexp.MustCompile(`(?m)^` + ws + `*-` + ws + `*\[[xX]\]` + ws + `*Ready to implement`)
	tagOnLine    = regexp.MustCompile(`^\s*-\s*\[([A-Za-z_]+)\]`)
	knownTags    = map[string]bool{"resolved": true, "deferred_nonblocking": true, "blocking": true, "unresolved": true, "x": true, "X": true}
	classifyTags = map[string]bool{"resolved": true, "deferred_nonblocking": true, "blocking": true, "unresolved": true}
)

// ScanReadiness reads readiness.md's markers as upstream's readiness_scan
// does: any status item anywhere in the file counts.
func ScanReadiness(text string) Readiness {
	r := Readiness{Text: text}
	for _, m := range statusItem.FindAllStringSubmatch(text, -1) {
		tag, body := m[1], m[2]
		if tag == "blocking" {
			r.Blocking = true
		}
		if classifyTags[tag] && (tag == "unresolved" || strings.Contains(body, "TBD")) {
			r.Unresolved = true
		}
		if tag == "deferred_nonblocking" && !strings.Contains(pyLower(body), "reason:") {
			r.MissingReason = true
		}
	}
	r.ReadyChecked = readyItem.MatchString(text)
	for i, line := range lines(text) {
		if m := tagOnLine.FindStringSubmatch(line); m != nil && !knownTags[m[1]] {
			r.UnknownTags = append(r.UnknownTags, TagLine{Line: i + 1, Tag: m[1]})
		}
	}
	return r
}

// pyLower is str.lower() for the ASCII "reason:" test: Unicode lower case.
func pyLower(s string) string { return strings.ToLower(s) }

// DecisionErrors are the readiness errors that keep decision_accepted
// closed, as derive reports them for each acceptance.
func (r Readiness) DecisionErrors() []string {
	var out []string
	if r.Blocking {
		out = append(out, "blocking readiness items must be cleared before decision_accepted")
	}
	if r.Unresolved {
		out = append(out, "unresolved readiness questions must be classified before decision_accepted")
	}
	if r.MissingReason {
		out = append(out, "deferred_nonblocking readiness items require a reason before decision_accepted")
	}
	return out
}

// UncheckedGates lists the gates without a checked "- [x] <gate>" line,
// matched as upstream does: the gate's text literally, whitespace around.
func (r Readiness) UncheckedGates(gates []string) []string {
	var out []string
	for _, g := range gates {
		re := pattern(`(?m)^` + ws + `*-` + ws + `*\[[xX]\]` + ws + `*` + regexp.QuoteMeta(g) + ws + `*$`)
		if !re.MatchString(r.Text) {
			out = append(out, g)
		}
	}
	return out
}

// ConclusionSections are the level-2 headings conclusion.md needs in v1.
var ConclusionSections = []string{"Decision Outcome", "Rationale", "Accepted Decisions", "Implementation Approach",
	"Assumptions", "Deferred Follow-ups", "Implementation Blockers", "Next Action"}

// ConclusionSectionsV2 are v2's: a receipt of the frozen deliverable.
var ConclusionSectionsV2 = []string{"Decision Outcome", "Rationale", "Deliverable Receipt", "Accepted Decisions Summary",
	"Readiness Result", "Assumptions", "Deferred Follow-ups", "Implementation Blockers", "Next Action"}

// SectionsOf lists the conclusion headings a schema needs.
func SectionsOf(s Schema) []string {
	if s == SchemaV2 {
		return ConclusionSectionsV2
	}
	return ConclusionSections
}

var (
	outcomeItem = regexp.MustCompile(`(?m)^` + ws + `*-` + ws + `*\[([A-Za-z_]+)\]` + ws + `+(.+)$`)
	placeholder = regexp.MustCompile(`(?i)TBD|TODO|unresolved|待定`)
	outcomeTags = map[string]bool{"proceed": true, "do_not_proceed": true, "defer": true, "blocked": true}
)

// hasHeading2 is upstream's `^##\s+<heading>\s*$` search.
func hasHeading2(text, heading string) bool {
	return pattern(`(?m)^##` + ws + `+` + regexp.QuoteMeta(heading) + ws + `*$`).MatchString(text)
}

// Outcome is a final-outcome line of conclusion.md.
type Outcome struct {
	Line    int
	Tag     string
	Section string // the "## " section it sits in
}

// ConclusionErrors lists what keeps conclusion.md from closing the
// collaboration, in the upstream order. In v2 primaryRef, when not empty,
// must appear in it.
func ConclusionErrors(schema Schema, text, primaryRef string) []string {
	var errs []string
	var missing []string
	for _, s := range SectionsOf(schema) {
		if !hasHeading2(text, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		errs = append(errs, "conclusion.md is missing required sections: "+strings.Join(missing, ", "))
	}
	var final []string
	for _, m := range outcomeItem.FindAllStringSubmatch(text, -1) {
		if outcomeTags[m[1]] {
			final = append(final, m[1])
		}
	}
	if len(final) != 1 {
		errs = append(errs, "conclusion.md must declare exactly one final outcome")
	} else if final[0] == "blocked" {
		errs = append(errs, "conclusion.md outcome cannot be completed while blocked")
	}
	if hasPlaceholder(text) {
		errs = append(errs, "conclusion.md must not contain unresolved placeholders before completed")
	}
	if schema == SchemaV2 && primaryRef != "" && !strings.Contains(text, primaryRef) {
		errs = append(errs, "conclusion.md must reference the primary deliverable")
	}
	return errs
}

// Outcomes lists the outcome lines of conclusion.md, line by line, with
// the section each sits in (for the strict section check).
func Outcomes(text string) []Outcome {
	var out []Outcome
	section := ""
	for i, line := range lines(text) {
		if h, ok := heading2(line); ok {
			section = h
		}
		if m := outcomeLine.FindStringSubmatch(line); m != nil && outcomeTags[m[1]] {
			out = append(out, Outcome{Line: i + 1, Tag: m[1], Section: section})
		}
	}
	return out
}

var (
	outcomeLine     = regexp.MustCompile(`^\s*-\s*\[([A-Za-z_]+)\]\s+(.+)$`)
	heading2Pattern = regexp.MustCompile(`^##\s+(.*?)\s*$`)
)

func heading2(line string) (string, bool) {
	if strings.HasPrefix(line, "###") {
		return "", false
	}
	m := heading2Pattern.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// ReviewHeading is one "## <time> - <participant> - seq <n>" heading.
type ReviewHeading struct {
	Line        int
	Participant string
	Seq         int
	Body        string // the text up to the next level-2 heading
}

var reviewHeading = regexp.MustCompile(`^##` + ws + `+.+?` + ws + `+-` + ws + `+(.+?)` + ws + `+-` + ws + `+seq` + ws + `+(\p{Nd}+)` + ws + `*$`)

// ReviewHeadings lists review.md's review headings in file order, over the
// lines str.splitlines() gives.
func ReviewHeadings(text string) []ReviewHeading {
	var out []ReviewHeading
	ls := pySplitlines(text)
	for i, line := range ls {
		m := reviewHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		seq := 0
		for _, r := range m[2] {
			seq = seq*10 + digitValue(r)
		}
		var body strings.Builder
		for _, l := range ls[i+1:] {
			if strings.HasPrefix(l, "## ") || l == "##" {
				break
			}
			body.WriteString(l + "\n")
		}
		out = append(out, ReviewHeading{Line: i + 1, Participant: strings.TrimFunc(m[1], pySpace), Seq: seq, Body: body.String()})
	}
	return out
}

// digitValue is the value of a decimal digit of any script, as int() reads it.
func digitValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	for _, rt := range unicode.Nd.R16 {
		if uint16(r) >= rt.Lo && uint16(r) <= rt.Hi && r <= 0xffff {
			return int(uint16(r)-rt.Lo) % 10
		}
	}
	for _, rt := range unicode.Nd.R32 {
		if uint32(r) >= rt.Lo && uint32(r) <= rt.Hi {
			return int(uint32(r)-rt.Lo) % 10
		}
	}
	return 0
}

// ReviewSections are the parts of a structured review the seed lists.
var ReviewSections = []string{"Context", "Position", "Concerns", "Required Changes", "Questions"}

// MissingReviewSections lists the review parts a heading's body lacks, as a
// "Name:" line or a "### Name" heading.
func MissingReviewSections(body string) []string {
	var missing []string
	for _, s := range ReviewSections {
		re := pattern(`(?m)^\s*(?:#{3,}\s*)?` + regexp.QuoteMeta(s) + `\s*:?\s*$`)
		if !re.MatchString(body) {
			missing = append(missing, s)
		}
	}
	return missing
}

func lines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// hasPlaceholder finds TBD, TODO, unresolved or 待定 as a whole word, with
// Unicode word boundaries (a letter, digit or underscore on either side
// joins the word), case-insensitively, as Python's \b does.
func hasPlaceholder(text string) bool {
	for _, loc := range placeholder.FindAllStringIndex(text, -1) {
		before, _ := utf8.DecodeLastRuneInString(text[:loc[0]])
		after, _ := utf8.DecodeRuneInString(text[loc[1]:])
		if loc[0] > 0 && wordRune(before) || loc[1] < len(text) && wordRune(after) {
			continue
		}
		return true
	}
	return false
}

func wordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.In(r, unicode.Nl, unicode.No)
}
