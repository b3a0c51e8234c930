package agentkitref

import (
	"context"
	"fmt"
	"time"
)

// defaultToolTimeout is the time limit of one tool call when
// reliability.tool_timeout is zero or unset.
const defaultToolTimeout = 5 * time.Minute

// toolTimeout is the agent's reliability.tool_timeout, else app.yaml's:
// zero means the default, a negative value no limit.
func (t *turn) toolTimeout() time.Duration {
	d := time.Duration(0)
	switch {
	case t.agent.cfg.Reliability.ToolTimeout != nil:
		d = time.Duration(*t.agent.cfg.Reliability.ToolTimeout)
	case t.g.app.Reliability.ToolTimeout != nil:
		d = time.Duration(*t.g.app.Reliability.ToolTimeout)
	}
	if d == 0 {
		d = defaultToolTimeout
	}
	return d
}

// timed runs one tool call under the tool time limit. A call that runs
// over it is abandoned and answered, to the model, with a result saying
// so: the turn goes on. The turn's own end still ends the call.
func (t *turn) timed(ctx context.Context, c *capability, args string) (string, bool) {
	d := t.toolTimeout()
	if d < 0 || has(t.g.faults, FaultToolTimeoutIgnored) {
		return t.g.invoke(ctx, c, args)
	}
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type answer struct {
		out       string
		delivered bool
	}
	done := make(chan answer, 1)
	go func() {
		out, delivered := t.g.invoke(cctx, c, args)
		done <- answer{out, delivered}
	}()
	select {
	case a := <-done:
		return a.out, a.delivered
	case <-cctx.Done():
		if ctx.Err() != nil {
			return "工具调用失败:" + ctx.Err().Error(), true
		}
		if has(t.g.faults, FaultToolTimeoutFailsTurn) {
			t.abort = fmt.Errorf("tool %s: %w", c.ref.Name, cctx.Err())
			return "", true
		}
		return fmt.Sprintf("操作未完成:%s 在 %s 内没有返回,已放弃这次调用;可以换个参数或换条路。", c.ref.Name, d), true
	}
}
