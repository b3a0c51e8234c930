// Package catalogue loads a specification's rule catalogue: every normative
// rule with its level, profiles and how it can be evidenced.
package catalogue

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strings"

	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/schema"
)

// SchemaName is the schema every catalogue must satisfy.
const SchemaName = "rules.schema.json"

// Evidence kinds.
const (
	BlackBox     = "black-box"
	ControlPlane = "control-plane"
	NotBlackBox  = "not-black-box"
)

// Catalogue is the rules of one specification.
type Catalogue struct {
	Suite    string    `json:"suite"`
	Spec     Spec      `json:"spec"`
	Profiles []Profile `json:"profiles,omitempty"`
	Rules    []Rule    `json:"rules"`

	byID map[string]int
}

// Spec names the specification a catalogue comes from.
type Spec struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Source  string `json:"source"`
	// SectionURL, when set, is where a section can be read, with
	// "{section}" standing for the section.
	SectionURL string `json:"section_url,omitempty"`
}

// SectionLink is the URL of a rule's section, or "" when the catalogue
// gives none.
func (s Spec) SectionLink(section string) string {
	if s.SectionURL == "" || section == "" {
		return ""
	}
	return strings.ReplaceAll(s.SectionURL, "{section}", url.PathEscape(section))
}

// Profile is a conformance profile and the profiles it includes.
type Profile struct {
	Name     string   `json:"name"`
	Includes []string `json:"includes"`
	Summary  string   `json:"summary,omitempty"`
}

// Rule is one normative rule.
type Rule struct {
	ID            string   `json:"id"`
	Section       string   `json:"section"`
	Level         string   `json:"level"`
	Profiles      []string `json:"profiles"`
	ExercisedWith []string `json:"exercised_with,omitempty"`
	Summary       string   `json:"summary"`
	Evidence      string   `json:"evidence"`
	Controls      []string `json:"controls,omitempty"`
	Reason        string   `json:"reason,omitempty"`
	// Axes is the matrix the rule names: for each axis (role, version,
	// deadline, ...) the values it must be checked for. A check covers a
	// value when it evidences the rule and is tagged "axis:value".
	Axes map[string][]string `json:"axes,omitempty"`
}

// Advisory reports whether a failing check of this rule only warns (SHOULD).
func (r Rule) Advisory() bool { return r.Level == "SHOULD" || r.Level == "SHOULD NOT" }

// Load reads and validates the catalogue at file inside fsys, with schemas
// from set.
func Load(fsys fs.FS, file string, set *schema.Set) (*Catalogue, error) {
	raw, err := inputfile.ReadFS(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("rule catalogue: %w", err)
	}
	raw = inputfile.Text(raw)
	if err := set.Validate(SchemaName, file, raw); err != nil {
		return nil, err
	}
	var c Catalogue
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	c.byID = make(map[string]int, len(c.Rules))
	for i, r := range c.Rules {
		if _, dup := c.byID[r.ID]; dup {
			return nil, fmt.Errorf("%s: rule %s appears twice; rule IDs must be unique", file, r.ID)
		}
		c.byID[r.ID] = i
	}
	known := map[string]bool{}
	for _, p := range c.Profiles {
		known[p.Name] = true
	}
	for _, r := range c.Rules {
		for _, p := range append(append([]string{}, r.Profiles...), r.ExercisedWith...) {
			if len(c.Profiles) > 0 && !known[p] {
				return nil, fmt.Errorf("%s: rule %s names profile %q, which the catalogue does not define", file, r.ID, p)
			}
		}
	}
	return &c, nil
}

// Rule returns the rule with the given ID.
func (c *Catalogue) Rule(id string) (Rule, bool) {
	i, ok := c.byID[id]
	if !ok {
		return Rule{}, false
	}
	return c.Rules[i], true
}

// ProfileNames lists the catalogue's profiles in catalogue order.
func (c *Catalogue) ProfileNames() []string {
	names := make([]string, len(c.Profiles))
	for i, p := range c.Profiles {
		names[i] = p.Name
	}
	return names
}

// Closure returns the named profiles with everything they include.
func (c *Catalogue) Closure(profiles []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, name := range profiles {
		found := false
		for _, p := range c.Profiles {
			if p.Name == name {
				found = true
				out[p.Name] = true
				for _, inc := range p.Includes {
					out[inc] = true
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown profile %q; the %s catalogue defines %v", name, c.Suite, c.ProfileNames())
		}
	}
	return out, nil
}

// Scope says whether a rule is in scope for a set of profiles (a closure),
// and, when its observation needs actions of profiles outside available
// (the closure of what the run checks and the target offers), which.
func Scope(r Rule, closure, available map[string]bool) (inScope bool, needs []string) {
	for _, p := range r.Profiles {
		if closure[p] {
			inScope = true
		}
	}
	if !inScope {
		return false, nil
	}
	for _, p := range r.ExercisedWith {
		if !available[p] {
			needs = append(needs, p)
		}
	}
	sort.Strings(needs)
	return true, needs
}
