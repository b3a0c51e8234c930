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
