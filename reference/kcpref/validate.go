package kcpref

import (
	"io/fs"
	"path"
	"regexp"
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
	Source string `json:"source"`
	// Project is the manifest's project; "" when no manifest was read
	// (ValidationJSON then leaves it out).
	Project  string    `json:"project"`
	Findings []Finding `json:"findings"`
	OK       bool      `json:"ok"` // no errors (warnings allowed)
}

// ValidateOptions configure Validate.
type ValidateOptions struct {
	// Source is echoed in the result: the manifest file read.
	Source string
	// AsOf (YYYY-MM-DD) enables the "expired" warning; "" skips it.
	// kcp-agent uses today's date; Validate reads no clock.
	AsOf string
	// Files is the manifest's directory; unit paths must exist in it.
	// Nil skips the existence check.
	Files fs.FS
	// Raw is the manifest's text; when given, the header warnings
	// (missing project, version, kcp_version) are read from it, else from
	// the parsed manifest's defaults.
	Raw []byte
}

// Validate lints a manifest as `kcp-agent validate` does. Errors are
// structural problems that would mislead or break an agent: units without
// an id or an intent, duplicate unit or ref ids, empty, URL, absolute,
// traversing or non-existent paths, a temporal window that ends before it
// starts, a granted skill whose action_scope allows nothing, a superseded_by naming no
// unit, a ref without a url, and an attestation requirement no agent can
// meet. Warnings weaken navigation: a missing project, version or
// kcp_version, no units, units without triggers or audience, a unit
// expired at AsOf with no successor, a not_for written in the unit's own
// vocabulary, a skill without action_scope, a skill's or playbook's
// allowed tool, path or capability that its deny block lists again (exact
// entries, deny's order) or a deny block listing nothing, an x402 method without price
// or currency, a ref not over https or needing an identity it gives no
// hint of, and a serving block without signing. Temporal bounds that are
// no ISO date are errors.
//
// The order is kcp-agent's: the header, each unit in turn, the
// superseded_by references, the refs, trust, then serving.
func Validate(m Manifest, opts ValidateOptions) Validation {
	v := Validation{Source: opts.Source, Project: m.Project, Findings: []Finding{}}
	add := func(level, where, msg string) {
		v.Findings = append(v.Findings, Finding{Level: level, Where: where, Message: msg})
	}
	hasProject, hasVersion := m.Project != "(unnamed)", m.Version != "0.0.0"
	if opts.Raw != nil {
		if root, _, err := loadYAML(opts.Raw); err == nil {
			if o, ok := root.(*jsObject); ok {
				hasProject, hasVersion = declared(o, "project"), declared(o, "version")
			}
		}
	}
	if !hasProject {
		add(LevelWarning, "manifest", "missing 'project'")
	}
	if !hasVersion {
		add(LevelWarning, "manifest", "missing 'version'")
	}
	if m.KCPVersion == nil {
		add(LevelWarning, "manifest", "missing 'kcp_version' — agents cannot tell which spec revision this targets")
	}
	if len(m.Units) == 0 {
		add(LevelWarning, "manifest", "declares no units — nothing for an agent to navigate")
	}
	seen := map[string]bool{}
	for _, u := range m.Units {
		where := "unit '" + orNoID(u.ID) + "'"
		switch {
		case u.ID == "":
			add(LevelError, where, "missing 'id'")
		case seen[u.ID]:
			add(LevelError, where, "duplicate unit id")
		}
		seen[u.ID] = true
		if msg := pathProblem(u.Path, opts.Files); msg != "" {
			add(LevelError, where, msg)
		}
		if u.Intent == "" {
			add(LevelError, where, "missing 'intent' — intent is the primary navigation signal")
		}
		if len(u.Triggers) == 0 {
			add(LevelWarning, where, "no 'triggers' — unit is only findable through its intent text")
		}
		if len(u.Audience) == 0 {
			add(LevelWarning, where, "no 'audience' — declare who this unit serves (e.g. [agent, human])")
		}
		if t := u.Temporal; t != nil {
			for _, b := range []struct{ name, date string }{{"valid_from", t.ValidFrom}, {"valid_until", t.ValidUntil}} {
				if b.date != "" && !isoDate.MatchString(b.date) {
					add(LevelError, where, "temporal."+b.name+" '"+b.date+"' is not an ISO date")
				}
			}
			if t.ValidFrom != "" && t.ValidUntil != "" && compareUTF16(t.ValidUntil, t.ValidFrom) < 0 {
				add(LevelError, where, "temporal window ends ("+t.ValidUntil+") before it starts ("+t.ValidFrom+")")
			}
			if opts.AsOf != "" && t.ValidUntil != "" && compareUTF16(t.ValidUntil, opts.AsOf) < 0 && t.SupersededBy == "" {
				add(LevelWarning, where, "expired "+t.ValidUntil+" with no 'superseded_by' — agents get a dead end instead of a successor")
			}
		}
		vocab := vocabulary(u)
		for _, n := range u.NotFor {
			lower := jsLower(n)
			var hits []string
			for _, term := range vocab {
				if strings.Contains(lower, term) {
					hits = append(hits, term)
				}
			}
			if len(hits) > 0 {
				add(LevelWarning, where, "not_for '"+n+"' contains the unit's own vocabulary ("+strings.Join(hits, ", ")+
					") — term matching will gate this unit against its most natural questions; name the excluded topic in its own words (e.g. \"CCPA\", \"accounting\"), never as a negation of this unit's topic (\"non-X\", \"outside X\")")
			}
		}
		if u.Kind == "skill" && !allowsAnything(u.ActionScope) {
			if isTrue(u.LoadEligible) {
				add(LevelError, where, "kind: skill is load_eligible but declares no action_scope — a governed skill authorizes nothing until it lists the tools/paths/capabilities it may touch (fail-closed, #100)")
			} else {
				add(LevelWarning, where, "kind: skill declares no action_scope — it authorizes nothing and can never be invoked until it declares one (fail-closed, #100)")
			}
		}
		if sc := u.ActionScope; sc != nil && sc.Deny != nil && (u.Kind == "skill" || u.Kind == "playbook") {
			section := "§4.3a"
			if u.Kind == "playbook" {
				section = "§4.3b"
			}
			d := sc.Deny
			for _, list := range []struct {
				name        string
				allow, deny []string
			}{{"tools", sc.Tools, d.Tools}, {"paths", sc.Paths, d.Paths}, {"capabilities", sc.Capabilities, d.Capabilities}} {
				for _, entry := range list.deny {
					if slices.Contains(list.allow, entry) {
						add(LevelWarning, where, "action_scope."+list.name+" allows '"+entry+"' while deny."+list.name+
							" denies it — the allow entry is neutralized; deny overrides allow, fail-closed ("+section+")")
					}
				}
			}
			if len(d.Tools)+len(d.Paths)+len(d.Capabilities) == 0 {
				add(LevelWarning, where, "action_scope.deny is declared but empty — it prohibits nothing ("+section+")")
			}
		}
		if u.Payment != nil {
			for _, pm := range u.Payment.Methods {
				if pm.Type == "x402" && (pm.PricePerRequest == nil || pm.Currency == nil) {
					add(LevelWarning, where, "x402 payment method should declare 'price_per_request' and 'currency'")
				}
			}
		}
	}
	for _, u := range m.Units {
		if t := u.Temporal; t != nil && t.SupersededBy != "" && !seen[t.SupersededBy] {
			add(LevelError, "unit '"+orNoID(u.ID)+"'", "temporal.superseded_by references unknown unit '"+t.SupersededBy+"'")
		}
	}
	refs := map[string]bool{}
	for _, r := range m.Manifests {
		where := "manifest ref '" + orNoID(r.ID) + "'"
		if refs[r.ID] {
			add(LevelError, where, "duplicate manifest ref id")
		}
		refs[r.ID] = true
		switch {
		case r.URL == "":
			add(LevelError, where, "missing 'url'")
		case !strings.HasPrefix(r.URL, "https://"):
			add(LevelWarning, where, "url is not https — agents should fetch federation over TLS")
		}
		if ai := r.AgentIdentity; ai != nil && isTrue(ai.Required) && ai.CredentialHint == "" {
			add(LevelWarning, where, "agent_identity.required without 'credential_hint' — agents cannot plan credential acquisition")
		}
	}
	if t := m.Trust; t != nil && isTrue(t.RequireAttestation) && len(t.TrustedProviders) == 0 {
		add(LevelError, "manifest", "require_attestation with no trusted_providers — no agent can ever qualify (permanently fail-closed)")
	}
	if m.Serving != nil && m.Signing == nil {
		add(LevelWarning, "manifest", "serving block declared without a signing block — an unsigned binding can be stripped or altered by a re-hoster (§3.12 recommends signing)")
	}
	v.OK = !slices.ContainsFunc(v.Findings, func(f Finding) bool { return f.Level == LevelError })
	return v
}

// Unread is the validation of a manifest that could not be read or parsed:
// one manifest error, no project.
func Unread(source, message string) Validation {
	return Validation{Source: source, Findings: []Finding{{Level: LevelError, Where: "manifest", Message: message}}}
}

func declared(o *jsObject, key string) bool {
	v, ok := o.get(key)
	return ok && v != nil
}

// allowsAnything reports whether an action scope lists a tool, path or
// capability: one that lists none (a spend or deny block alone, or lists
// that are no arrays) declares nothing, as kcp-agent's validate sees it.
func allowsAnything(s *ActionScope) bool {
	return s != nil && len(s.Tools)+len(s.Paths)+len(s.Capabilities) > 0
}

func orNoID(id string) string {
	if id == "" {
		return "(no id)"
	}
	return id
}

// vocabulary is the task terms a unit's intent and triggers make, each
// once, in sorted order.
func vocabulary(u Unit) []string {
	terms := appendTerms(nil, jsLower(u.Intent))
	for _, t := range u.Triggers {
		terms = appendTerms(terms, jsLower(t))
	}
	slices.Sort(terms)
	return slices.Compact(terms)
}

// isoDate is a temporal bound that starts with YYYY-MM-DD.
var isoDate = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}`)

// urlLike is a path that starts with a URI scheme (C: included).
var urlLike = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// pathProblem is what is wrong with a unit path, or "".
func pathProblem(p string, files fs.FS) string {
	switch {
	case p == "":
		return "path is empty"
	case urlLike.MatchString(p):
		return "path must be relative, not a URL"
	case strings.HasPrefix(p, "/"):
		return "path must be relative, not absolute"
	case slices.Contains(strings.Split(p, "/"), ".."):
		return "path must not traverse with '..'"
	case files != nil && !exists(files, p):
		return "path '" + p + "' does not exist"
	}
	return ""
}

// exists is existsSync of the path under files: a trailing slash needs a
// directory.
func exists(files fs.FS, p string) bool {
	clean := path.Clean(p)
	if !fs.ValidPath(clean) {
		return false
	}
	st, err := fs.Stat(files, clean)
	if err != nil {
		return false
	}
	return !strings.HasSuffix(p, "/") || st.IsDir()
}

// ExitCode is ExitOK when the manifest has no errors, else ExitFailure.
func (v Validation) ExitCode() int {
	if v.OK {
		return ExitOK
	}
	return ExitFailure
}

// ValidationJSON renders `kcp-agent validate --json`: {source, project,
// findings, ok}, without the schemaVersion/kind envelope; project is left
// out when no manifest was read.
func ValidationJSON(v Validation) []byte {
	findings := make([]any, len(v.Findings))
	for i, f := range v.Findings {
		findings[i] = (&jsonObject{}).put("level", f.Level).put("where", f.Where).put("message", f.Message)
	}
	root := (&jsonObject{}).put("source", v.Source).putIf(v.Project != "", "project", v.Project).put("findings", findings).put("ok", v.OK)
	var b strings.Builder
	jsonWrite(&b, root, "  ", 0)
	b.WriteByte('\n')
	return []byte(b.String())
}
