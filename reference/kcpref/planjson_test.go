package kcpref

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestPlanJSONEnvelope(t *testing.T) {
	m := mustParse(t, newsroom)
	m.Source = "examples/fjordwire/knowledge.yaml"
	o := agentOpts()
	o.Budget = &Budget{Amount: 0.25}
	sig := VerifySignature([]byte(newsroom), m.Signing, m.Source, nil)
	out := PlanJSON(Plan("sovereign compute award", m, o), Envelope{Signature: &sig, CorrelationID: "run-7"})
	if !json.Valid(out) || !bytes.HasSuffix(out, []byte("}\n")) {
		t.Fatalf("not one JSON document with a trailing newline:\n%s", out)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["schemaVersion"] != 1.0 || doc["kind"] != "plan" || doc["correlationId"] != "run-7" || doc["asOf"] != asOf {
		t.Errorf("envelope: schemaVersion %v kind %v correlationId %v asOf %v", doc["schemaVersion"], doc["kind"], doc["correlationId"], doc["asOf"])
	}
	man := doc["manifest"].(map[string]any)
	if man["project"] != "fjordwire" || man["version"] != "2.1.0" || man["kcpVersion"] != "0.32" ||
		man["source"] != "examples/fjordwire/knowledge.yaml" || len(man["sha256"].(string)) != 64 {
		t.Errorf("manifest %v", man)
	}
	sigDoc := doc["signature"].(map[string]any)
	if sigDoc["status"] != "unsigned" || sigDoc["detail"] != "manifest declares no signature" {
		t.Errorf("signature %v", sigDoc)
	}
	if _, ok := doc["environment"]; ok {
		t.Error("environment must be absent without an env")
	}
	// Key order: the plan fields first, the envelope last.
	s := string(out)
	order := []string{`"task"`, `"manifest"`, `"trust"`, `"asOf"`, `"options"`, `"selected"`, `"skipped"`,
		`"federation"`, `"budget"`, `"context"`, `"warnings"`, `"signature"`, `"schemaVersion"`, `"kind"`, `"correlationId"`}
	last := -1
	for _, k := range order {
		i := strings.Index(s, "\n  "+k+":")
		if i < last {
			t.Errorf("key %s out of order", k)
		}
		last = i
	}
	// JS number formatting and two-space indentation.
	for _, want := range []string{
		"\n  \"task\": \"sovereign compute award\",\n",
		`"cost": "0.20 USDC/request",`,
		`"pricePerRequest": 0.2,`,
		`"projectedSpend": 0.25,`,
		`"remaining": 0,`,
		`"maxUnits": 5,`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in\n%s", want, s)
		}
	}
}

func TestPlanJSONIsDeterministicAndEscapesLikeJS(t *testing.T) {
	y := units(`
  - id: "<a&b>"
    path: "x\u2028y.md"
    intent: deploy guide
`)
	a := PlanJSON(planOf(t, y, "deploy guide", agentOpts()), Envelope{})
	b := PlanJSON(planOf(t, y, "deploy guide", agentOpts()), Envelope{})
	if !bytes.Equal(a, b) {
		t.Fatal("same inputs, different bytes")
	}
	if !bytes.Contains(a, []byte(`"id": "<a&b>"`)) || !bytes.Contains(a, []byte("x\u2028y.md")) {
		t.Errorf("JSON.stringify does not escape <, & or U+2028:\n%s", a)
	}
}

func TestOutcomeOmitsUnsetKeys(t *testing.T) {
	out, err := json.Marshal(Outcome(planOf(t, units(relevant), "deploy guide", agentOpts())))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"selected":[{"id":"deploy-guide","loadEligible":true,"score":10}],"skipped":[],"federation":[],` +
		`"trust":{"requiresAttestation":false,"agentCanAttest":true},"budget":{"rateTier":"default"},` +
		`"context":{"approximate":false,"unmeasured":1},"warnings":[]}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

// TestPlanJSONGovernanceFields pins the governance blocks as kcp-agent
// 0.27.0's plan() prints them for this manifest (grantCeiling and action
// have no flag): authority with its bindingSource, the prohibited attempt
// with dimension "tools" and its note, and no grant request for the step
// the deny refused.
func TestPlanJSONGovernanceFields(t *testing.T) {
	o := agentOpts()
	o.GrantCeiling = Str("prepare")
	o.Action = &ActionProposal{Tool: Str("shell.exec")}
	p := planOf(t, units(`
  - id: pb
    path: pb.md
    intent: deploy guide
    kind: playbook
    load_eligible: true
    authority_level: commit
    action_scope:
      tools: [shell.exec]
      deny: {tools: [shell.exec]}
    steps:
      - {id: s1, authority_level: observe, escalation: human-on-call}
`), "deploy guide", o)
	out := string(PlanObjectJSON(p))
	for _, want := range []string{
		`      "loadEligible": false,
      "action_scope": {
        "tools": [
          "shell.exec"
        ],
        "paths": [],
        "capabilities": [],
        "deny": {`,
		`"authority": {
        "ceiling": "prepare",
        "bindingSource": "agent grant_ceiling"
      },
      "prohibitedAttempts": [
        {
          "step": "s1",
          "dimension": "tools",
          "token": "shell.exec",
          "bindingSource": "playbook action_scope.deny",
          "note": "prohibited attempt: 'shell.exec' (tools) matches playbook action_scope.deny — refused finally, not grantable; a grant against this event records acknowledgement and does not enact (§4.3b, RFC-0030)"
        }
      ]
    }
  ],`,
		`"grantCeiling": "prepare",`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing\n%s\nin\n%s", want, out)
		}
	}
	if strings.Contains(out, "grantRequests") || strings.Contains(out, `"signature"`) || strings.Contains(out, "sha256") {
		t.Errorf("no grant request for a refused step, and the library plan has no signature or sha256:\n%s", out)
	}
	u := selectedUnit(t, p, "pb")
	if u.LoadEligible || lastReason(u) != "step 's1' attempts 'shell.exec' (tools), denied by playbook action_scope.deny — refused finally, not grantable (§4.3b, RFC-0030)" {
		t.Errorf("unit %+v", u)
	}
}
