package agentkit

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
func approves(reply string) bool {
	switch strings.ToLower(strings.TrimSpace(reply)) {
	case "y", "yes", "ok", "approve":
		return true
	}
	switch reply {
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
	// anyQuestion keys answers by turn alone (the divergent-answer fault).
	anyQuestion bool
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
	if s.anyQuestion {
		id = interactionID(s.turn, "")
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
	g       *Gateway
	agent   *agentRT
	session string
	id      string
	ix      interactor
	journal *journal // nil: effects are not logged
	onDelta func(string) error
	steer   func() []string
	calls   int
}

// run loops model → tools until the model answers without tool calls.
func (t *turn) run(ctx context.Context, history []message, input string) (string, error) {
	msgs := []message{{Role: "system", Content: t.agent.system}}
	msgs = append(msgs, history...)
	msgs = append(msgs, message{Role: "user", Content: input})
	specs := t.agent.specs()
	rounds := t.agent.cfg.Loop.MaxRounds
	if rounds <= 0 {
		rounds = 20
	}
	for round := 0; round < rounds; round++ {
		if max := t.agent.cfg.Budget.MaxModelCalls; max > 0 && t.calls >= max && !has(t.g.faults, FaultNoBudget) {
			return "", fmt.Errorf("[NodeRunError] budget exhausted: model calls reached %d", max)
		}
		t.calls++
		reply, err := t.g.model.complete(ctx, msgs, specs, t.onDelta)
		if err != nil {
			return "", err
		}
		if len(reply.ToolCalls) == 0 {
			return reply.Content, nil
		}
		reply.Role = "assistant"
		msgs = append(msgs, reply)
		for _, call := range reply.ToolCalls {
			result, err := t.call(ctx, call)
			if err != nil {
				return "", err
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
	if c == nil {
		return fmt.Sprintf("工具调用失败:没有名为 %s 的工具", call.Function.Name), nil
	}
	if c.risk == 0 {
		res, _ := t.g.invoke(ctx, c, args)
		return res, nil
	}
	switch t.decide(c, args) {
	case "deny":
		return fmt.Sprintf("操作未执行:策略拒绝了 %s 的本次调用。", c.name), nil
	case "ask":
		q := approvalQuestion(c.description, args)
		if has(t.g.faults, FaultApprovalText) {
			q = "Approve " + c.name + " with " + args + "? (yes/no)"
		}
		reply, err := t.ix.ask(q)
		if errors.Is(err, ErrSuspended) {
			return "", err
		}
		ok := approves(reply)
		switch {
		case has(t.g.faults, FaultLenientApprove):
			ok = true
		case has(t.g.faults, FaultStrictApprove):
			ok = reply == "yes"
		}
		if err != nil || !ok {
			if has(t.g.faults, FaultDenyEndsTurn) {
				return "", fmt.Errorf("denied: %s", c.name)
			}
			return fmt.Sprintf("操作未执行:用户拒绝了 %s 的本次调用。", c.name), nil
		}
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
	for _, r := range t.agent.cfg.rules {
		if !r.ref.Match(c.ref) {
			continue
		}
		ok := true
		for k, pat := range r.args {
			v, present := given[k]
			if !present || !segMatch(pat, fmt.Sprint(v)) {
				ok = false
				break
			}
		}
		if ok {
			return r.action
		}
	}
	return "ask"
}

// effect runs a mutating call at most once per turn: the journal holds an
// in-flight marker while it runs and its result afterwards.
func (t *turn) effect(ctx context.Context, c *capability, args string) (string, error) {
	if t.journal == nil {
		res, _ := t.g.invoke(ctx, c, args)
		return res, nil
	}
	h := sha256.New()
	h.Write([]byte(c.ref.Key()))
	h.Write([]byte{0})
	h.Write([]byte(args))
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
	res, delivered := t.g.invoke(ctx, c, args)
	if delivered {
		if err := t.journal.putEffect(t.id, key, effect{State: "done", Result: res}); err != nil {
			return "", err
		}
	}
	return res, nil
}

// invoke calls an HTTP tool. delivered is false when no answer came back,
// so whether the effect happened is unknown.
func (g *Gateway) invoke(ctx context.Context, c *capability, args string) (result string, delivered bool) {
	method := strings.ToUpper(c.tool.Method)
	if method == "" {
		method = http.MethodPost
	}
	target := c.tool.URL
	var body io.Reader
	if method == http.MethodGet {
		var m map[string]any
		_ = json.Unmarshal([]byte(args), &m)
		q := url.Values{}
		for _, k := range sortedKeys(m) {
			q.Set(k, fmt.Sprint(m[k]))
		}
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
	} else {
		body = bytes.NewReader([]byte(args))
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return "工具调用失败:" + err.Error(), false
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
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
	if resp.StatusCode >= 400 {
		return fmt.Sprintf("工具调用失败:HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(raw))), true
	}
	return string(raw), true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
