package kungfu_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

const bindingSchema = "kungfu-binding.schema.json#/$defs/"

// TestEntryRefSchema: the binding schema's entry reference takes an entry
// number or exactly {thread, entry}, as docs/kungfu-actions.md says.
func TestEntryRefSchema(t *testing.T) {
	set := schema.NewSet(sifu.Assets, "vectors/schema")
	for raw, valid := range map[string]bool{
		`1`: true, `{"thread": "thr-3", "entry": 2}`: true,
		`0`: false, `1.5`: false, `"1"`: false, `{"thread": "thr-3"}`: false,
		`{"thread": "thr-3", "entry": 1, "note": "x"}`: false, `{"thread": "", "entry": 1}`: false,
	} {
		err := set.Validate(bindingSchema+"entry_ref", "sample", []byte(raw))
		if (err == nil) != valid {
			t.Errorf("entry_ref %s: valid=%v, validation error %v", raw, valid, err)
		}
	}
}

// TestTasksViewMatchesSchema: the reference's tasks view answers what the
// binding schema describes.
func TestTasksViewMatchesSchema(t *testing.T) {
	ctx := context.Background()
	k, err := kungfuinproc.New()
	if err != nil {
		t.Fatal(err)
	}
	prov, _ := k.Control(ctx, kungfu.Control{Name: kungfu.ControlProvision, Params: map[string]any{"name": "alice"}})
	alice := prov.Result["agent"].(string)
	for _, title := range []string{"one", "two"} {
		r, _ := k.Act(ctx, kungfu.Action{Agent: alice, Name: "task.create", Params: map[string]any{"title": title, "requirements": "r"}})
		if !r.OK {
			t.Fatalf("task.create: %s", r.Rejection)
		}
	}
	r, _ := k.Read(ctx, kungfu.Read{Agent: alice, View: "tasks", Params: map[string]any{"limit": float64(1)}})
	if !r.OK {
		t.Fatalf("tasks: %s", r.Rejection)
	}
	raw, _ := json.Marshal(r.Result)
	if err := schema.NewSet(sifu.Assets, "vectors/schema").Validate(bindingSchema+"tasks_result", "tasks answer", raw); err != nil {
		t.Fatal(err)
	}
	if items := r.Result["items"].([]any); len(items) != 1 || r.Result["next_cursor"] == "" {
		t.Fatalf("want one item and a cursor, got %s", raw)
	}
}
