package kcpref

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// The publisher tools' drafts: a knowledge.yaml from an llms.txt, and one
// from a directory's README and docs. Both are deterministic text.

// LlmsTxt is an llms.txt read: its title, its summary (the first
// blockquote before any section) and its sections of links.
type LlmsTxt struct {
	Title, Summary string
	Sections       []LlmsSection
}

// LlmsSection is one "## name" section.
type LlmsSection struct {
	Name  string
	Links []LlmsLink
}

// LlmsLink is one "- [title](url): description" line.
type LlmsLink struct{ Title, URL, Description string }

var (
	llmsH1    = regexp.MustCompile(`^#\s+(.+?)\s*$`)
	llmsH2    = regexp.MustCompile(`^##\s+(.+?)\s*$`)
	llmsQuote = regexp.MustCompile(`^>\s*(.+?)\s*$`)
	llmsLink  = regexp.MustCompile(`^[-*]\s*\[([^\]]+)\]\(([^)]+)\)\s*(?::\s*(.*))?$`)
)

// ParseLlmsTxt reads an llms.txt; prose lines carry nothing.
func ParseLlmsTxt(text string) LlmsTxt {
	var doc LlmsTxt
	var current *LlmsSection
	for _, raw := range regexp.MustCompile(`\r?\n`).Split(text, -1) {
		line := jsTrim(raw)
		if line == "" {
			continue
		}
		if m := llmsH2.FindStringSubmatch(line); m != nil {
			doc.Sections = append(doc.Sections, LlmsSection{Name: m[1]})
			current = &doc.Sections[len(doc.Sections)-1]
			continue
		}
		if m := llmsH1.FindStringSubmatch(line); m != nil && doc.Title == "" {
			doc.Title = m[1]
			continue
		}
		if m := llmsQuote.FindStringSubmatch(line); m != nil && doc.Summary == "" && current == nil {
			doc.Summary = m[1]
			continue
		}
		if m := llmsLink.FindStringSubmatch(line); m != nil && current != nil {
			current.Links = append(current.Links, LlmsLink{Title: jsTrim(m[1]), URL: jsTrim(m[2]), Description: jsTrim(m[3])})
		}
	}
	return doc
}

// ErrNothingToConvert is an llms.txt without a link to a unit.
var ErrNothingToConvert = errors.New("llms.txt contains no links — nothing to convert")

// DraftFromLlmsTxt is the knowledge.yaml drafted from an llms.txt:
// same-site links become units, links to other origins TODOs.
func DraftFromLlmsTxt(doc LlmsTxt, publisher string, faults []Fault) (string, error) {
	type entry struct {
		link    LlmsLink
		section string
	}
	var entries []entry
	for _, s := range doc.Sections {
		for _, l := range s.Links {
			entries = append(entries, entry{l, s.Name})
		}
	}
	if len(entries) == 0 {
		return "", ErrNothingToConvert
	}
	project := doc.Title
	if project == "" {
		project = "website"
	}
	todos := !HasFault(faults, FaultLlmsNoTodos)
	var lines []string
	add := func(l ...string) { lines = append(lines, l...) }
	add("# Drafted by kcp-agent init --from-llms-txt — review before use.", "#",
		"# Converted from an llms.txt, which cannot express audiences, temporal validity,",
		"# signatures, payment terms or federation. Those are left out rather than guessed:",
		"# the source never said them. See the TODOs below for what to add next.", "",
		`kcp_version: "0.30"`, "project: "+yamlQuoted(project), `version: "1.0.0"`)
	if publisher != "" {
		add("publisher: " + yamlQuoted(publisher))
	}
	if doc.Summary != "" {
		add("intent: " + yamlQuoted(doc.Summary))
	}
	add("")
	if todos {
		add("# TODO: add `signing:` once you have a key — an unsigned manifest is usable but",
			"#       cannot be verified, and a consumer running --require-signature will skip it.",
			"# TODO: set `valid_from` / `valid_until` on units that go stale.",
			"# TODO: narrow `audience:` per unit — everything below is open to agent and human.", "")
	}
	// The site is the origin most links share; a relative link is on it.
	counts, order := map[string]int{}, []string{}
	for _, e := range entries {
		if o := urlOrigin(e.link.URL); o != "" {
			if counts[o] == 0 {
				order = append(order, o)
			}
			counts[o]++
		}
	}
	site, best := "", 0
	for _, o := range order {
		if counts[o] > best {
			site, best = o, counts[o]
		}
	}
	var onSite, offSite []entry
	for _, e := range entries {
		if o := urlOrigin(e.link.URL); o != "" && o != site && !HasFault(faults, FaultLlmsOffSiteUnits) {
			offSite = append(offSite, e)
		} else {
			onSite = append(onSite, e)
		}
	}
	if len(onSite) == 0 {
		return "", ErrNothingToConvert
	}
	if len(offSite) > 0 && todos {
		add(fmt.Sprintf("# TODO: %d link(s) point at other origins and are not units.", len(offSite)),
			"#       Add them under `manifests:` if they publish their own knowledge.yaml:")
		for i, e := range offSite {
			if i < 10 {
				add("#         " + e.link.URL)
			}
		}
		add("")
	}
	add("units:")
	used := map[string]bool{}
	for _, e := range onSite {
		base := llmsSlug(e.link.Title)
		if base == "" {
			base = llmsSlug(e.link.URL)
		}
		if base == "" {
			base = "unit"
		}
		id := base
		for n := 2; used[id]; n++ {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		used[id] = true
		intent := e.link.Description
		if intent == "" {
			intent = e.link.Title
		}
		var triggers []string
		for _, t := range llmsTriggers(e.link.Title, e.section) {
			triggers = append(triggers, yamlQuoted(t))
		}
		add("  - id: "+yamlQuoted(id), "    path: "+yamlQuoted(RelativeUnitPath(e.link.URL)),
			"    intent: "+yamlQuoted(intent), "    scope: global", "    audience: [agent, human]",
			"    triggers: ["+strings.Join(triggers, ", ")+"]")
	}
	add("")
	return strings.Join(lines, "\n"), nil
}

var (
	llmsStop  = regexp.MustCompile(`^(the|and|for|with|from|that|this|are|was|has|have|not|but|its|our|your|a|an|to|of|in|on)$`)
	llmsSplit = regexp.MustCompile(`[\s,;:—–\-/|()]+`)
)

// llmsTriggers are the section's and the title's words (longer than two
// characters, stopwords out), unique, at most eight.
func llmsTriggers(title, section string) []string {
	seen := map[string]bool{}
	var out []string
	for _, source := range []string{section, title} {
		for _, w := range llmsSplit.Split(jsLower(source), -1) {
			t := jsTrim(w)
			if len([]rune(t)) > 2 && !llmsStop.MatchString(t) && !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	if len(out) > 8 {
		out = out[:8]
	}
	return out
}

var (
	slugScheme = regexp.MustCompile(`https?://`)
	slugOther  = regexp.MustCompile(`[^a-z0-9]+`)
	slugEnds   = regexp.MustCompile(`^-+|-+$`)
)

func llmsSlug(v string) string {
	s := jsLower(v)
	if loc := slugScheme.FindStringIndex(s); loc != nil {
		s = s[:loc[0]] + s[loc[1]:]
	}
	s = slugEnds.ReplaceAllString(slugOther.ReplaceAllString(s, "-"), "")
	if len(s) > 48 {
		s = s[:48]
	}
	return s
}

// urlOrigin is an absolute URL's scheme://host[:port]; "" for a relative one.
func urlOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// RelativeUnitPath is a same-site URL as a unit path relative to the
// site root: https://acme.dev/docs/guide/ is docs/guide, the root index.
func RelativeUnitPath(raw string) string {
	p := raw
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Host != "" {
		p = u.EscapedPath()
	}
	p = strings.TrimRight(strings.TrimLeft(p, "/"), "/")
	if p == "" {
		return "index"
	}
	return p
}

func yamlQuoted(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// DraftUnit is one unit of a directory's draft manifest.
type DraftUnit struct {
	ID, Path, Intent string
	TodoIntent       bool
	Scope            string   // global when empty
	Audience         []string // [agent, human] when empty
	Triggers         []string
	Eager            bool // hints: {load_strategy: eager}
}

// DraftFromDirectory is init's knowledge.yaml over a directory's units:
// project and version, the day's date, the publisher (or a TODO), free
// payment, then each unit.
func DraftFromDirectory(project, version, today, publisher string, units []DraftUnit, skipped int) string {
	pub := `"Unknown"  # TODO: set your publisher name`
	if publisher != "" {
		pub = initYAMLString(publisher)
	}
	lines := []string{"# Generated by kcp-agent init — review TODOs before publishing", `kcp_version: "0.26"`,
		"project: " + project, "version: " + version, `updated: "` + today + `"`, "language: en", "",
		"trust:", "  provenance:", "    publisher: " + pub, "",
		"payment:", "  default_tier: free", "  methods:", "    - type: free", "", "units:"}
	for _, u := range units {
		intent := "    intent: " + initYAMLString(u.Intent)
		if u.TodoIntent {
			intent += "  # TODO: review intent"
		}
		scope, audience := u.Scope, u.Audience
		if scope == "" {
			scope = "global"
		}
		if audience == nil {
			audience = []string{"agent", "human"}
		}
		lines = append(lines, "  - id: "+u.ID, "    path: "+u.Path, intent, "    scope: "+scope,
			"    audience: ["+strings.Join(audience, ", ")+"]", "    triggers: ["+strings.Join(u.Triggers, ", ")+"]")
		if u.Eager {
			lines = append(lines, "    hints: {load_strategy: eager}")
		}
		lines = append(lines, "")
	}
	if skipped > 0 {
		lines = append(lines, fmt.Sprintf("  # %d additional file(s) found but skipped to keep the manifest manageable.", skipped),
			"  # Run kcp-agent init --force to regenerate, or add them manually.", "")
	}
	return strings.Join(lines, "\n")
}

var initNeedsEscape = regexp.MustCompile("[:#{}\\[\\],&*?|>!'\"%@`]")

// initYAMLString is init's double-quoted scalar (escaped only where it
// holds a YAML indicator, a newline or surrounding space).
func initYAMLString(v string) string {
	if initNeedsEscape.MatchString(v) || strings.Contains(v, "\n") || jsTrim(v) != v {
		return yamlQuoted(v)
	}
	return `"` + v + `"`
}

// InitDirTriggers are the triggers of a directory's name: the name and
// the known synonyms of it.
func InitDirTriggers(name string) []string {
	out := []string{name}
	for _, t := range initKnownTriggers[jsLower(name)] {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// InitTriggers are the triggers of a file name's stem: the stem, its
// kebab or snake words lower-cased, and the known synonyms of each.
func InitTriggers(stem string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	add(stem)
	for _, w := range regexp.MustCompile(`[-_]`).Split(stem, -1) {
		if w == "" {
			continue
		}
		lower := jsLower(w)
		add(lower)
		for _, t := range initKnownTriggers[lower] {
			add(t)
		}
	}
	return out
}

// initKnownTriggers are the synonyms init adds for common file names.
var initKnownTriggers = map[string][]string{
	"auth": {"auth", "authentication", "login"}, "route": {"api", "endpoint", "routes"}, "routes": {"api", "endpoint", "routes"},
	"router": {"api", "endpoint", "routes"}, "config": {"configuration", "settings"}, "utils": {"utilities", "helpers"},
	"util": {"utilities", "helpers"}, "helpers": {"utilities", "helpers"}, "database": {"database", "db", "storage"},
	"db": {"database", "db", "storage"}, "middleware": {"middleware", "interceptor"}, "server": {"server", "http", "listen"},
	"client": {"client", "http", "request"}, "model": {"model", "schema", "types"}, "models": {"model", "schema", "types"},
	"types": {"types", "interfaces", "schema"}, "test": {"test", "testing", "spec"}, "tests": {"test", "testing", "spec"},
	"deploy": {"deploy", "deployment", "ci"}, "docker": {"docker", "container", "deployment"}, "cli": {"cli", "commands", "flags"},
	"logger": {"logging", "log", "debug"}, "log": {"logging", "log", "debug"}, "cache": {"cache", "caching", "memoize"},
	"error": {"error", "errors", "exception"}, "errors": {"error", "errors", "exception"},
	"validate": {"validate", "validation", "schema"}, "validation": {"validate", "validation", "schema"},
}

var (
	unitIDExt   = regexp.MustCompile(`\.[^.]+$`)
	unitIDOther = regexp.MustCompile(`[^a-zA-Z0-9-_]`)
	unitIDDash  = regexp.MustCompile(`-+`)
	unitIDEnds  = regexp.MustCompile(`^-|-$`)
)

// InitUnitID is a unit id made from a file or directory name.
func InitUnitID(name string) string {
	s := unitIDExt.ReplaceAllString(name, "")
	s = unitIDDash.ReplaceAllString(unitIDOther.ReplaceAllString(s, "-"), "-")
	return jsLower(unitIDEnds.ReplaceAllString(s, ""))
}
