package kcpref

import (
	"encoding/json"
	"reflect"
	"testing"
	"testing/fstest"
)

func TestValidate(t *testing.T) {
	m := mustParse(t, `
project: lint-me
trust:
  agent_requirements: {require_attestation: true}
manifests:
  - {id: hub, url: "https://a"}
  - {id: hub, url: "https://b"}
units:
  - id: guide
    path: docs/guide.md
    intent: guide
    triggers: [guide]
  - id: guide
    path: ../outside.md
    intent: dup
    triggers: [x]
  - id: old
    path: missing.md
    intent: old
    temporal: {valid_until: "2026-01-01", superseded_by: ghost}
  - id: stale
    path: https://example.com/stale.md
    triggers: [x]
    temporal: {valid_until: "2026-01-01"}
  - path: /etc/passwd
    triggers: [x]
`)
	files := fstest.MapFS{"docs/guide.md": {Data: []byte("# guide")}}
	v := Validate(m, ValidateOptions{Source: "knowledge.yaml", AsOf: asOf, Files: files})
	// What kcp-agent 0.27.0's validate --json says of this manifest.
	want := []Finding{
		{LevelWarning, "manifest", "missing 'version'"},
		{LevelWarning, "manifest", "missing 'kcp_version' — agents cannot tell which spec revision this targets"},
		{LevelWarning, "unit 'guide'", "no 'audience' — declare who this unit serves (e.g. [agent, human])"},
		{LevelError, "unit 'guide'", "duplicate unit id"},
		{LevelError, "unit 'guide'", "path must not traverse with '..'"},
		{LevelWarning, "unit 'guide'", "no 'audience' — declare who this unit serves (e.g. [agent, human])"},
		{LevelError, "unit 'old'", "path 'missing.md' does not exist"},
		{LevelWarning, "unit 'old'", "no 'triggers' — unit is only findable through its intent text"},
		{LevelWarning, "unit 'old'", "no 'audience' — declare who this unit serves (e.g. [agent, human])"},
		{LevelError, "unit 'stale'", "path must be relative, not a URL"},
		{LevelError, "unit 'stale'", "missing 'intent' — intent is the primary navigation signal"},
		{LevelWarning, "unit 'stale'", "no 'audience' — declare who this unit serves (e.g. [agent, human])"},
		{LevelWarning, "unit 'stale'", "expired 2026-01-01 with no 'superseded_by' — agents get a dead end instead of a successor"},
		{LevelError, "unit '(no id)'", "missing 'id'"},
		{LevelError, "unit '(no id)'", "path must be relative, not absolute"},
		{LevelError, "unit '(no id)'", "missing 'intent' — intent is the primary navigation signal"},
		{LevelWarning, "unit '(no id)'", "no 'audience' — declare who this unit serves (e.g. [agent, human])"},
		{LevelError, "unit 'old'", "temporal.superseded_by references unknown unit 'ghost'"},
		{LevelError, "manifest ref 'hub'", "duplicate manifest ref id"},
		{LevelError, "manifest", "require_attestation with no trusted_providers — no agent can ever qualify (permanently fail-closed)"},
	}
	if !reflect.DeepEqual(v.Findings, want) {
		t.Errorf("findings\n got %+v\nwant %+v", v.Findings, want)
	}
	if v.OK || v.ExitCode() != ExitFailure || v.Project != "lint-me" || v.Source != "knowledge.yaml" {
		t.Errorf("validation %+v", v)
	}
	var doc map[string]any
	if err := json.Unmarshal(ValidationJSON(v), &doc); err != nil || doc["ok"] != false || len(doc) != 4 {
		t.Errorf("json %v %v", doc, err)
	}
}

func TestValidateCleanManifest(t *testing.T) {
	v := Validate(mustParse(t, `
project: p
version: "1"
kcp_version: "0.32"
units:
  - {id: a, path: a.md, intent: a, triggers: [a], audience: [agent]}
`), ValidateOptions{})
	if !v.OK || len(v.Findings) != 0 || v.ExitCode() != ExitOK {
		t.Errorf("validation %+v", v)
	}
}

// TestValidateActionScopeDeny: a skill's or playbook's deny block that
// lists an allowed entry again neutralizes it (one warning per deny
// entry, tools, paths then capabilities, §4.3a for a skill and §4.3b for a
// playbook); a deny block listing nothing prohibits nothing; and an
// action_scope that allows no tool, path or capability is none (what
// kcp-agent 0.27.0's validate --json says of this manifest).
func TestValidateActionScopeDeny(t *testing.T) {
	m := mustParse(t, `
project: p
version: "1"
kcp_version: "0.32"
units:
  - id: s
    kind: skill
    path: s.md
    intent: x
    triggers: [x]
    audience: [agent]
    action_scope:
      paths: ["x", "y", "y", "lib/*"]
      tools: [rm]
      deny: {paths: ["y", "x", "lib/**"], tools: [rm]}
  - id: p
    kind: playbook
    path: s.md
    intent: x
    triggers: [x]
    audience: [agent]
    action_scope: {capabilities: [net], deny: {}}
  - id: k
    path: s.md
    intent: x
    triggers: [x]
    audience: [agent]
    action_scope: {tools: [a], deny: {tools: [a]}}
  - id: spend-only
    kind: skill
    load_eligible: true
    path: s.md
    intent: x
    triggers: [x]
    audience: [agent]
    action_scope: {spend: {max_spend: 1}}
`)
	v := Validate(m, ValidateOptions{Source: "knowledge.yaml", Files: fstest.MapFS{"s.md": {Data: []byte("x")}}})
	neutralized := func(list, entry, section string) string {
		return "action_scope." + list + " allows '" + entry + "' while deny." + list + " denies it — the allow entry is neutralized; deny overrides allow, fail-closed (" + section + ")"
	}
	want := []Finding{
		{LevelWarning, "unit 's'", neutralized("tools", "rm", "§4.3a")},
		{LevelWarning, "unit 's'", neutralized("paths", "y", "§4.3a")},
		{LevelWarning, "unit 's'", neutralized("paths", "x", "§4.3a")},
		{LevelWarning, "unit 'p'", "action_scope.deny is declared but empty — it prohibits nothing (§4.3b)"},
		{LevelError, "unit 'spend-only'", "kind: skill is load_eligible but declares no action_scope — a governed skill authorizes nothing until it lists the tools/paths/capabilities it may touch (fail-closed, #100)"},
	}
	if !reflect.DeepEqual(v.Findings, want) {
		got, _ := json.MarshalIndent(v.Findings, "", "  ")
		t.Errorf("findings:\n%s", got)
	}
}
