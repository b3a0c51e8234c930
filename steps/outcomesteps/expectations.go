// Package expectations holds the Gherkin steps every suite shares: they
// judge the last answer (success, rejection, JSON pointer matchers), remember
// values, and compare answers. Like all step definitions they only compile
// steps into sifu's step model.
package outcomesteps

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/cucumber/godog"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/engine/gherkin"
)

// Register adds the shared expectation steps to a scenario context.
func Register(sc *godog.ScenarioContext) {
	sc.Step(`^it succeeds$`, succeeds)
	sc.Step(`^it is rejected(?: with reason "([^"]*)")?(?: and next step "([^"]*)")?$`, rejected)
	sc.Step(`^(/\S*) is (.+)$`, pointerIs)
	sc.Step(`^(/\S*) matches (.+)$`, pointerMatches)
	sc.Step(`^the answer matches:$`, answerMatches)
	sc.Step(`^remember (/\S*) as ([A-Za-z_][A-Za-z0-9_]*)$`, rememberPointer)
	sc.Step(`^remember the answer as ([A-Za-z_][A-Za-z0-9_]*)$`, rememberAnswer)
	sc.Step(`^the answer is indistinguishable from ([A-Za-z_][A-Za-z0-9_]*)(?: apart from (.+))?$`, indistinguishable)
}

func expect(ctx context.Context, e engine.Expect) {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpExpect, Expect: &e})
}

func succeeds(ctx context.Context) error {
	expect(ctx, engine.Expect{Outcome: "ok"})
	return nil
}

func rejected(ctx context.Context, reason, next string) error {
	expect(ctx, engine.Expect{Outcome: "rejected", Reason: reason, NextStep: next})
	return nil
}

// literal parses a matcher written in a step: JSON, or the words absent and
// present.
func literal(text string) (any, error) {
	switch strings.TrimSpace(text) {
	case "absent":
		return map[string]any{"$absent": true}, nil
	case "present":
		return map[string]any{"$present": true}, nil
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("%q is not a JSON value (quote strings: \"text\"), nor absent or present", text)
	}
	return v, nil
}

func pointerIs(ctx context.Context, ptr, value string) error {
	v, err := literal(value)
	if err != nil {
		return err
	}
	expect(ctx, engine.Expect{Match: []engine.Match{{Pointer: ptr, Matcher: v}}})
	return nil
}

func pointerMatches(ctx context.Context, ptr, matcher string) error {
	v, err := literal(matcher)
	if err != nil {
		return err
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("matches needs an operator object such as {\"$len\": 2}; use \"is\" for a plain value")
	}
	expect(ctx, engine.Expect{Match: []engine.Match{{Pointer: ptr, Matcher: v}}})
	return nil
}

func answerMatches(ctx context.Context, table *godog.Table) error {
	var e engine.Expect
	for i, row := range table.Rows {
		if len(row.Cells) != 2 {
			return fmt.Errorf("table row %d needs two cells: | pointer | value |", i+1)
		}
		ptr, val := row.Cells[0].Value, row.Cells[1].Value
		if i == 0 && ptr == "pointer" {
			continue
		}
		v, err := literal(val)
		if err != nil {
			return fmt.Errorf("table row %d: %w", i+1, err)
		}
		e.Match = append(e.Match, engine.Match{Pointer: ptr, Matcher: v})
	}
	expect(ctx, e)
	return nil
}

func rememberPointer(ctx context.Context, ptr, name string) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpExpect, Capture: map[string]string{name: ptr}})
	return nil
}

func rememberAnswer(ctx context.Context, name string) error {
	gherkin.From(ctx).Add(engine.Step{Op: engine.OpExpect, Capture: map[string]string{name: ""}})
	return nil
}

var quoted = regexp.MustCompile(`"([^"]*)"`)

func indistinguishable(ctx context.Context, name, apart string) error {
	e := engine.Expect{SameAs: name}
	for _, m := range quoted.FindAllStringSubmatch(apart, -1) {
		e.Mask = append(e.Mask, m[1])
	}
	expect(ctx, e)
	return nil
}
