package acp

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Readiness is what readiness.md says about the gates.
type Readiness struct {
	Blocking       bool
	Unresolved     bool
	MissingReason  bool // a deferred_nonblocking item without "reason:"
	ReadyChecked   bool // "- [x] Ready to implement"
	text           string
	UnknownTags    []TagLine // tags the protocol does not define (ambiguity A4)
	checkedGateSet map[string]bool
}

// TagLine is a status item with a tag outside the protocol's vocabulary.
type TagLine struct {
	Line int
	Tag  string
}

var (
	statusItem   = regexp.MustCompile(`^\s*-\s*\[([A-Za-z_]+)\]\s*(.*)$`)
	readyItem    = regexp.MustCompile(`^\s*-\s*\[[xX]\]\s*Ready to implement`)
	checkedItem  = regexp.MustCompile(`^\s*-\s*\[[xX]\]\s*(.*?)\s*$`)
	knownTags    = map[string]bool{"resolved": true, "deferred_nonblocking": true, "blocking": true, "unresolved": true, "x": true, "X": true}
	classifyTags = map[string]bool{"resolved": true, "deferred_nonblocking": true, "blocking": true, "unresolved": true}
)

// ScanReadiness reads readiness.md's markers: any line of the file counts.
func ScanReadiness(text string) Readiness {
	r := Readiness{text: text, checkedGateSet: map[string]bool{}}
	for i, line := range lines(text) {
		if m := statusItem.FindStringSubmatch(line); m != nil {
			tag, rest := m[1], m[2]
			switch {
			case tag == "blocking":
				r.Blocking = true
			}
			if tag == "unresolved" || (classifyTags[tag] && strings.Contains(rest, "TBD")) {
				r.Unresolved = true
			}
			if tag == "deferred_nonblocking" && !strings.Contains(strings.ToLower(line), "reason:") {
				r.MissingReason = true
			}
			if !knownTags[tag] {
				r.UnknownTags = append(r.UnknownTags, TagLine{Line: i + 1, Tag: tag})
			}
		}
		if readyItem.MatchString(line) {
			r.ReadyChecked = true
		}
		if m := checkedItem.FindStringSubmatch(line); m != nil {
			r.checkedGateSet[m[1]] = true
		}
	}
	return r
}

// UncheckedGates lists the gates without a checked "- [x] <gate>" line.
func (r Readiness) UncheckedGates(gates []string) []string {
	var out []string
	for _, g := range gates {
		if !r.checkedGateSet[g] {
			out = append(out, g)
		}
	}
	return out
}

// ConclusionSections are the level-2 headings conclusion.md needs.
var ConclusionSections = []string{"Decision Outcome", "Rationale", "Accepted Decisions", "Implementation Approach",
	"Assumptions", "Deferred Follow-ups", "Implementation Blockers", "Next Action"}

var (
	outcomeItem = regexp.MustCompile(`^\s*-\s*\[([A-Za-z_]+)\]\s+(.+)$`)
	placeholder = regexp.MustCompile(`(?i)TBD|TODO|unresolved|待定`)
	outcomeTags = map[string]bool{"proceed": true, "do_not_proceed": true, "defer": true, "blocked": true}
)

// Outcome is a final-outcome line of conclusion.md.
type Outcome struct {
	Line    int
	Tag     string
	Section string // the "## " section it sits in
}

// ConclusionErrors lists what keeps conclusion.md from closing the
// collaboration, in the upstream order.
func ConclusionErrors(text string) []string {
	var errs []string
	have := map[string]bool{}
	for _, line := range lines(text) {
		if h, ok := heading2(line); ok {
			have[h] = true
		}
	}
	var missing []string
	for _, s := range ConclusionSections {
		if !have[s] {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		errs = append(errs, "conclusion.md is missing required sections: "+strings.Join(missing, ", "))
	}
	outs := Outcomes(text)
	if len(outs) != 1 {
		errs = append(errs, "conclusion.md must declare exactly one final outcome")
	} else if outs[0].Tag == "blocked" {
		errs = append(errs, "conclusion.md outcome cannot be completed while blocked")
	}
	if hasPlaceholder(text) {
		errs = append(errs, "conclusion.md must not contain unresolved placeholders before completed")
	}
	return errs
}

// Outcomes lists the outcome lines of conclusion.md.
func Outcomes(text string) []Outcome {
	var out []Outcome
	section := ""
	for i, line := range lines(text) {
		if h, ok := heading2(line); ok {
			section = h
		}
		if m := outcomeItem.FindStringSubmatch(line); m != nil && outcomeTags[m[1]] {
			out = append(out, Outcome{Line: i + 1, Tag: m[1], Section: section})
		}
	}
	return out
}

var heading2Pattern = regexp.MustCompile(`^##\s+(.*?)\s*$`)

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

var reviewHeading = regexp.MustCompile(`^##\s+.+?\s+-\s+(.+?)\s+-\s+seq\s+(\d+)\s*$`)

// ReviewHeadings lists review.md's review headings in file order.
func ReviewHeadings(text string) []ReviewHeading {
	var out []ReviewHeading
	ls := lines(text)
	for i, line := range ls {
		m := reviewHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var seq int
		fmt.Sscan(m[2], &seq)
		var body strings.Builder
		for _, l := range ls[i+1:] {
			if strings.HasPrefix(l, "## ") || l == "##" {
				break
			}
			body.WriteString(l + "\n")
		}
		out = append(out, ReviewHeading{Line: i + 1, Participant: m[1], Seq: seq, Body: body.String()})
	}
	return out
}

// ReviewSections are the parts of a structured review the seed lists.
var ReviewSections = []string{"Context", "Position", "Concerns", "Required Changes", "Questions"}

// MissingReviewSections lists the review parts a heading's body lacks, as a
// "Name:" line or a "### Name" heading.
func MissingReviewSections(body string) []string {
	var missing []string
	for _, s := range ReviewSections {
		re := regexp.MustCompile(`(?m)^\s*(?:#{3,}\s*)?` + regexp.QuoteMeta(s) + `\s*:?\s*$`)
		if !re.MatchString(body) {
			missing = append(missing, s)
		}
	}
	return missing
}

func lines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// hasPlaceholder finds TBD, TODO, unresolved or 待定 as a whole word, with
// Unicode word boundaries (a letter, digit or underscore on either side
// joins the word), case-insensitively.
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
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}
