package kcp_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kcpinproc"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/suite/kcp"
)

func TestVectorShapesAndNames(t *testing.T) {
	fsys := fstest.MapFS{
		"v/wrong-name.json":   {Data: []byte(`{"name":"other","spec":"§4","description":"d","manifest":"","task":"t","options":{},"expect":{}}`)},
		"v/odd.json":          {Data: []byte(`{"hello":"world"}`)},
		"v/a.json":            {Data: []byte(`{"name":"a","gate":"confidence","spec":"§confidence-gate","task":"t","answer":"x","units":[],"options":{"threshold":0.5}}`)},
		"v/mcp/no-rules.json": {Data: []byte(`{"name":"no-rules","kind":"mcp","steps":[{"tools":true,"expect":[{"pointer":"/names","matcher":[]}]}]}`)},
		"v/mcp/both.json":     {Data: []byte(`{"name":"both","kind":"mcp","rules":["R"],"steps":[{"tools":true,"call":"kcp_plan","expect":[{"pointer":"/names","matcher":[]}]}]}`)},
		"v/mcp/blind.json":    {Data: []byte(`{"name":"blind","kind":"mcp","rules":["R"],"steps":[{"call":"kcp_plan"}]}`)},
		"v/mcp/pointer.json":  {Data: []byte(`{"name":"pointer","kind":"mcp","rules":["R"],"steps":[{"call":"kcp_plan","expect":[{"pointer":"json","matcher":1}]}]}`)},
		"v/mcp/unknown.json":  {Data: []byte(`{"name":"unknown","kind":"mcp","rules":["R"],"steps":[{"call":"kcp_plan","argument":{},"expect":[{"pointer":"/json","matcher":1}]}]}`)},
	}
	for file, want := range map[string]string{
		"v/wrong-name.json":   "must equal the file name",
		"v/odd.json":          "unknown vector shape",
		"v/a.json":            "exactly one of /expect and /expectError",
		"v/mcp/no-rules.json": "/rules (the rule IDs the check evidences) is missing",
		"v/mcp/both.json":     "v/mcp/both.json#/steps/0: a step has exactly one of tools (true) and call",
		"v/mcp/blind.json":    "v/mcp/blind.json#/steps/0/expect: a step must expect something",
		"v/mcp/pointer.json":  `#/steps/0/expect/0/pointer "json": a JSON pointer starts with /`,
		"v/mcp/unknown.json":  `unknown field "argument"`,
	} {
		if _, err := kcp.CompileVector(fsys, file, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want %q, got %v", file, want, err)
		}
	}
}

var calls atomic.Int64

// perturbed is a planner with one wrong habit; every habit must be caught.
type perturbed struct {
	kcpinproc.Reference
	fault string
}

func (p perturbed) Plan(ctx context.Context, req kcp.PlanRequest) (map[string]any, error) {
	out, err := p.Reference.Plan(ctx, req)
	if err != nil {
		return out, err
	}
	switch p.fault {
	case "score":
		if sel, _ := out["selected"].([]any); len(sel) > 0 {
			sel[0].(map[string]any)["score"] = sel[0].(map[string]any)["score"].(float64) + 1
		}
	case "reason":
		if sk, _ := out["skipped"].([]any); len(sk) > 0 {
			r := sk[0].(map[string]any)
			r["reason"] = strings.ToUpper(r["reason"].(string)[:1]) + r["reason"].(string)[1:]
		}
	case "order":
		if sel, _ := out["selected"].([]any); len(sel) > 1 {
			sel[0], sel[1] = sel[1], sel[0]
		}
	case "extra-key":
		// A key the outcome defines only with a context budget.
		if c := out["context"].(map[string]any); c["ceiling"] == nil {
			c["ceiling"] = 0.0
		}
	case "unstable":
		out["warnings"] = append(out["warnings"].([]any), fmt.Sprint("call ", calls.Add(1)))
	case "overspend":
		if b, ok := out["budget"].(map[string]any); ok && b["ceiling"] != nil {
			b["projectedSpend"] = b["ceiling"].(float64) + 0.01
		}
	case "open-restricted":
		for _, e := range out["selected"].([]any) {
			e.(map[string]any)["loadEligible"] = true
		}
	}
	return out, nil
}

// TestCorpusCatchesWrongPlanners: a planner that is off by one score, in
// the case of one reason, in the order of selected units or with one extra
// key fails checks.
func TestCorpusCatchesWrongPlanners(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		t.Fatal(err)
	}
	for _, fault := range []string{"score", "reason", "order", "extra-key", "unstable", "open-restricted", "overspend"} {
		target := kcp.RunTarget{New: func(context.Context) (kcp.Target, func(), error) {
			return perturbed{fault: fault}, func() {}, nil
		}}
		run, err := plan.Run(context.Background(), runner.Config{TargetName: "wrong", Target: target})
		if err != nil {
			t.Fatal(err)
		}
		if run.Summary.Fail == 0 {
			t.Errorf("a planner with the %q fault passed every check", fault)
		}
		for _, tc := range run.Tests {
			if fault == "unstable" && strings.Contains(tc.ID, "the-same-inputs") && tc.Status != engine.Fail {
				t.Errorf("an unstable planner passed %s", tc.ID)
			}
			if fault == "open-restricted" && strings.Contains(tc.ID, "restricted-unit-is-never") && tc.Status != engine.Fail {
				t.Errorf("a planner opening restricted units passed %s", tc.ID)
			}
			if fault != "score" && fault != "reason" && fault != "order" && fault != "extra-key" &&
				strings.Contains(tc.ID, "invariants-hold") && tc.Status != engine.Fail {
				t.Errorf("the generated-manifest invariants missed the %q fault", fault)
			}
		}
	}
}

// BenchmarkCorpusInProcess measures planning every planner vector of the
// corpus in-process (parse + plan + projection), per vector.
func BenchmarkCorpusInProcess(b *testing.B) {
	plan, err := runner.Load(sifu.Assets, kcp.Suite)
	if err != nil {
		b.Fatal(err)
	}
	var reqs []kcp.PlanRequest
	for _, c := range plan.Checks {
		if c.Steps[0].Name == "plan" {
			p := c.Steps[0].Params
			reqs = append(reqs, kcp.PlanRequest{Name: p["name"].(string), Manifest: p["manifest"].(string), Task: p["task"].(string), Options: p["options"].(map[string]any)})
		}
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := (kcpinproc.Reference{}).Plan(ctx, reqs[i%len(reqs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMCPAnswersAreRecordedOnce: what checks read of a tool call (its
// text, that text parsed, refused) and of a tool list (names, byName)
// follows from the server's answer, so a transcript leaves it out and a
// replay rebuilds it.
func TestMCPAnswersAreRecordedOnce(t *testing.T) {
	call := kcp.ToolResult(map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"plan":{"selected":[]}}`}}, "isError": true})
	d := kcp.Derived(engine.Exchange{Name: "mcp_call", Outcome: &engine.Outcome{OK: true, Result: call}})
	if d["text"] != `{"plan":{"selected":[]}}` || d["refused"] != true || fmt.Sprint(d["json"]) != "map[plan:map[selected:[]]]" || len(d) != 3 {
		t.Fatalf("mcp_call: derived %v", d)
	}
	tools := map[string]any{"tools": []any{map[string]any{"name": "kcp_plan"}}}
	d = kcp.Derived(engine.Exchange{Name: "mcp_tools", Outcome: &engine.Outcome{OK: true, Result: tools}})
	if fmt.Sprint(d["names"]) != "[kcp_plan]" || fmt.Sprint(d["byName"]) != "map[kcp_plan:map[name:kcp_plan]]" {
		t.Fatalf("mcp_tools: derived %v", d)
	}
	rpc := map[string]any{"refused": true, "isError": false, "error": map[string]any{"code": -32602.0, "message": "bad"}}
	if d := kcp.Derived(engine.Exchange{Name: "mcp_call", Outcome: &engine.Outcome{OK: true, Result: rpc}}); d != nil {
		t.Fatalf("a JSON-RPC error: derived %v", d)
	}
}
