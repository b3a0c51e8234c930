package kcp

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/internal/engine"
)

// TestAwaitCutsAtTheLineThatHoldsTheText: Await returns up to and
// including the first whole line holding the text, keeps the rest for the
// next Await, and gives all that is left once the command has ended.
func TestAwaitCutsAtTheLineThatHoldsTheText(t *testing.T) {
	o := NewOutput(func(s string) string { return strings.ReplaceAll(s, "/tmp/x", "<dir>") })
	_, _ = o.Write([]byte("a /tmp/x\nplan 1\nb\npla"))
	got, err := o.Await(context.Background(), "plan")
	if err != nil || got != "a <dir>\nplan 1\n" {
		t.Fatalf("%q %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Await(ctx, "plan"); !errors.Is(err, context.Canceled) {
		t.Errorf("a half line matched: %v", err) // "pla" is not a whole line yet
	}
	_, _ = o.Write([]byte("n 2\nc\n"))
	if got, _ := o.Await(context.Background(), "plan"); got != "b\nplan 2\n" {
		t.Errorf("second: %q", got)
	}
	o.End()
	if got, err := o.Await(context.Background(), "never"); err != nil || got != "c\n" {
		t.Errorf("after the end: %q %v", got, err)
	}
	if o.Rest() != "" || !o.Grew(context.Background(), o.Printed()) {
		t.Errorf("rest %q", o.Rest())
	}
}

// TestOutputResultReadsEachLineAsJSON: blank lines are skipped, a line
// that is no JSON is null.
func TestOutputResultReadsEachLineAsJSON(t *testing.T) {
	r := outputResult("{\"type\":\"plan\"}\n\nnot json\n")
	events := r["events"].([]any)
	if len(events) != 2 || events[0].(map[string]any)["type"] != "plan" || events[1] != nil {
		t.Errorf("%v", events)
	}
	for _, out := range []string{"{\"type\":\"plan\"}\n\nnot json\n", "a\nb", ""} {
		ex := engine.Exchange{Name: "cli_await", Outcome: &engine.Outcome{OK: true, Result: engine.Normalize(outputResult(out))}}
		d := deriveBackground(ex)
		if d["text"] != out || !reflect.DeepEqual(d["events"], engine.Normalize(outputResult(out)["events"])) {
			t.Errorf("%q derived %v", out, d)
		}
	}
}

// TestBackgroundStepsAreCheckedWhole: a command that keeps running is
// started, awaited and stopped in that order, each step with its own
// members.
func TestBackgroundStepsAreCheckedWhole(t *testing.T) {
	head := `{"name":"v","kind":"command","rules":["KCP-watch-diff"],"description":"d","manifest":"project: p\n","steps":`
	good := head + `[{"args":["watch"],"background":true,"until":"plan","expect":{"/events/0/type":"validate"}},
		{"files":{"a.md":"x"},"until":"diff"},{"stop":true,"expect":{"/stderr":""}},{"args":["b"],"exit":0}]}`
	c, err := compileCommand(nil, []byte(good), "vectors/kcp/scaffold/v.json", "v")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, s := range c.Steps {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "cli_start cli_await cli_stop cli" || c.Steps[0].Params["manifest"] != "project: p\n" || c.Steps[1].Params["until"] != "diff" {
		t.Errorf("compiled %v %+v", names, c.Steps)
	}
	for name, steps := range map[string]string{
		"await before start":   `[{"files":{"a":"b"},"until":"x"}]`,
		"stop before start":    `[{"stop":true}]`,
		"two starts":           `[{"args":["w"],"background":true,"until":"x"},{"args":["w"],"background":true,"until":"x"}]`,
		"a command meanwhile":  `[{"args":["w"],"background":true,"until":"x"},{"args":["b"],"exit":0}]`,
		"start without until":  `[{"args":["w"],"background":true}]`,
		"start with exit":      `[{"args":["w"],"background":true,"until":"x","exit":0}]`,
		"stderr before stop":   `[{"args":["w"],"background":true,"until":"x","expect":{"/stderr":""}}]`,
		"stop with files":      `[{"args":["w"],"background":true,"until":"x"},{"stop":true,"files":{"a":"b"}}]`,
		"an unknown pointer":   `[{"args":["w"],"background":true,"until":"x","expect":{"/json":1}}]`,
		"empty until":          `[{"args":["w"],"background":true,"until":""}]`,
		"await with arguments": `[{"args":["w"],"background":true,"until":"x"},{"args":["w"],"until":"x"}]`,
	} {
		if _, err := compileCommand(nil, []byte(head+steps+"}"), "vectors/kcp/scaffold/v.json", "v"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
