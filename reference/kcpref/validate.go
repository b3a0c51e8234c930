package kcpref

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Finding levels.
const (
	LevelError   = "error"
	LevelWarning = "warning"
)

// Finding is one lint result of Validate.
type Finding struct {
	Level   string `json:"level"`
	Where   string `json:"where"`
	Message string `json:"message"`
}

// Validation is the result of `kcp-agent validate`.
type Validation struct {
	Source   string    `json:"source"`
	Project  string    `json:"project"`
	Findings []Finding `json:"findings"`
	OK       bool      `json:"ok"` // no errors (warnings allowed)
}

// ValidateOptions configure Validate.
type ValidateOptions struct {
	// Source is echoed in the result.
	Source string
	// AsOf enables the "expired" warning; "" skips it (Validate reads no
	// clock, unlike the reference, whose warning uses today's date).
	AsOf string
	// Files is the manifest's directory; unit paths must exist in it.
	// Nil skips the existence check.
	Files fs.FS
}

// Validate lints a manifest. Errors are structural problems that would
// mislead or break an agent: units without an id, duplicate unit or ref
// ids, missing, unsafe (absolute or escaping) or non-existent paths,
// superseded_by naming no unit, and an attestation requirement no agent
// can meet. Warnings weaken navigation: units without triggers, and units
// expired at AsOf with no successor.
func Validate(m Manifest, opts ValidateOptions) Validation {
	v := Validation{Source: opts.Source, Project: m.Project, Findings: []Finding{}}
	add := func(level, where, format string, args ...any) {
		v.Findings = append(v.Findings, Finding{Level: level, Where: where, Message: fmt.Sprintf(format, args...)})
	}
	first := map[string]int{}
	for i, u := range m.Units {
		where := fmt.Sprintf("units[%d]", i)
		if u.ID != "" {
			where += " (" + u.ID + ")"
		}
		switch j, seen := first[u.ID]; {
		case u.ID == "":
			add(LevelError, where, "unit has no id")
		case seen:
			add(LevelError, where, "duplicate unit id '%s' (first declared at units[%d])", u.ID, j)
		default:
			first[u.ID] = i
		}
		switch {
		case u.Path == "":
			add(LevelError, where, "unit has no path")
		case isRemotePath(u.Path):
		case !isSafePath(u.Path):
			add(LevelError, where, "path '%s' is unsafe: it must be relative and stay inside the manifest directory", u.Path)
		case opts.Files != nil:
			if _, err := fs.Stat(opts.Files, path.Clean(u.Path)); err != nil {
				add(LevelError, where, "path '%s' does not exist", u.Path)
			}
		}
		if len(u.Triggers) == 0 {
			add(LevelWarning, where, "unit declares no triggers — an agent can match it only through intent and id/path")
		}
		if t := u.Temporal; t != nil {
			if t.SupersededBy != "" && !slices.ContainsFunc(m.Units, func(o Unit) bool { return o.ID == t.SupersededBy }) {
				add(LevelError, where, "superseded_by '%s' names no unit in this manifest", t.SupersededBy)
			}
			if opts.AsOf != "" && t.ValidUntil != "" && compareUTF16(t.ValidUntil, opts.AsOf) < 0 && t.SupersededBy == "" {
				add(LevelWarning, where, "expired %s and names no superseded_by successor", t.ValidUntil)
			}
		}
	}
	refs := map[string]int{}
	for i, r := range m.Manifests {
		if j, seen := refs[r.ID]; seen {
			add(LevelError, fmt.Sprintf("manifests[%d] (%s)", i, r.ID), "duplicate manifest ref id '%s' (first declared at manifests[%d])", r.ID, j)
		} else {
			refs[r.ID] = i
		}
	}
	if t := m.Trust; t != nil && isTrue(t.RequireAttestation) && len(t.TrustedProviders) == 0 {
		add(LevelError, "trust.agent_requirements", "require_attestation is set but trusted_providers is empty — no agent can satisfy it")
	}
	v.OK = !slices.ContainsFunc(v.Findings, func(f Finding) bool { return f.Level == LevelError })
	return v
}

// ExitCode is ExitOK when the manifest has no errors, else ExitFailure.
func (v Validation) ExitCode() int {
	if v.OK {
		return ExitOK
	}
	return ExitFailure
}

// ValidationJSON renders `kcp-agent validate --json`: {source, project,
// findings, ok}, without the schemaVersion/kind envelope.
func ValidationJSON(v Validation) []byte {
	findings := make([]any, len(v.Findings))
	for i, f := range v.Findings {
		findings[i] = (&jsonObject{}).put("level", f.Level).put("where", f.Where).put("message", f.Message)
	}
	root := (&jsonObject{}).put("source", v.Source).put("project", v.Project).put("findings", findings).put("ok", v.OK)
	var b strings.Builder
	jsonWrite(&b, root, "  ", 0)
	b.WriteByte('\n')
	return []byte(b.String())
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
