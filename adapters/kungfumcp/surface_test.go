package kungfumcp

import (
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
)

func bundledRaw(t *testing.T) string {
	t.Helper()
	raw, err := inputfile.ReadFS(sifu.Assets, Bundled)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func bundledRawB(b *testing.B) []byte {
	raw, err := inputfile.ReadFS(sifu.Assets, Bundled)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

var known = map[string]bool{"memory.unwithdraw": true, "memory.restore": true, "memory.delete_version": true, "memory.edit_version": true,
	"memory.shred": true, "memory.transfer": true, "thread.reopen": true, "thread.edit": true, "thread.delete": true, "assignment.update": true,
	"assignment.edit": true, "assignment.redeliver": true, "assignment.publish": true, "assignment.to_task": true, "task.update": true,
	"task.edit": true, "task.cancel": true, "task.cancel_engagement": true, "task.void": true, "task.obligation.create": true,
	"task.obligation.clear": true, "obligation.create": true, "obligation.dismiss": true, "turn.complete": true, "turn.dismiss": true,
	"memory_history": true, "memory.create": true, "memory.update": true, "memory.publish": true, "memory.unpublish": true,
	"memory.withdraw": true, "memory": true, "memories": true, "thread.create": true, "thread.admit": true, "thread.void_admission": true,
	"thread.join": true, "thread.leave": true, "thread.remove": true, "thread.set_role": true, "thread.close": true, "thread.post": true,
	"thread.handle": true, "thread.retract": true, "assignment.take": true, "assignment.deliver": true, "assignment.judge": true,
	"assignment.drop": true, "assignment.void": true, "thread": true, "threads": true, "turn": true, "agent": true, "task.create": true,
	"task.revise": true, "task.take": true, "task.deliver": true, "task.drop": true, "task.judge": true, "task": true, "tasks": true,
	"engagement": true, "engagements": true, "adoptions": true, "assignment": true, "entry": true, "opportunities": true}

func TestTheBundledMapLoads(t *testing.T) {
	s, err := Load(Bundled, []byte(bundledRaw(t)), known)
	if err != nil {
		t.Fatal(err)
	}
	if s.Endpoint != "/mcp" || s.Provision == nil || s.Provision.Tool != "account_register" {
		t.Errorf("endpoint %q, provision %+v", s.Endpoint, s.Provision)
	}
}

func TestAMapThatCannotBeUndoneIsRefused(t *testing.T) {
	raw := bundledRaw(t)
	for name, c := range map[string]struct{ from, to, want string }{
		"unknown action": {`"memory.publish":`, `"memory.polish":`, `sifu has no action "memory.polish"`},
		"unknown view":   {`"threads":`, `"threadz":`, `sifu has no view "threadz"`},
		"two reasons":    {`{"code": "INVALID_STATE", "status": 409, "reason": "invalid_state"`, `{"code": "NOT_FOUND", "status": 409, "reason": "invalid_state"`, "a code has one reason"},
		"lossy values":   {`{"role_change": "demote"}`, `{"role_change": "demote", "demoted": "demote"}`, "maps two tool values to one sifu value"},
		"lossy renames":  {`"result": {"bot_id": "agent", "status": "state"}`, `"result": {"bot_id": "agent", "status": "agent"}`, "renames two fields to one name"},
		"both":           {`"views": {`, `"views": {"assignment": {"tool": "thread_get"},`, "both mapped and listed under /lacks/views"},
		"absent mapped":  {`"absent": ["memory.unwithdraw"`, `"absent": ["memory.publish"`, "memory.publish is mapped, so it is not absent"},
		"schema":         {`"tool": "memory_share"`, `"tool": "memory share"`, "/actions/memory.publish/tool"},
	} {
		t.Run(name, func(t *testing.T) {
			bad := strings.Replace(raw, c.from, c.to, 1)
			if bad == raw {
				t.Fatalf("the bundled map has no %s", c.from)
			}
			_, err := Load("bad.map.json", []byte(bad), known)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.map.json") {
				t.Errorf("got %v, want a message naming the file with %q", err, c.want)
			}
		})
	}
}

func TestLackingNamesWhatACheckNeedsAndTheMapLacks(t *testing.T) {
	s, err := Load(Bundled, []byte(bundledRaw(t)), known)
	if err != nil {
		t.Fatal(err)
	}
	act := func(agent, name, key string, params map[string]any) engine.Step {
		return engine.Step{Op: engine.OpAct, Agent: agent, Name: name, Key: key, Params: params}
	}
	for name, c := range map[string]struct {
		steps []engine.Step
		want  string
	}{
		"runnable":      {[]engine.Step{act("a", "memory.create", "k1", map[string]any{"content": "x"}), act("a", "thread.create", "k2", nil)}, ""},
		"unmapped":      {[]engine.Step{act("a", "task.judge", "", nil)}, "action task.judge (no agent-side tool judges a Task"},
		"unknown name":  {[]engine.Step{act("a", "memory.frobnicate", "", nil)}, "action memory.frobnicate (the map names no tool for it)"},
		"absent probe":  {[]engine.Step{act("a", "memory.unwithdraw", "", nil), {Op: engine.OpRead, Agent: "a", Name: "memory_history"}}, ""},
		"nested":        {[]engine.Step{{Op: engine.OpParallel, Steps: []engine.Step{{Op: engine.OpRead, Agent: "a", Name: "entry"}}}}, "view entry"},
		"replay no key": {[]engine.Step{act("a", "memory.create", "k1", nil), act("a", "memory.create", "k1", nil)}, "an idempotency key on memory.create"},
		"replay key":    {[]engine.Step{act("a", "thread.create", "k1", nil), act("a", "thread.create", "k1", nil)}, ""},
		"shared tool":   {[]engine.Step{act("a", "memory.update", "", map[string]any{"content": "x"})}, "memory.update without its memory parameter"},
	} {
		t.Run(name, func(t *testing.T) {
			got := s.Lacking(engine.Check{Steps: c.steps})
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("Lacking = %q, want %q", got, c.want)
			}
		})
	}
}
