package gherkin

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// IDTag starts a tag that gives a scenario its check ID explicitly,
// @id:<slug>, instead of the slug of its title. On an outline, or on one of
// its Examples tables, it may name the table's columns, @id:approves-<n>:
// each is filled with the slug of the row's value. It is neither a rule nor
// a tag to select by.
const IDTag = "id:"

// A check ID is the stable name of a check: expectations files, --check,
// --rerun-failed and go test -run name checks by it. So it is derived from
// what the check says (its title, or its @id: tag), never from its place
// in the file, and two checks of a file with one ID are refused.

var (
	nonSlug   = regexp.MustCompile(`[^a-z0-9]+`)
	validSlug = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// Slug turns a scenario name into a check ID segment: compatibility forms
// and accents are taken off (NFKD, so "Café" is "cafe" and "ｆｕｌｌ" is
// "full"), letters lower-cased, and every run of anything but an ASCII
// letter or digit is one hyphen. It is "" when nothing is left (a title
// written wholly in, say, Chinese): such a scenario needs an @id: tag.
func Slug(name string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(name) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(b.String()), "-"), "-")
}

// assignIDs gives every check its ID and reports each that has none, or
// one another check of the file has.
func (c *compiler) assignIDs() []string {
	var problems []string
	seen := map[string]int{} // slug → the check that has it
	for i := range c.checks {
		slug, problem := c.slug(i)
		if problem != "" {
			problems = append(problems, problem)
			continue
		}
		c.checks[i].ID = c.prefix + slug
		if first, dup := seen[slug]; dup {
			problems = append(problems, c.duplicate(first, i))
			continue
		}
		seen[slug] = i
	}
	return problems
}

// slug is check i's ID segment: its @id: tag, or the slug of its title.
func (c *compiler) slug(i int) (string, string) {
	p, at := c.pickles[i], c.checks[i].Source
	row := c.row(i)
	var explicit []string
	for _, t := range p.tags {
		if v, ok := strings.CutPrefix(t, IDTag); ok {
			explicit = append(explicit, v)
		}
	}
	switch {
	case len(explicit) > 1:
		return "", fmt.Sprintf("%s: the scenario has %d @id: tags, counting those of its outline, Examples, rule and feature (@id:%s); give it one", at, len(explicit), strings.Join(explicit, ", @id:"))
	case len(explicit) == 1:
		slug := explicit[0]
		if row != nil {
			slug = row.fill(slug)
		}
		if m := placeholder.FindString(slug); m != "" {
			if row == nil {
				return "", fmt.Sprintf("%s: @id:%s names the placeholder %s, but only an outline's Examples have columns to fill it; write the ID out", at, explicit[0], m)
			}
			return "", fmt.Sprintf("%s: @id:%s names the placeholder %s, but the row's Examples table has no such column (its columns: %s); add the column, or correct the placeholder", at, explicit[0], m, strings.Join(row.columns, ", "))
		}
		if !validSlug.MatchString(slug) {
			filled := ""
			if slug != explicit[0] {
				filled = fmt.Sprintf(" (filled from the row: %q)", slug)
			}
			return "", fmt.Sprintf("%s: @id:%s%s is no check ID; use lower-case ASCII letters and digits, words joined by single hyphens, e.g. @id:approves-in-chinese", at, explicit[0], filled)
		}
		return slug, ""
	}
	if slug := Slug(p.name); slug != "" {
		return slug, ""
	}
	if row != nil {
		return "", fmt.Sprintf("%s: the row makes the title %q, which has no ASCII letter or digit to make a check ID of (even with accents taken off); give the rows their IDs (a column id holding each row's ID, and @id:<id> on the Examples table), or name in the outline's title a column whose values have ASCII letters", at, p.name)
	}
	return "", fmt.Sprintf("%s: the title %q has no ASCII letter or digit to make a check ID of (even with accents taken off); tag the scenario with the ID it is to have, e.g. @id:approves-in-chinese", at, p.name)
}

// duplicate says that check second has the ID of check first.
func (c *compiler) duplicate(first, second int) string {
	a, b := c.pickles[first].nodes, c.pickles[second].nodes
	id, at, prev := c.checks[second].ID, c.checks[second].Source, c.checks[first].Source
	if len(a) > 1 && len(b) > 1 && a[0] == b[0] {
		return fmt.Sprintf("%s: check id %s is also used by the row at %s of the same outline; name a column that tells the rows apart in the outline's title, or give the rows @id: tags", at, id, prev)
	}
	return fmt.Sprintf("%s: check id %s is also used by %s; rename one, or give one an @id: tag", at, id, prev)
}

// row is the example row check i was compiled from, or nil.
func (c *compiler) row(i int) *exampleRow {
	if nodes := c.pickles[i].nodes; len(nodes) > 1 {
		return c.rows[nodes[len(nodes)-1]]
	}
	return nil
}

// fill puts the slug of the row's value in place of each <column> of s.
func (r *exampleRow) fill(s string) string {
	for i, col := range r.columns {
		s = strings.ReplaceAll(s, "<"+col+">", Slug(r.values[i]))
	}
	return s
}
