package agentkitref

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// ErrSuspended unwinds a turn that waits for an answer it does not have yet.
var ErrSuspended = errors.New("turn suspended: waiting for an answer")

// The fixed texts a turn produces.
const (
	interruptedAnswer = "已按你的要求中断当前任务。"
	manualCheckText   = "操作状态未知:上次执行时中断,需要人工核对,本次不再执行。"
	approveReply      = `Reply "yes" to proceed, anything else to cancel.`
)

// approvalQuestion is the exact question asked before a gated operation.
func approvalQuestion(desc, args string) string {
	return "Approval required for an operation:\n" + desc + "\nArguments: " + args + "\n" + approveReply
}

// approves reports whether a reply to an approval question approves it.
// The words are trimmed of surrounding whitespace, Unicode spaces (an
// ideographic space, a no-break space) included.
func approves(reply string, untrimmedCJK bool) bool {
	switch strings.ToLower(strings.TrimSpace(reply)) {
	case "y", "yes", "ok", "approve":
		return true
	}
	cjk := strings.TrimSpace(reply)
	if untrimmedCJK {
		cjk = reply
	}
	switch cjk {
	case "同意", "是", "批准", "好":
		return true
	}
	return false
}

// capability is one tool the model may call.
type capability struct {
	ref         Ref
	name        string // model-visible
	description string
	risk        int // 0 readonly, 1 mutating, 2 dangerous
	tool        *HTTPTool
	skill       *skillRT  // a namespace's skill instead of an HTTP tool
	mcp         *mcpTool  // an MCP server's tool instead of an HTTP tool
	exec        *execTool // a script runner of an exec source
	// run is one of the gateway's own tools (the source local), a remote
	// agent or a vector source's search instead; delivered is false when
	// no answer came back.
	run func(ctx context.Context, args string) (result string, delivered bool)
}

// interactor answers the questions of a turn.
type interactor interface {
	ask(question string) (string, error)
}

// noChannel is the interactor of paths that cannot suspend (SSE, A2A, or no
// suspend store): questions fail and approvals are denied.
type noChannel struct{}

func (noChannel) ask(string) (string, error) { return "", io.EOF }

// failing is noChannel gone wrong: a question fails the whole turn.
type failing struct{}

func (failing) ask(string) (string, error) { return "", errors.New("no interactive channel") }

// suspending records questions in the journal and unwinds the turn until an
// answer has been written for them.
type suspending struct {
	j       *journal
	turn    string
	waiting string // the id of the question the turn stopped at
	asked   string
	// anyQuestion keys answers by turn alone (the divergent-answer fault);
	// byTool keys approvals by the tool alone (the approval-by-tool fault).
	anyQuestion, byTool bool
}

func interactionID(turn, question string) string {
	h := sha256.New()
	h.Write([]byte(turn))
	h.Write([]byte{0})
	h.Write([]byte(question))
	return turn + "-" + hex.EncodeToString(h.Sum(nil)[:8])
}

func (s *suspending) ask(question string) (string, error) {
	id := interactionID(s.turn, question)
	switch {
	case s.anyQuestion:
		id = interactionID(s.turn, "")
	case s.byTool:
		id = interactionID(s.turn, strings.SplitN(question, "\nArguments:", 2)[0])
	}
	it, ok, err := s.j.interaction(s.turn, id)
	if err != nil {
		return "", err
	}
	if ok && it.Answered {
		return it.Answer, nil
	}
	if err := s.j.putInteraction(s.turn, id, interaction{Question: question}); err != nil {
		return "", err
	}
	s.waiting, s.asked = id, question
	return "", ErrSuspended
}

// turn is one run of the tool-calling loop.
type turn struct {
	// abort, when set by a tool call, ends the turn with it.
	abort error
	// toolSeq counts the turn's tool calls (a direct deliverable counts
	// only when it came from the last).
	toolSeq int
	g       *Gateway
	agent   *agentRT
	session string
	id      string
	ix      interactor
	journal *journal // nil: effects are not logged
	onDelta func(string) error
	steer   func() []string
	calls   int
	// repeats counts, per tool and arguments, the calls in a row that gave
	// the same result (the duplicate-call breaker).
	repeats map[string]*repeat
	// input is the turn's input ({$input} of skills); deliverables are the
	// skill results that go with the answer.
	input        string
	deliverables []deliverable
	// comp is the turn's compaction so far (loop.compaction).
	comp compaction
}

// repeat is the breaker's state for one tool and arguments.
type repeat struct {
	count int
	last  string
}

// dedupAfter is how many identical calls with identical results run before
// the next ones are answered from the last result.
const dedupAfter = 2

// invokeOnce runs a tool call through the duplicate-call breaker: the third
// call with the same arguments as two that gave the same result is not
// executed; the model gets the last result back with a warning.
func (t *turn) invokeOnce(ctx context.Context, c *capability, args string) (string, bool) {
	if t.repeats == nil {
		t.repeats = map[string]*repeat{}
	}
	key := c.ref.Key() + "\x00" + args
	r := t.repeats[key]
	if r != nil && r.count >= dedupAfter && !has(t.g.faults, FaultNoDedup) {
		r.count++
		return r.last + fmt.Sprintf("\n\n[重复调用已拦截] 这个调用已经用同样的参数执行了 %d 次,结果没有变化,这次没有执行,上面是上次的结果。请换参数或换一个能力。", r.count-1), true
	}
	out, delivered := t.timed(ctx, c, args)
	if !delivered {
		return out, false
	}
	if r != nil && out == r.last {
		r.count++
		return out + "\n\n[重复调用] 参数和上一次完全相同;请基于已有结果继续,需要别的信息就换参数。", true
	}
	t.repeats[key] = &repeat{count: 1, last: out}
	return out, true
}

// run loops model → tools until the model answers without tool calls.
func (t *turn) run(ctx context.Context, history []message, input string) (string, error) {
	t.input = input
	msgs := []message{{Role: "system", Content: t.agent.system}}
	msgs = append(msgs, history...)
	msgs = append(msgs, message{Role: "user", Content: input})
	specs := t.agent.specs()
	rounds := 12
	if r := t.agent.cfg.Loop.MaxRounds; r != nil && *r > 0 {
		rounds = *r
	}
	for round := 0; round < rounds; round++ {
		if max := t.agent.cfg.Budget.MaxModelCalls; max > 0 && t.calls >= max && !has(t.g.faults, FaultNoBudget) {
			return "", fmt.Errorf("[NodeRunError] budget exhausted: model calls reached %d", max)
		}
		t.calls++
		end := t.trace("ChatModel", "ChatModel")
		reply, err := t.g.completeRetrying(ctx, t.agent, t.withRecall(ctx, t.withPlan(t.compacted(ctx, msgs))), specs, t.onDelta)
		end(err)
		if err != nil {
			return "", err
		}
		if len(reply.ToolCalls) == 0 {
			return t.structured(ctx, reply.Content)
		}
		reply.Role = "assistant"
		msgs = append(msgs, reply)
		for _, call := range reply.ToolCalls {
			end := t.trace("Tool", call.Function.Name)
			result, err := t.call(ctx, call)
			end(err)
			if err != nil {
				return "", err
			}
			if n := call.Function.Name; n != "ask_user" && n != "read_result" {
				result = t.digest(ctx, n, result)
			}
			if t.steer != nil {
				for _, note := range t.steer() {
					result += "\n[用户插话] " + note
				}
			}
			msgs = append(msgs, message{Role: "tool", ToolCallID: call.ID, Content: result})
		}
	}
	return "", fmt.Errorf("[NodeRunError] max rounds reached (%d)", rounds)
}

// call runs one tool call and returns the text the model sees.
func (t *turn) call(ctx context.Context, call toolCall) (string, error) {
	t.toolSeq++
	args := call.Function.Arguments
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	if call.Function.Name == "ask_user" && t.agent.askUser {
		var a struct {
			Question string `json:"question"`
		}
		_ = json.Unmarshal([]byte(args), &a)
		answer, err := t.ix.ask(a.Question)
		if _, fails := t.ix.(failing); errors.Is(err, ErrSuspended) || fails {
			return "", err
		}
		if err != nil {
			return "提问失败:" + err.Error(), nil
		}
		return "用户回答:" + answer, nil
	}
	c := t.agent.byName[call.Function.Name]
	if c == nil && !t.agent.noTodo {
		if res, ok := t.todo(call.Function.Name, args); ok {
			return res, nil
		}
	}
	if c == nil && t.agent.cfg.Memory.ExposeTools {
		if res, ok := t.memory(ctx, call.Function.Name, args); ok {
			return res, nil
		}
	}
	if c == nil && call.Function.Name == "read_result" && t.agent.digestOver() > 0 {
		return t.readResult(args), nil
	}
	if c == nil {
		return fmt.Sprintf("工具调用失败:没有名为 %s 的工具", call.Function.Name), nil
	}
	if c.skill != nil && c.risk == 0 {
		return t.runSkill(ctx, c, args, t.input)
	}
	if c.risk == 0 || (c.mcp != nil && has(t.g.faults, FaultMCPNoApproval)) {
		res, _ := t.invokeOnce(ctx, c, args)
		if t.abort != nil {
			return "", t.abort
		}
		return res, nil
	}
	switch t.decide(c, args) {
	case "deny":
		return fmt.Sprintf("操作未执行:策略拒绝了 %s 的本次调用。", c.name), nil
	case "ask":
		remembered := t.agent.cfg.Approval.Remember && has(t.g.faults, FaultRememberPlain)
		key := t.agent.cfg.Name + "\x1f" + t.session + "\x1f" + c.ref.Key()
		if v, ok := t.g.plainAnswers.Load(key); ok && remembered {
			if v.(bool) {
				break
			}
			return fmt.Sprintf("操作未执行:用户拒绝了 %s 的本次调用。", c.name), nil
		}
		shown := args
		if has(t.g.faults, FaultCanonicalArgs) {
			var v any
			if json.Unmarshal([]byte(args), &v) == nil {
				b, _ := json.Marshal(v)
				shown = string(b)
			}
		}
		q := approvalQuestion(c.description, shown)
		if has(t.g.faults, FaultApprovalText) {
			q = "Approve " + c.name + " with " + args + "? (yes/no)"
		}
		reply, err := t.ix.ask(q)
		if errors.Is(err, ErrSuspended) {
			return "", err
		}
		ok := approves(reply, has(t.g.faults, FaultCJKUntrimmed))
		switch {
		case has(t.g.faults, FaultLenientApprove):
			ok = true
		case has(t.g.faults, FaultStrictApprove):
			ok = reply == "yes"
		}
		if remembered && err == nil {
			t.g.plainAnswers.Store(key, ok)
		}
		if err != nil || !ok {
			if has(t.g.faults, FaultDenyEndsTurn) {
				return "", fmt.Errorf("denied: %s", c.name)
			}
			return fmt.Sprintf("操作未执行:用户拒绝了 %s 的本次调用。", c.name), nil
		}
	}
	if c.skill != nil {
		return t.runSkill(ctx, c, args, t.input)
	}
	return t.effect(ctx, c, args)
}

// decide applies the approval mode and rules: allow, ask or deny.
func (t *turn) decide(c *capability, args string) string {
	switch t.agent.cfg.Approval.Mode {
	case "auto":
		if has(t.g.faults, FaultAutoAsks) {
			return "ask"
		}
		return "allow"
	case "deny":
		return "deny"
	}
	var given map[string]any
	_ = json.Unmarshal([]byte(args), &given)
	var raw map[string]json.RawMessage
	_ = json.Unmarshal([]byte(args), &raw)
	decision := "ask"
	if c.mcp != nil && has(t.g.faults, FaultMCPRulesIgnored) {
		return decision
	}
	for _, r := range t.agent.cfg.rules {
		if r.ref != nil && !r.ref.Match(c.ref) {
			continue
		}
		ok := true
		for k, pat := range r.args {
			if has(t.g.faults, FaultPolicyIgnoresArgs) {
				break
			}
			v, present := given[k]
			text := fmt.Sprint(v)
			if has(t.g.faults, FaultPolicyRawArgs) {
				text = strings.Trim(string(raw[k]), `"`)
			}
			if !present || !segMatch(pat, text) {
				ok = false
				break
			}
		}
		if ok {
			decision = r.action
			if !has(t.g.faults, FaultPolicyLastMatch) {
				break
			}
		}
	}
	if decision == "deny" && has(t.g.faults, FaultPolicyDenyAsks) {
		return "ask"
	}
	return decision
}

// effect runs a mutating call at most once per turn: the journal holds an
// in-flight marker while it runs and its result afterwards.
func (t *turn) effect(ctx context.Context, c *capability, args string) (string, error) {
	if t.journal == nil || (c.mcp != nil && has(t.g.faults, FaultMCPEffectTwice)) {
		res, _ := t.invokeOnce(ctx, c, args)
		return res, nil
	}
	h := sha256.New()
	h.Write([]byte(c.ref.Key()))
	h.Write([]byte{0})
	if !has(t.g.faults, FaultEffectKeyByTool) {
		h.Write([]byte(args))
	}
	key := t.id + hex.EncodeToString(h.Sum(nil)[:8])
	prev, ok, err := t.journal.effect(t.id, key)
	if err != nil {
		return "", err
	}
	if ok && prev.State == "done" && !has(t.g.faults, FaultEffectTwice) {
		return prev.Result, nil
	}
	if ok && prev.State == "inflight" && !has(t.g.faults, FaultInflightReexecuted) {
		return manualCheckText, nil
	}
	if err := t.journal.putEffect(t.id, key, effect{State: "inflight"}); err != nil {
		return fmt.Sprintf("操作未执行:无法记录 %s 的执行标记。", c.name), nil
	}
	res, delivered := t.invokeOnce(ctx, c, args)
	if delivered {
		if err := t.journal.putEffect(t.id, key, effect{State: "done", Result: res}); err != nil {
			return "", err
		}
	}
	return res, nil
}

// invoke calls an HTTP tool. A tool accepts only its declared parameters
// and needs its required ones: otherwise the model is told so and the
// endpoint is not called. path parameters fill {name} in the URL, query
// ones the query string, body ones a JSON body (by default query for GET,
// body otherwise). An answer of 400 or more is a result the model sees,
// not a failure. delivered is false when no answer came back, so whether
// the effect happened is unknown.
func (g *Gateway) invoke(ctx context.Context, c *capability, args string) (result string, delivered bool) {
	switch {
	case c.mcp != nil:
		return g.callMCP(ctx, c, args)
	case c.exec != nil:
		return c.exec.run(ctx, args, g.faults), true
	case c.run != nil:
		return c.run(ctx, args)
	}
	t := c.tool
	var given map[string]any
	if strings.TrimSpace(args) != "" {
		if err := json.Unmarshal([]byte(args), &given); err != nil {
			return "工具调用失败:parse args: " + err.Error(), true
		}
	}
	if !has(g.faults, FaultUndeclaredArgs) {
		var unknown, missing []string
		for _, name := range sortedKeys(given) {
			if _, ok := t.Params[name]; !ok {
				unknown = append(unknown, name)
			}
		}
		if len(unknown) > 0 {
			return fmt.Sprintf("invalid arguments: undeclared parameter(s) %s; this tool only accepts its declared parameters", strings.Join(unknown, ", ")), true
		}
		for _, name := range sortedKeys(t.Params) {
			if _, ok := given[name]; t.Params[name].Required && !ok {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("invalid arguments: missing required parameter(s) %s", strings.Join(missing, ", ")), true
		}
	}
	target := t.URL
	query := url.Values{}
	body := map[string]any{}
	for _, name := range sortedKeys(given) {
		in := t.Params[name].In
		if has(g.faults, FaultArgsInBody) {
			in = "body"
		}
		if in == "" {
			in = "body"
			if t.Method == http.MethodGet {
				in = "query"
			}
		}
		switch in {
		case "path":
			escape := url.PathEscape
			if has(g.faults, FaultPathQueryEscape) {
				escape = url.QueryEscape
			}
			target = strings.ReplaceAll(target, "{"+name+"}", escape(fmt.Sprint(given[name])))
		case "query":
			query.Set(name, fmt.Sprint(given[name]))
		default:
			body[name] = given[name]
		}
	}
	if i := strings.IndexByte(target, '{'); i >= 0 {
		if j := strings.IndexByte(target[i:], '}'); j > 0 {
			return fmt.Sprintf("invalid arguments: the URL placeholder %s has no value (declare the parameter with in: path and pass it)", target[i:i+j+1]), true
		}
	}
	if len(query) > 0 {
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		target += sep + query.Encode()
	}
	var reader io.Reader
	if len(body) > 0 {
		raw, _ := json.Marshal(body)
		reader = bytes.NewReader(raw)
	}
	timeout := time.Duration(t.TimeoutSec) * time.Second
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, t.Method, target, reader)
	if err != nil {
		return "工具调用失败:" + err.Error(), false
	}
	if reader != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range t.Headers {
		req.Header.Set(k, v)
	}
	resp, err := g.http.Do(req)
	if err != nil {
		return "工具调用失败:" + err.Error(), false
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "工具调用失败:" + err.Error(), false
	}
	out := string(raw)
	if r := []rune(out); t.MaxRespLen > 0 && (len(r) > t.MaxRespLen || (len(r) == t.MaxRespLen && has(g.faults, FaultTruncateAtLimit))) {
		out = string(r[:t.MaxRespLen]) + "...(truncated)"
		if has(g.faults, FaultTruncateBytes) {
			out = strings.ToValidUTF8(string(raw[:t.MaxRespLen]), "\uFFFD") + "...(truncated)"
		}
	}
	if resp.StatusCode >= 400 && (resp.StatusCode != 400 || !has(g.faults, FaultStatus400OK)) {
		if has(g.faults, FaultToolErrorFails) {
			return "工具调用失败", true
		}
		return fmt.Sprintf("HTTP %d: %s", resp.StatusCode, out), true
	}
	return out, true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
