package kcp

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
)

// backgroundStepOf compiles a step of a command that keeps running:
// {args, background: true, until} starts it and waits for a line of its
// output holding until; {manifest?, files?, until} writes them over the
// directory and waits for the next such line; {stop: true} ends it. Each
// judges what the command printed since the step before (/stdout, /text,
// /events: each line read as JSON), the stop step also /stderr. running
// says whether a command runs before the step, and after it.
func backgroundStepOf(file, where string, v commandVector, st commandStep, i int, running *bool) (engine.Step, error) {
	bad := func(format string, a ...any) (engine.Step, error) {
		return engine.Step{}, fmt.Errorf("%s: %s"+format, append([]any{file, where}, a...)...)
	}
	kind := ""
	switch {
	case v.Steps == nil:
		return bad("background, until and stop are a step's, in /steps")
	case st.Exit != nil || st.Stdout != nil:
		return bad("a step of a command that keeps running has no exit or stdout: judge its output with expect")
	case st.Background && st.Stop:
		return bad("a step starts a command (background) or stops it (stop), not both")
	case st.Background:
		kind = "cli_start"
		if st.Args == nil || st.Until == nil {
			return bad("a background step gives args and until (a text one line of its output holds)")
		}
		if *running {
			return bad("background: a command is already running; stop it first")
		}
	case st.Stop:
		kind = "cli_stop"
		if st.Args != nil || st.Until != nil || st.Manifest != nil || st.Files != nil {
			return bad("a stop step has only stop and expect")
		}
	case st.Until != nil:
		kind = "cli_await"
		if st.Args != nil {
			return bad("a step with until and no background changes files and waits: it has no args")
		}
	default:
		return bad("a command is running: this step waits for its output (until) or stops it (stop)")
	}
	if kind != "cli_start" && !*running {
		return bad("no command is running: a step with background and args starts one")
	}
	if st.Until != nil && *st.Until == "" {
		return bad("until: give the text a line of the output holds")
	}
	*running = kind != "cli_stop"
	var match []engine.Match
	for _, ptr := range slices.Sorted(maps.Keys(st.Expect)) {
		top, _, _ := strings.Cut(strings.TrimPrefix(ptr, "/"), "/")
		if !strings.HasPrefix(ptr, "/") || !slices.Contains([]string{"stdout", "text", "events", "stderr"}, top) || top == "stderr" && kind != "cli_stop" {
			return bad("expect/%s: a pointer starts with /stdout, /text or /events (and /stderr on the stop step)", ptr)
		}
		match = append(match, engine.Match{Pointer: "/result" + ptr, Matcher: engine.Normalize(st.Expect[ptr])})
	}
	params := map[string]any{"name": v.Name}
	text := "stop the command"
	if st.Until != nil {
		params["until"] = *st.Until
		text = fmt.Sprintf("until a line holds %q", *st.Until)
	}
	if kind == "cli_start" {
		args := make([]any, len(st.Args))
		for j, a := range st.Args {
			args[j] = a
		}
		params["args"] = args
		text = strings.Join(st.Args, " ") + ", " + text
	}
	manifest := ""
	if i == 0 {
		manifest = v.Manifest
	}
	if st.Manifest != nil {
		manifest = *st.Manifest
	}
	if manifest != "" {
		params["manifest"] = manifest
	}
	files := map[string]string{}
	if i == 0 {
		maps.Copy(files, v.Files)
	}
	maps.Copy(files, st.Files)
	if len(files) > 0 {
		params["files"] = engine.Normalize(files)
		if kind == "cli_await" {
			text = "change " + strings.Join(slices.Sorted(maps.Keys(files)), ", ") + ", " + text
		}
	}
	return engine.Step{Source: fmt.Sprintf("%s#%sexpect", file, where), Text: text, Op: engine.OpAct, Name: kind,
		Params: params, Expect: &engine.Expect{Outcome: "ok", Match: match}}, nil
}
