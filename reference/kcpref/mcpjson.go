package kcpref

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf16"
)

// PlanTreeJSON renders what kcp-agent's MCP kcp_plan answers for a manifest
// it does not follow: the plan tree {location, notFollowed, children,
// signature, plan}, where plan is `plan --json`'s object without
// schemaVersion and kind (both without signature when sig is the zero
// SignatureResult: not verified); two-space indentation, no trailing
// newline.
func PlanTreeJSON(p AgentPlan, location string, sig SignatureResult) []byte {
	return renderCompact(planTree(p, location, sig))
}

func planTree(p AgentPlan, location string, sig SignatureResult) *jsonObject {
	plan := planObject(p, true)
	if sig.Status != "" { // a manifest not verified (--no-verify) has no verdict
		plan.put("signature", signatureJSON(sig))
	}
	// Without a walk every federation ref is not followed: an eligible one
	// because the walk's depth is 0, any other for the plan's reason.
	notFollowed := []any{}
	for _, f := range p.Federation {
		reason := f.Reason
		if reason == "eligible" {
			reason = "beyond max depth 0"
		}
		notFollowed = append(notFollowed, (&jsonObject{}).put("id", f.ID).put("url", f.URL).put("reason", reason))
	}
	tree := (&jsonObject{}).put("location", location).put("notFollowed", notFollowed).put("children", []any{})
	if sig.Status != "" {
		tree.put("signature", signatureJSON(sig))
	}
	return tree.put("plan", plan)
}

func renderCompact(root *jsonObject) []byte {
	var b strings.Builder
	jsonWrite(&b, root, "  ", 0)
	return []byte(b.String())
}

// KnownUnit is a unit a kcp_load caller already holds.
type KnownUnit struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
}

// Load is kcp_load's answer beside its plan: the units served (with their
// bytes, or as unchanged stubs), the selected units not served, and what
// de-duplication withheld.
type Load struct {
	Units       []LoadedUnit
	Unavailable []UnavailableUnit
	Deduped     []KnownUnit
	// BytesSaved counts the withheld text in UTF-16 code units, as
	// kcp-agent counts it.
	BytesSaved int
}

// LoadedUnit is one served unit; Unchanged marks a stub without content.
type LoadedUnit struct {
	ID, Path, Manifest string
	Chars              int
	SHA256, Content    string
	Unchanged          bool
}

// UnavailableUnit is a selected unit kcp_load did not serve, and why.
type UnavailableUnit struct{ ID, Path, Reason string }

// The reasons a selected unit is not served.
const (
	UnavailableIneligible = "not load-eligible in the plan"
	UnavailableMissing    = "file not found on disk"
	UnavailableUnsafe     = "unsafe path (absolute, traversing, or a URL)"
)

// LoadUnits reads the plan's selected units from files (the manifest's
// directory), in plan order. A load-eligible unit whose sha256 equals a
// known one exactly becomes a stub; every other eligible unit is served
// fresh; a unit that is not load-eligible is never served nor stubbed,
// whatever known says. faults may plant FaultDriftStubbed.
func LoadUnits(p AgentPlan, files fs.FS, known []KnownUnit, faults []Fault) Load {
	held := map[string]string{}
	for _, k := range known {
		held[k.ID] = k.SHA256
	}
	out := Load{Units: []LoadedUnit{}, Unavailable: []UnavailableUnit{}, Deduped: []KnownUnit{}}
	for _, s := range p.Selected {
		if !s.LoadEligible {
			out.Unavailable = append(out.Unavailable, UnavailableUnit{s.ID, s.Path, UnavailableIneligible})
			continue
		}
		if isRemotePath(s.Path) || !isSafePath(s.Path) {
			out.Unavailable = append(out.Unavailable, UnavailableUnit{s.ID, s.Path, UnavailableUnsafe})
			continue
		}
		raw, err := fs.ReadFile(files, strings.TrimPrefix(cleanSlash(s.Path), "./"))
		if err != nil {
			reason := UnavailableMissing
			if !errors.Is(err, fs.ErrNotExist) {
				reason = fmt.Sprintf("unreadable: %v", err)
			}
			out.Unavailable = append(out.Unavailable, UnavailableUnit{s.ID, s.Path, reason})
			continue
		}
		sum := sha256.Sum256(raw)
		digest := hex.EncodeToString(sum[:])
		text := toValidText(raw)
		chars := len(utf16.Encode([]rune(text)))
		sha, ok := held[s.ID]
		if ok && (sha == digest || (hasFault(faults, FaultDriftStubbed) && sha != "")) {
			out.Units = append(out.Units, LoadedUnit{ID: s.ID, Path: s.Path, SHA256: sha, Unchanged: true})
			out.Deduped = append(out.Deduped, KnownUnit{s.ID, sha})
			out.BytesSaved += chars
			continue
		}
		out.Units = append(out.Units, LoadedUnit{ID: s.ID, Path: s.Path, Manifest: p.Manifest.Project, Chars: chars, SHA256: digest, Content: text})
	}
	return out
}

func cleanSlash(p string) string { return strings.ReplaceAll(p, `\`, "/") }

// LoadJSON renders kcp_load's answer: the plan tree, then units,
// unavailable, deduped and bytesSaved.
func LoadJSON(p AgentPlan, location string, sig SignatureResult, l Load) []byte {
	units := make([]any, len(l.Units))
	for i, u := range l.Units {
		o := (&jsonObject{}).put("id", u.ID).put("path", u.Path)
		if u.Unchanged {
			short := u.SHA256
			if len(short) > 12 {
				short = short[:12]
			}
			o.put("sha256", u.SHA256).put("unchanged", true).put("note", fmt.Sprintf("unchanged since your copy (sha %s…) — not re-served", short))
		} else {
			o.put("manifest", u.Manifest).put("chars", u.Chars).put("sha256", u.SHA256).put("content", u.Content)
		}
		units[i] = o
	}
	unavailable := make([]any, len(l.Unavailable))
	for i, u := range l.Unavailable {
		unavailable[i] = (&jsonObject{}).put("id", u.ID).put("path", u.Path).put("reason", u.Reason)
	}
	deduped := make([]any, len(l.Deduped))
	for i, d := range l.Deduped {
		deduped[i] = (&jsonObject{}).put("id", d.ID).put("sha256", d.SHA256)
	}
	return renderCompact((&jsonObject{}).put("plan", planTree(p, location, sig)).put("units", units).
		put("unavailable", unavailable).put("deduped", deduped).put("bytesSaved", l.BytesSaved))
}

// ValidationReportJSON is kcp_validate's answer: ValidationJSON without
// its trailing newline.
func ValidationReportJSON(v Validation) []byte {
	return []byte(strings.TrimSuffix(string(ValidationJSON(v)), "\n"))
}

func isRemotePath(p string) bool { return strings.Contains(p, "://") }

// isSafePath accepts relative paths that stay inside the manifest
// directory.
func isSafePath(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || (len(p) > 1 && p[1] == ':') {
		return false
	}
	clean := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	return clean != ".." && !strings.HasPrefix(clean, "../")
}
