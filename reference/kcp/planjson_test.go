package kcp

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
	out := PlanJSON(Plan("sovereign compute award", m, o), Envelope{CorrelationID: "run-7"})
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
	sig := doc["signature"].(map[string]any)
	if sig["status"] != "unsigned" || sig["detail"] != "manifest declares no signature" {
		t.Errorf("signature %v", sig)
	}
	if _, ok := doc["environment"]; ok {
		t.Error("environment must be absent without an env")
	}
	// Key order: the plan fields first, the envelope last.
	s := string(out)
	order := []string{`"task"`, `"manifest"`, `"trust"`, `"asOf"`, `"options"`, `"selected"`, `"skipped"`,
		`"federation"`, `"budget"`, `"context"`, `"warnings"`, `"signature"`, `"correlationId"`, `"schemaVersion"`, `"kind"`}
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

func TestPlanJSONGovernanceFields(t *testing.T) {
	o := agentOpts()
	o.GrantCeiling = "prepare"
	o.Action = &ActionProposal{Tool: "shell.exec"}
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
	out := string(PlanJSON(p, Envelope{Signature: &SignatureStatus{Status: "verified", Detail: "ed25519 ok"}}))
	for _, want := range []string{
		`"action_scope": {`,
		`"authority": {
        "ceiling": "prepare",
        "boundBy": "agent grant_ceiling"
      },`,
		`"grantRequests": [
        {
          "step": "s1",
          "escalation": [
            "human-on-call"
          ],
          "authority": "observe"
        }
      ],`,
		`"prohibitedAttempts": [
        {
          "step": "s1",
          "token": "shell.exec",
          "dimension": "tool",
          "deniedBy": "playbook 'pb' action_scope.deny"
        }
      ]`,
		`"status": "verified",`,
		`"grantCeiling": "prepare",`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing\n%s\nin\n%s", want, out)
		}
	}
	u := selectedUnit(t, p, "pb")
	if u.LoadEligible || lastReason(u) != "step 's1' attempts 'shell.exec' (tool), denied by playbook 'pb' action_scope.deny — refused finally, not grantable (§4.3b, RFC-0030)" {
		t.Errorf("unit %+v", u)
	}
}
