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
	want := []Finding{
		{LevelError, "units[1] (guide)", "duplicate unit id 'guide' (first declared at units[0])"},
		{LevelError, "units[1] (guide)", "path '../outside.md' is unsafe: it must be relative and stay inside the manifest directory"},
		{LevelError, "units[2] (old)", "path 'missing.md' does not exist"},
		{LevelWarning, "units[2] (old)", "unit declares no triggers — an agent can match it only through intent and id/path"},
		{LevelError, "units[2] (old)", "superseded_by 'ghost' names no unit in this manifest"},
		{LevelWarning, "units[3] (stale)", "expired 2026-01-01 and names no superseded_by successor"},
		{LevelError, "units[4]", "unit has no id"},
		{LevelError, "units[4]", "path '/etc/passwd' is unsafe: it must be relative and stay inside the manifest directory"},
		{LevelError, "manifests[1] (hub)", "duplicate manifest ref id 'hub' (first declared at manifests[0])"},
		{LevelError, "trust.agent_requirements", "require_attestation is set but trusted_providers is empty — no agent can satisfy it"},
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
	v := Validate(mustParse(t, units(`
  - {id: a, path: a.md, intent: a, triggers: [a]}
`)), ValidateOptions{})
	if !v.OK || len(v.Findings) != 0 || v.ExitCode() != ExitOK {
		t.Errorf("validation %+v", v)
	}
}
