// Package agentkit holds the Gherkin step definitions of the agent-kit
// gateway suite. They compile scripted model conversations, HTTP requests
// to the gateway and reads of the stub's records into sifu's step model; the
// expectation steps are shared (steps/expectations). The vocabulary is in
// docs/agentkit.md.
package agentkitsteps

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/engine/gherkin"
	"github.com/sifu-dev/sifu/steps/outcomesteps"
)

const name = `([a-z][a-z0-9_]*)`

// Register adds the agent-kit step vocabulary to a scenario context.
func Register(sc *godog.ScenarioContext) {
	sc.Step(`^the model follows script `+name+`:$`, script)
	sc.Step(`^the gateway runs with approval "(auto|interactive|deny)"$`, func(ctx context.Context, mode string) error {
		return configure(ctx, map[string]any{"approval": mode})
	})
	sc.Step(`^the gateway runs without a suspend store$`, func(ctx context.Context) error {
		return configure(ctx, map[string]any{"suspend": false})
	})
	sc.Step(`^the gateway runs with a budget of (\d+) model calls?$`, func(ctx context.Context, n string) error {
		b, _ := strconv.Atoi(n)
		return configure(ctx, map[string]any{"budget": float64(b)})
	})
	sc.Step(`^the gateway runs with two sources that both offer deduct$`, func(ctx context.Context) error {
		return configure(ctx, map[string]any{"collide": true})
	})
	sc.Step(`^the gateway runs with catalog\.max_risk "(readonly|mutating|dangerous)"$`, func(ctx context.Context, risk string) error {
		return configure(ctx, map[string]any{"max_risk": risk})
	})
	sc.Step(`^the gateway runs with session\.window (\d+)$`, func(ctx context.Context, n string) error {
		w, _ := strconv.Atoi(n)
		return configure(ctx, map[string]any{"window": float64(w)})
	})
	sc.Step(`^the gateway runs with the approval rules:$`, approvalRules)
	sc.Step(`^the gateway runs with the reports namespace mounted$`, func(ctx context.Context) error {
		return configure(ctx, map[string]any{"skills": true})
	})
	sc.Step(`^the model's requests under script `+name+` are read$`, func(ctx context.Context, scr string) error {
		read(ctx, "model_requests", map[string]any{"script": scr})
		return nil
	})
	sc.Step(`^the gateway has had the model summarise under script `+name+`$`, func(ctx context.Context, scr string) error {
		read(ctx, "summary", map[string]any{"script": scr}, engine.Match{Pointer: "/result/summarised", Matcher: true})
		return nil
	})
	sc.Step(`^the calls of tool ([a-z_]+) under script `+name+` are read$`, func(ctx context.Context, tool, scr string) error {
		read(ctx, "tool_calls", map[string]any{"script": scr, "tool": tool})
		return nil
	})
	sc.Step(`^the tool results the model saw under script `+name+` match (.+)$`, func(ctx context.Context, scr, doc string) error {
		var m any
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			return fmt.Errorf("the matcher must be JSON: %v", err)
		}
		read(ctx, "model_requests", map[string]any{"script": scr}, engine.Match{Pointer: "/result/tool_results", Matcher: m})
		return nil
	})
	sc.Step(`^the model saw "([^"]*)" under script `+name+`$`, func(ctx context.Context, text, scr string) error {
		read(ctx, "model_requests", map[string]any{"script": scr}, engine.Match{Pointer: "/result/seen", Matcher: map[string]any{"$contains": text}})
		return nil
	})
	sc.Step(`^the model did not see "([^"]*)" under script `+name+`$`, func(ctx context.Context, text, scr string) error {
		read(ctx, "model_requests", map[string]any{"script": scr},
			engine.Match{Pointer: "/result/count", Matcher: map[string]any{"$gte": 1.0}},
			engine.Match{Pointer: "/result/seen", Matcher: map[string]any{"$not_contains": text}})
		return nil
	})
	sc.Step(`^a message "([^"]*)" under script `+name+` is sent to ([a-z0-9_-]+) on session `+name+` and (interrupted|steered with "([^"]*)") while the model thinks$`, whileThinking)
	sc.Step(`^the model was not offered a tool named ([a-z_]+) under script `+name+`$`, func(ctx context.Context, tool, scr string) error {
		read(ctx, "model_requests", map[string]any{"script": scr}, engine.Match{Pointer: "/result/tools", Matcher: map[string]any{"$not_contains": tool}})
		return nil
	})
	sc.Step(`^every file of the gateway's suspend store is corrupted$`, func(ctx context.Context) error {
		gherkin.From(ctx).Add(engine.Step{Op: engine.OpControl, Name: "corrupt-store",
			Expect: &engine.Expect{Outcome: "ok", Match: []engine.Match{{Pointer: "/result/files", Matcher: map[string]any{"$gte": 1.0}}}}})
		return nil
	})
	sc.Step(`^the gateway process is killed and started again$`, func(ctx context.Context) error {
		gherkin.From(ctx).Add(engine.Step{Op: engine.OpControl, Name: "restart"})
		return nil
	})
	sc.Step(`^(?:a|the) (streamed )?message "([^"]*)" (?:under script `+name+` )?is sent to ([a-z0-9_-]+)(?: on session `+name+`| on session "([^"]+)"| without a session)?(?: as user "([^"]*)")?$`, messageStep)
	sc.Step(`^a task "([^"]*)" (?:under script `+name+` )?is sent to ([a-z0-9_-]+) over A2A$`, taskStep)
	sc.Step(`^a message "([^"]*)" under script `+name+` is sent to ([a-z0-9_-]+) on session `+name+`, and while the model thinks a message "([^"]*)" under script `+name+` on the same session$`, overlapping)
	sc.Step(`^no model call under script `+name+` came while a call under script `+name+` was held$`, func(ctx context.Context, scr, other string) error {
		read(ctx, "model_requests", map[string]any{"script": scr},
			engine.Match{Pointer: "/result/count", Matcher: map[string]any{"$gte": 1.0}},
			engine.Match{Pointer: "/result/requests/*/during", Matcher: map[string]any{"$each": map[string]any{"$not_contains": "${" + scriptVar(other) + "}"}}})
		return nil
	})
	sc.Step(`^(GET|POST|PUT|PATCH|DELETE) (/\S*) is requested$`, func(ctx context.Context, method, path string) error {
		return request(ctx, map[string]any{"method": method, "path": path})
	})
	sc.Step(`^(GET|POST|PUT|PATCH|DELETE) (/\S*) is requested with JSON:$`, func(ctx context.Context, method, path string, doc *godog.DocString) error {
		var body map[string]any
		if err := json.Unmarshal([]byte(doc.Content), &body); err != nil {
			return fmt.Errorf("the doc string must be a JSON object: %v", err)
		}
		return request(ctx, map[string]any{"method": method, "path": path, "json": body})
	})
	sc.Step(`^the answer echoes the session$`, echoes)
	sc.Step(`^the gateway waits with the question "([^"]*)"$`, waits)
	sc.Step(`^the gateway waits for approval of "([^"]*)" with arguments (\{.*\}) under script `+name+`$`, approval)
	sc.Step(`^the turn is done with an answer containing "([^"]*)"$`, done)
	sc.Step(`^the model was called (\d+) times? under script `+name+`$`, modelCalls)
	sc.Step(`^the model was offered the tools? ((?:[a-z_]+(?:, | and )?)+) under script `+name+`$`, offered)
	sc.Step(`^the last tool results the model saw under script `+name+` contain "([^"]*)"$`, toolText)
	sc.Step(`^no request of the model under script `+name+` mentions script `+name+`$`, notMentions)
	sc.Step(`^the tool ([a-z_]+) was called (\d+) times? under script `+name+`$`, toolCalls)
	sc.Step(`^the gateway runs with `+mcpSource+`$`, func(ctx context.Context, opt, src, transport, only, risk, overrides, down string) error {
		m, err := mcpSettings(opt, src, transport, only, risk, overrides, down)
		if err != nil {
			return err
		}
		return configure(ctx, map[string]any{"mcp": []any{m}})
	})
	sc.Step(`^the gateway runs with two MCP sources `+name+` and `+name+` over (stdio|sse|http)$`, func(ctx context.Context, a, b, transport string) error {
		return configure(ctx, map[string]any{"mcp": []any{map[string]any{"name": a, "transport": transport}, map[string]any{"name": b, "transport": transport}}})
	})
	sc.Step(`^the gateway is started with `+mcpSource+`$`, func(ctx context.Context, opt, src, transport, only, risk, overrides, down string) error {
		m, err := mcpSettings(opt, src, transport, only, risk, overrides, down)
		if err != nil {
			return err
		}
		gherkin.From(ctx).Add(engine.Step{Op: engine.OpControl, Name: "startup", Params: map[string]any{"settings": map[string]any{"mcp": []any{m}}}})
		return nil
	})
	sc.Step(`^the gateway did not start, and its output names "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, part string) error {
		expect(ctx, engine.Match{Pointer: "/result/started", Matcher: false},
			engine.Match{Pointer: "/result/hung", Matcher: map[string]any{"$absent": true}},
			engine.Match{Pointer: "/result/stderr", Matcher: map[string]any{"$contains": strings.ReplaceAll(part, `\"`, `"`)}})
		return nil
	})
	sc.Step(`^the MCP server `+name+` received (\d+) (initialize|tools/list|tools/call) requests?$`, func(ctx context.Context, src, n, method string) error {
		c, _ := strconv.Atoi(n)
		read(ctx, "mcp_requests", map[string]any{"source": src}, engine.Match{Pointer: "/result/count/" + strings.ReplaceAll(method, "/", "~1"), Matcher: float64(c)})
		return nil
	})
	sc.Step(`^the gateway connected to the MCP server `+name+` (\d+) times?$`, func(ctx context.Context, src, n string) error {
		c, _ := strconv.Atoi(n)
		read(ctx, "mcp_requests", map[string]any{"source": src}, engine.Match{Pointer: "/result/handshakes", Matcher: float64(c)})
		return nil
	})
	sc.Step(`^the MCP server `+name+` received no tools/call$`, func(ctx context.Context, src string) error {
		read(ctx, "mcp_requests", map[string]any{"source": src}, engine.Match{Pointer: "/result/calls", Matcher: []any{}})
		return nil
	})
	sc.Step(`^the requests the MCP server `+name+` received are read$`, func(ctx context.Context, src string) error {
		read(ctx, "mcp_requests", map[string]any{"source": src})
		return nil
	})
	sc.Step(`^the gateway runs with the configuration:$`, func(ctx context.Context, doc *godog.DocString) error {
		params, err := settingsDoc(doc)
		if err != nil {
			return err
		}
		return configure(ctx, params)
	})
	sc.Step(`^the gateway is started with the configuration:$`, func(ctx context.Context, doc *godog.DocString) error {
		params, err := settingsDoc(doc)
		if err != nil {
			return err
		}
		gherkin.From(ctx).Add(engine.Step{Op: engine.OpControl, Name: "startup", Params: map[string]any{"settings": params}})
		return nil
	})
	sc.Step(`^the gateway started$`, func(ctx context.Context) error {
		expect(ctx, engine.Match{Pointer: "/result/started", Matcher: true})
		return nil
	})
	registerSupply(sc)
	outcomesteps.Register(sc)
}

// registerSupply adds the steps of remote agents, vector sources, prompts
// and secrets: settings given as a JSON document (the keys of
// agentkit.Settings; "the gateway started" is registered with the
// catalogue's steps), and reads of what the stub remote agents and prompt
// platform received.
func registerSupply(sc *godog.ScenarioContext) {
	sc.Step(`^the gateway runs with:$`, func(ctx context.Context, doc *godog.DocString) error {
		m, err := settingsDoc(doc)
		if err != nil {
			return err
		}
		return configure(ctx, m)
	})
	sc.Step(`^the gateway is started with:$`, func(ctx context.Context, doc *godog.DocString) error {
		m, err := settingsDoc(doc)
		if err != nil {
			return err
		}
		gherkin.From(ctx).Add(engine.Step{Op: engine.OpControl, Name: "startup", Params: map[string]any{"settings": m}})
		return nil
	})
	sc.Step(`^the remote agents of source `+name+` received (\d+) tasks?$`, func(ctx context.Context, src, n string) error {
		c, _ := strconv.Atoi(n)
		read(ctx, "supply_requests", map[string]any{"source": src}, engine.Match{Pointer: "/result/posts", Matcher: map[string]any{"$len": float64(c)}})
		return nil
	})
	sc.Step(`^the requests the remote agents of source `+name+` received are read$`, func(ctx context.Context, src string) error {
		read(ctx, "supply_requests", map[string]any{"source": src})
		return nil
	})
	sc.Step(`^the trajectory the gateway wrote is read$`, func(ctx context.Context) error {
		read(ctx, "trajectory", map[string]any{})
		return nil
	})
	sc.Step(`^the requests the prompt platform received are read$`, func(ctx context.Context) error {
		read(ctx, "supply_requests", map[string]any{"source": "prompts"})
		return nil
	})
}

// settingsDoc reads a doc string of settings: a JSON object whose keys are
// those of agentkit.Settings (sources, include, exclude, mcp, max_risk, a2a,
// vector, prompts, secrets, …).
func settingsDoc(doc *godog.DocString) (map[string]any, error) {
	var params map[string]any
	if err := json.Unmarshal([]byte(doc.Content), &params); err != nil {
		return nil, fmt.Errorf("the configuration must be a JSON object of settings (sources, include, exclude, mcp, max_risk, approval, a2a, vector, prompts, system, env, secrets, …): %v", err)
	}
	return params, nil
}

// mcpSource reads an MCP source of sifu's stub: whether it is optional or
// required, its name, transport, allow-list, default risk, risk overrides
// and whether it refuses to start.
const mcpSource = `an? (optional |required )?MCP source ` + name + ` over (stdio|sse|http)` +
	`(?: offering only ((?:[a-z_]+(?:, | and )?)+))?(?: with risk "(readonly|mutating|dangerous)")?` +
	`(?: with risk_overrides (\{.*\}))?( that refuses to start)?`

func mcpSettings(opt, src, transport, only, risk, overrides, down string) (map[string]any, error) {
	m := map[string]any{"name": src, "transport": transport}
	if strings.TrimSpace(opt) == "required" {
		m["required"] = true
	}
	if only != "" {
		var tools []any
		for _, t := range strings.FieldsFunc(strings.ReplaceAll(only, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' }) {
			tools = append(tools, t)
		}
		m["tools"] = tools
	}
	if risk != "" {
		m["risk"] = risk
	}
	if overrides != "" {
		var o map[string]any
		if err := json.Unmarshal([]byte(overrides), &o); err != nil {
			return nil, fmt.Errorf("risk_overrides must be a JSON object of tool → risk: %v", err)
		}
		m["risk_overrides"] = o
	}
	if down != "" {
		m["down"] = true
	}
	return m, nil
}

// scriptVar is the variable holding the stub key of a script.
func scriptVar(s string) string { return "script_" + s }

func script(ctx context.Context, nm string, doc *godog.DocString) error {
	var v any
	if err := json.Unmarshal([]byte(doc.Content), &v); err != nil {
		return fmt.Errorf("the script must be JSON: a list of replies or {\"replies\": [...], \"tools\": {...}}: %v", err)
	}
	params, ok := v.(map[string]any)
	if list, isList := v.([]any); isList {
		params, ok = map[string]any{"replies": list}, true
	}
	if !ok {
		return fmt.Errorf("the script must be a list of replies or an object with replies")
	}
	params["name"] = nm
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpAct, Name: "script", Params: params,
		Capture: map[string]string{scriptVar(nm): "/result/key"}})
	return nil
}

// approvalRules reads a table | ref | args | action | (args a JSON object
// or empty) into the assistant's approval rules.
func approvalRules(ctx context.Context, table *godog.Table) error {
	if len(table.Rows) < 2 {
		return fmt.Errorf("the approval rules table needs a header | ref | args | action | and a row per rule")
	}
	head := map[string]int{}
	for i, c := range table.Rows[0].Cells {
		head[strings.TrimSpace(c.Value)] = i
	}
	for _, k := range []string{"ref", "args", "action"} {
		if _, ok := head[k]; !ok {
			return fmt.Errorf("the approval rules table has no %q column (want | ref | args | action |)", k)
		}
	}
	var rules []any
	for _, row := range table.Rows[1:] {
		r := map[string]any{"ref": row.Cells[head["ref"]].Value, "action": row.Cells[head["action"]].Value}
		if a := strings.TrimSpace(row.Cells[head["args"]].Value); a != "" {
			var args map[string]any
			if err := json.Unmarshal([]byte(a), &args); err != nil {
				return fmt.Errorf("rule args %q must be a JSON object of patterns: %v", a, err)
			}
			r["args"] = args
		}
		rules = append(rules, r)
	}
	return configure(ctx, map[string]any{"rules": rules})
}

func configure(ctx context.Context, params map[string]any) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpControl, Name: "configure", Params: params})
	return nil
}

func request(ctx context.Context, params map[string]any) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpAct, Name: "request", Params: params})
	return nil
}

// messageStep sends a message. Its input and user take Go escapes (\n,
// \t, \u3000, ...), so a check can send what a table cell or a quoted
// step text cannot hold; a quoted session is sent as written (made local to
// the check like any other).
func messageStep(ctx context.Context, streamed, input, scr, agent, session, quoted, user string) error {
	body := map[string]any{"input": unescape(input)}
	if session == "" {
		session = quoted
	}
	if session != "" {
		body["session"] = session
	}
	if user != "" {
		body["user"] = unescape(user)
	}
	params := map[string]any{"method": "POST", "path": "/agents/" + agent + "/messages", "json": body}
	if scr != "" {
		params["script"] = scr
	}
	if streamed != "" {
		params["accept"] = "text/event-stream"
	}
	return request(ctx, params)
}

// unescape reads Go escapes in a step's text; text without a backslash, or
// that is not a valid escaped string, is taken as it is.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	if u, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`); err == nil {
		return u
	}
	return s
}

// whileThinking sends a message and, once the stub holds the turn's model
// call, an interrupt or a steer for the same session; the steer releases the
// held call. The outcome is the pair {outcomes: [message, control]}.
func whileThinking(ctx context.Context, input, scr, agent, session, action, note string) error {
	msg := map[string]any{"method": "POST", "path": "/agents/" + agent + "/messages", "script": scr,
		"json": map[string]any{"session": session, "input": input}}
	ctl := map[string]any{"method": "POST", "path": "/agents/" + agent + "/control", "after_held": scr,
		"json": map[string]any{"session": session, "action": "interrupt"}}
	if note != "" {
		ctl["json"] = map[string]any{"session": session, "action": "steer", "message": note}
		ctl["release"] = scr
	}
	b := gherkin.From(ctx)
	b.Add(engine.Step{Op: engine.OpParallel, Steps: []engine.Step{
		{Op: engine.OpAct, Name: "request", Params: msg},
		{Op: engine.OpAct, Name: "request", Params: ctl},
	}})
	last := b.Last()
	for i := range last.Steps {
		last.Steps[i].Source, last.Steps[i].Text = last.Source, []string{"the message", "the control request"}[i]
	}
	return nil
}

// overlapping sends a message and, once the stub holds its model call, a
// second message on the same session: the outcome is {outcomes: [first,
// second]}.
func overlapping(ctx context.Context, first, scrA, agent, session, second, scrB string) error {
	a := map[string]any{"method": "POST", "path": "/agents/" + agent + "/messages", "script": scrA,
		"json": map[string]any{"session": session, "input": first}}
	b := map[string]any{"method": "POST", "path": "/agents/" + agent + "/messages", "script": scrB, "after_held": scrA,
		"json": map[string]any{"session": session, "input": second}}
	bld := gherkin.From(ctx)
	bld.Add(engine.Step{Op: engine.OpParallel, Steps: []engine.Step{
		{Op: engine.OpAct, Name: "request", Params: a},
		{Op: engine.OpAct, Name: "request", Params: b},
	}})
	last := bld.Last()
	for i := range last.Steps {
		last.Steps[i].Source, last.Steps[i].Text = last.Source, []string{"the first message", "the second message"}[i]
	}
	return nil
}

func taskStep(ctx context.Context, task, scr, agent string) error {
	params := map[string]any{"method": "POST", "path": "/a2a/agents/" + agent + "/tasks", "json": map[string]any{"task": task}}
	if scr != "" {
		params["script"] = scr
	}
	return request(ctx, params)
}

func expect(ctx context.Context, m ...engine.Match) {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpExpect, Expect: &engine.Expect{Match: m}})
}

func echoes(ctx context.Context) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpExpect, Capture: map[string]string{"sent_session": "/result/sent/session"}})
	expect(ctx, engine.Match{Pointer: "/result/json/session", Matcher: "${sent_session}"})
	return nil
}

func waits(ctx context.Context, question string) error {
	expect(ctx, engine.Match{Pointer: "/result/status", Matcher: 200.0},
		engine.Match{Pointer: "/result/json/status", Matcher: "waiting"},
		engine.Match{Pointer: "/result/json/question", Matcher: question},
		engine.Match{Pointer: "/result/json/session", Matcher: map[string]any{"$present": true}})
	return nil
}

// approval expects the exact approval question for a tool call whose
// arguments are args plus the ref the stub adds.
func approval(ctx context.Context, desc, args, scr string) error {
	var a map[string]any
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return fmt.Errorf("the arguments must be a JSON object: %v", err)
	}
	a["ref"] = "${" + scriptVar(scr) + "}"
	raw, _ := json.Marshal(a)
	q := "Approval required for an operation:\n" + desc + "\nArguments: " + string(raw) + "\nReply \"yes\" to proceed, anything else to cancel."
	return waits(ctx, q)
}

func done(ctx context.Context, part string) error {
	expect(ctx, engine.Match{Pointer: "/result/status", Matcher: 200.0},
		engine.Match{Pointer: "/result/json/status", Matcher: "done"},
		engine.Match{Pointer: "/result/json/answer", Matcher: map[string]any{"$contains": part}})
	return nil
}

func read(ctx context.Context, view string, params map[string]any, m ...engine.Match) {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpRead, Name: view, Params: params,
		Expect: &engine.Expect{Outcome: "ok", Match: m}})
}

func modelCalls(ctx context.Context, n, scr string) error {
	c, _ := strconv.Atoi(n)
	read(ctx, "model_requests", map[string]any{"script": scr}, engine.Match{Pointer: "/result/count", Matcher: float64(c)})
	return nil
}

func offered(ctx context.Context, list, scr string) error {
	var m []engine.Match
	for _, t := range strings.FieldsFunc(strings.ReplaceAll(list, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' }) {
		m = append(m, engine.Match{Pointer: "/result/tools", Matcher: map[string]any{"$contains": t}})
	}
	read(ctx, "model_requests", map[string]any{"script": scr}, m...)
	return nil
}

func toolText(ctx context.Context, scr, part string) error {
	read(ctx, "model_requests", map[string]any{"script": scr}, engine.Match{Pointer: "/result/tool_text", Matcher: map[string]any{"$contains": part}})
	return nil
}

func notMentions(ctx context.Context, scr, other string) error {
	read(ctx, "model_requests", map[string]any{"script": scr},
		engine.Match{Pointer: "/result/count", Matcher: map[string]any{"$gte": 1.0}},
		engine.Match{Pointer: "/result/requests/*/messages/*/content", Matcher: map[string]any{"$each": map[string]any{"$not_contains": "${" + scriptVar(other) + "}"}}})
	return nil
}

func toolCalls(ctx context.Context, tool, n, scr string) error {
	c, _ := strconv.Atoi(n)
	read(ctx, "tool_calls", map[string]any{"script": scr, "tool": tool}, engine.Match{Pointer: "/result/count", Matcher: float64(c)})
	return nil
}
