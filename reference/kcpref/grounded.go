package kcpref

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// A grounded answer (ask --ground --json: plan, synthesis, grounding) is
// replayed claim by claim: each grounded claim's unit is read again and its
// sha256 compared with the one the claim pinned.

// IsGroundedAnswer says the artifact carries a grounding block with a
// claims list: replay replays it as a grounded answer, not as a plan.
func IsGroundedAnswer(v JSONValue) bool {
	g, ok := jsonGet(v, "grounding")
	if !ok {
		return false
	}
	claims, _ := jsonGet(g, "claims")
	_, isList := claims.([]any)
	return isList
}

// GroundedReplay is the replay of a grounded answer.
type GroundedReplay struct {
	Artifact string
	Claims   []GroundedCheck
	Gaps     []GroundedCheck
}

// GroundedCheck is one claim's (or gap's) verdict.
type GroundedCheck struct {
	Claim  any
	UnitID any // nil for a gap
	Status string
	Detail string
}

// OK says there is a grounded claim and every one still holds.
func (r GroundedReplay) OK() bool {
	for _, c := range r.Claims {
		if c.Status != "still-grounded" {
			return false
		}
	}
	return len(r.Claims) > 0
}

// GroundedSource is the manifest location and task a grounded answer was
// planned from (plan.manifest.source, or a tree's plan.plan.manifest).
func GroundedSource(v JSONValue) (source, task string) {
	plan, _ := jsonGet(v, "plan")
	node := plan
	if inner, ok := jsonGet(plan, "plan"); ok && inner != nil {
		node = inner
	}
	if node == nil {
		node = v
	}
	m, _ := jsonGet(node, "manifest")
	s, _ := jsonGet(m, "source")
	source, _ = s.(string)
	t, _ := jsonGet(node, "task")
	task, _ = t.(string)
	return source, task
}

var schemeLike = regexp.MustCompile(`(?i)^[a-z][a-z0-9+.-]*:`)

// unsafeUnitPath is a path that could leave the manifest's directory.
func unsafeUnitPath(p string) bool {
	return strings.HasPrefix(p, "/") || schemeLike.MatchString(p) || strings.HasPrefix(p, "//") || strings.Contains("/"+p+"/", "/../")
}

// ReplayGrounded re-reads each grounded claim's unit through read (a path
// relative to the manifest's directory → its text) and compares sha256s.
// Gaps are re-grounded by reground when it is given and there are gaps
// (the claims it returns now ground); otherwise they persist unchecked.
func ReplayGrounded(v JSONValue, artifact string, read func(string) (string, error), reground func(task string, gaps []any) ([]any, error), faults []Fault) (GroundedReplay, error) {
	grounding, _ := jsonGet(v, "grounding")
	claims, _ := jsonGet(grounding, "claims")
	list, ok := claims.([]any)
	if !ok {
		return GroundedReplay{}, errors.New("unrecognized artifact — expected the JSON output of `kcp-agent ask --ground --json` (plan + synthesis + grounding)")
	}
	synthesis, _ := jsonGet(v, "synthesis")
	loaded, _ := jsonGet(synthesis, "unitsLoaded")
	unitList, ok := loaded.([]any)
	if !ok {
		return GroundedReplay{}, errors.New("artifact has no synthesis.unitsLoaded — re-verifying a grounded answer needs the full `ask --ground --json` artifact")
	}
	source, task := GroundedSource(v)
	if source == "" {
		return GroundedReplay{}, errors.New("artifact has no manifest.source to re-fetch the cited units from")
	}
	units := map[string]any{}
	for _, u := range unitList {
		id, _ := jsonGet(u, "id")
		if s, ok := id.(string); ok {
			units[s] = u
		}
	}
	r := GroundedReplay{Artifact: artifact}
	for _, c := range list {
		grounded, _ := jsonGet(c, "grounded")
		unitID, _ := jsonGet(c, "unitId")
		if !jsBoolean(grounded) || !jsBoolean(unitID) {
			continue
		}
		claim, _ := jsonGet(c, "claim")
		pinned, _ := jsonGet(c, "sha256")
		check := GroundedCheck{Claim: claim, UnitID: unitID, Status: "gone"}
		id, _ := unitID.(string)
		unit, known := units[id]
		unitPath, _ := jsonGet(unit, "path")
		p := jsString(unitPath)
		switch {
		case !jsBoolean(pinned):
			check.Detail = "claim carries no pinned sha — re-run `ask --ground` to refresh the artifact"
		case !known:
			check.Detail = "cited unit is absent from synthesis.unitsLoaded"
		case unsafeUnitPath(p):
			check.Detail = "unit no longer readable: unsafe path"
		default:
			text, err := read(p)
			if err != nil {
				check.Detail = "unit no longer readable: " + err.Error()
				break
			}
			digest := SHA256Hex(validUTF8(text))
			want := jsString(pinned)
			if digest == want || HasFault(faults, FaultGroundedIgnoresDrift) {
				check.Status, check.Detail = "still-grounded", fmt.Sprintf("sha %s unchanged", digest[:12])
			} else {
				check.Status, check.Detail = "drifted", fmt.Sprintf("unit bytes changed: sha %s… ≠ pinned %s…", digest[:12], prefix12(want))
			}
		}
		r.Claims = append(r.Claims, check)
	}
	gapsV, _ := jsonGet(grounding, "gaps")
	gaps, _ := gapsV.([]any)
	if reground != nil && len(gaps) > 0 {
		var claims []any
		for _, g := range gaps {
			c, _ := jsonGet(g, "claim")
			claims = append(claims, c)
		}
		now, err := reground(task, claims)
		if err != nil {
			return GroundedReplay{}, err
		}
		for _, c := range claims {
			check := GroundedCheck{Claim: c, Status: "gap-persists", Detail: "still ungroundable against today's manifest"}
			for _, n := range now {
				if n == c {
					check.Status, check.Detail = "gap-closes", "now grounds — the manifest gained evidence for this claim since the answer"
				}
			}
			r.Gaps = append(r.Gaps, check)
		}
		return r, nil
	}
	for _, g := range gaps {
		c, _ := jsonGet(g, "claim")
		r.Gaps = append(r.Gaps, GroundedCheck{Claim: c, Status: "gap-persists", Detail: "not re-checked (pass --check-gaps to re-navigate for newly-published evidence)"})
	}
	return r, nil
}

// validUTF8 is text as Node reads a file as UTF-8: each byte of an
// invalid sequence becomes U+FFFD.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// UnitFile is where a unit path lies beside a local manifest.
func UnitFile(source, unitPath string) string {
	return path.Join(path.Dir(source), unitPath)
}

// GroundedReplayJSON is replay --json's output for a grounded answer.
func GroundedReplayJSON(r GroundedReplay) string {
	claims, gaps := []any{}, []any{}
	for _, c := range r.Claims {
		o := &jsonObject{}
		o.put("claim", c.Claim).put("unitId", c.UnitID).put("status", c.Status).put("detail", c.Detail)
		claims = append(claims, o)
	}
	for _, g := range r.Gaps {
		o := &jsonObject{}
		o.put("claim", g.Claim).put("status", g.Status).put("detail", g.Detail)
		gaps = append(gaps, o)
	}
	o := &jsonObject{}
	o.put("artifact", r.Artifact).put("claims", claims).put("gaps", gaps).put("ok", r.OK())
	return StringifyJSON(o, "  ")
}

// GroundedReplayText is replay's text for a grounded answer.
func GroundedReplayText(r GroundedReplay) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nReplay (grounded answer): %s\n", r.Artifact)
	for _, c := range r.Claims {
		mark := "✗"
		if c.Status == "still-grounded" {
			mark = "✓"
		}
		fmt.Fprintf(&b, "  %s %s %s · %s\n     %s\n", mark, c.Status, jsString(c.UnitID), jsString(c.Claim), c.Detail)
	}
	for _, g := range r.Gaps {
		mark := "·"
		if g.Status == "gap-closes" {
			mark = "↑"
		}
		fmt.Fprintf(&b, "  %s %s %s\n     %s\n", mark, g.Status, jsString(g.Claim), g.Detail)
	}
	if r.OK() {
		b.WriteString("\n✓ still grounded — every cited unit holds its pinned bytes\n")
	} else {
		b.WriteString("\n✗ stale — a cited unit drifted or is gone; re-run `ask --ground` against today's manifest\n")
	}
	return b.String()
}
