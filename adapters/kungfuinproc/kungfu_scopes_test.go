package kungfuinproc_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/reference/kungfuref/sqlitestore"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func mustOK(t *testing.T) func(kungfu.Response, error) map[string]any {
	return func(r kungfu.Response, err error) map[string]any {
		t.Helper()
		if err != nil || !r.OK {
			t.Fatalf("%v %s", err, r.Rejection)
		}
		return r.Result
	}
}

// TestScopesStayApart: a clock moved in one scope passes deadlines there
// only; a restart of one scope rebuilds it from its log and leaves the
// others' application state (their rate-limit windows) alone; agents are
// routed by the scope their id names, also after the host is started
// again over the same database.
func TestScopesStayApart(t *testing.T) {
	ctx := context.Background()
	must := mustOK(t)
	db := filepath.Join(t.TempDir(), "kungfu.db")
	st, err := sqlitestore.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	host, err := kungfuinproc.NewScopes(st)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := host.Hello(ctx)
	if !h.Confines(kungfu.ControlClock) || !h.Confines(kungfu.ControlRestart) {
		t.Fatalf("hello scoped = %v", h.Scoped)
	}
	agent := func(scope string) string {
		p := map[string]any{"name": "a"}
		if scope != "" {
			p["scope"] = scope
		}
		return must(host.Control(ctx, kungfu.Control{Name: "provision", Params: p}))["agent"].(string)
	}
	a, b, plain := agent("one"), agent("two"), agent("")
	if !strings.HasSuffix(a, "@one") || !strings.HasSuffix(b, "@two") || strings.Contains(plain, "@") {
		t.Fatalf("agent ids %q %q %q", a, b, plain)
	}
	task := func(who string) string {
		return must(host.Act(ctx, kungfu.Action{Agent: who, Name: "task.create", Params: map[string]any{"title": "t", "requirements": "r", "delivery_due": float64(60)}}))["task"].(string)
	}
	taker := map[string]string{"one": agent("one"), "two": agent("two")}
	eng := map[string]string{}
	for scope, author := range map[string]string{"one": a, "two": b} {
		id := task(author)
		eng[scope] = must(host.Act(ctx, kungfu.Action{Agent: taker[scope], Name: "task.take", Params: map[string]any{"task": id}}))["engagement"].(string)
	}
	must(host.Control(ctx, kungfu.Control{Name: "clock", Params: map[string]any{"advance": "61s", "scope": "one"}}))
	state := func(scope string) string {
		return must(host.Read(ctx, kungfu.Read{Agent: taker[scope], View: "engagement", Params: map[string]any{"engagement": eng[scope]}}))["state"].(string)
	}
	if state("one") != "timed_out" || state("two") != "confirmed" {
		t.Fatalf("after scope one's clock moved: one %s, two %s", state("one"), state("two"))
	}
	must(host.Control(ctx, kungfu.Control{Name: "restart", Params: map[string]any{"scope": "two"}}))
	if state("two") != "confirmed" {
		t.Fatalf("scope two after its restart: %s", state("two"))
	}
	if r, _ := host.Control(ctx, kungfu.Control{Name: "provision", Params: map[string]any{"name": "x", "scope": "no.dots"}}); r.OK {
		t.Fatal("a scope name with a dot was accepted")
	}
	if r, _ := host.Read(ctx, kungfu.Read{Agent: "a-1@never", View: "agent"}); r.OK || r.Rejection.Reason != "unauthenticated" {
		t.Fatalf("an agent of a scope that never existed: %+v", r)
	}
	st.Close()

	st, err = sqlitestore.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	again, err := kungfuinproc.NewScopes(st)
	if err != nil {
		t.Fatal(err)
	}
	host = again
	if state("one") != "timed_out" || state("two") != "confirmed" {
		t.Fatalf("after starting over the same database: one %s, two %s", state("one"), state("two"))
	}
	if r := must(host.Read(ctx, kungfu.Read{Agent: plain, View: "agent"})); r["agent"] != plain {
		t.Fatalf("default scope agent: %v", r)
	}
}
