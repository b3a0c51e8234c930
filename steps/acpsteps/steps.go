package acpsteps

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/engine/gherkin"
	"github.com/sifu-dev/sifu/steps/outcomesteps"
)

const (
	name = `([a-z][a-z0-9_-]*)`
	list = `([a-z][a-z0-9_-]*(?:, [a-z][a-z0-9_-]*)*(?: and [a-z][a-z0-9_-]*)?)`
)

// Register adds the ACP step vocabulary to a scenario context.
func Register(sc *godog.ScenarioContext) {
	sc.Step(`^an empty folder$`, func() error { return nil })
	sc.Step(`^an ACP collaboration of `+list+`$`, collaboration)
	sc.Step(`^an ACP collaboration (?:of `+list+` )?in phase ([a-z_]+)$`, inPhase)
	sc.Step(`^the folder is initialised by `+list+` with objective "([^"]*)" and gates? (.+)$`, initWith)
	sc.Step(`^the folder is initialised again( with --resume)?$`, initAgain)
	sc.Step(`^`+name+` appends ([a-z_]+)(?: replying to (\d+))?(?: with doc (\S+))?( in compat mode)?$`, appendEvent)
	sc.Step(`^`+name+` and `+name+` append ([a-z_]+) at once replying to (\d+)(?: with doc (\S+))?$`, appendAtOnce)
	sc.Step(`^`+name+` writes a review for seq (\d+)$`, writeReview)
	sc.Step(`^(\S+) gets:$`, appendFile)
	sc.Step(`^(\S+) is:$`, replaceFile)
	sc.Step(`^(\S+) is removed$`, removeFile)
	sc.Step(`^readiness\.md has every question classified$`, func(ctx context.Context) error {
		add(ctx, Write("readiness.md", "replace", ReadinessResolved(DefaultGates)))
		return nil
	})
	sc.Step(`^readiness\.md is ready$`, func(ctx context.Context) error {
		add(ctx, Write("readiness.md", "replace", ReadinessReady(DefaultGates)))
		return nil
	})
	sc.Step(`^conclusion\.md concludes ([a-z_]+)$`, func(ctx context.Context, outcome string) error {
		add(ctx, Write("conclusion.md", "replace", Conclusion(outcome)))
		return nil
	})
	sc.Step(`^the folder is validated( in compat mode)?$`, func(ctx context.Context, compat string) error {
		add(ctx, maybeCompat(Validate(), compat))
		return nil
	})
	sc.Step(`^`+name+` asks for the next action( in compat mode)?$`, func(ctx context.Context, p, compat string) error {
		add(ctx, maybeCompat(Next(p), compat))
		return nil
	})
	sc.Step(`^`+name+` waits for a turn for ([0-9.]+) seconds?$`, func(ctx context.Context, p, secs string) error {
		f, err := strconv.ParseFloat(secs, 64)
		if err != nil || f <= 0 {
			return fmt.Errorf("wait for a positive number of seconds, not %q", secs)
		}
		add(ctx, Wait(p, f))
		return nil
	})
	sc.Step(`^the exit code is (\d+)$`, func(ctx context.Context, code string) error {
		n, _ := strconv.Atoi(code)
		return match(ctx, "/result/exit", float64(n))
	})
	sc.Step(`^(stdout|stderr) says "(.*)"$`, func(ctx context.Context, stream, text string) error {
		return match(ctx, "/result/"+stream, map[string]any{"$contains": text})
	})
	sc.Step(`^the phase is ([a-z_]+) waiting for (nobody|`+list[1:len(list)-1]+`)$`, phaseIs)
	sc.Step(`^the proposal owner is `+name+`$`, func(ctx context.Context, p string) error { return match(ctx, "/result/owner", p) })
	sc.Step(`^the validation passes$`, func(ctx context.Context) error {
		return matches(ctx, map[string]any{"/result/exit": 0.0, "/result/errors": []any{}, "/result/warnings": []any{}})
	})
	sc.Step(`^the validation passes with the warning "(.*)"$`, func(ctx context.Context, msg string) error {
		return matches(ctx, map[string]any{"/result/exit": 1.0, "/result/errors": []any{}, "/result/warnings": map[string]any{"$contains": msg}})
	})
	sc.Step(`^the validation fails with "(.*)"$`, func(ctx context.Context, msg string) error {
		return matches(ctx, map[string]any{"/result/exit": 2.0, "/result/errors": map[string]any{"$contains": msg}})
	})
	sc.Step(`^the validation reports exactly:$`, func(ctx context.Context, doc *godog.DocString) error {
		return match(ctx, "/result/stdout", doc.Content+"\n")
	})
	sc.Step(`^the next action is "(.*)"$`, func(ctx context.Context, text string) error { return match(ctx, "/result/next_action", text) })
	sc.Step(`^the folder is unchanged$`, func(ctx context.Context) error { return match(ctx, "/result/changed", false) })
	sc.Step(`^the event seqs are (\[.*\])$`, func(ctx context.Context, raw string) error {
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			return fmt.Errorf("the seqs must be a JSON list such as [1, 2, 3]: %v", err)
		}
		return match(ctx, "/result/seqs", v)
	})
	sc.Step(`^the rejection says "(.*)"$`, func(ctx context.Context, text string) error {
		return matches(ctx, map[string]any{"/rejection/message": map[string]any{"$contains": text}})
	})
	outcomesteps.Register(sc)
}

func add(ctx context.Context, s engine.Step) { gherkin.From(ctx).Add(s) }

func match(ctx context.Context, ptr string, v any) error {
	add(ctx, engine.Step{Op: engine.OpExpect, Expect: &engine.Expect{Match: []engine.Match{{Pointer: ptr, Matcher: v}}}})
	return nil
}

func matches(ctx context.Context, m map[string]any) error {
	e := &engine.Expect{}
	for _, ptr := range []string{"/result/exit", "/result/errors", "/result/warnings", "/rejection/message"} {
		if v, ok := m[ptr]; ok {
			e.Match = append(e.Match, engine.Match{Pointer: ptr, Matcher: v})
		}
	}
	add(ctx, engine.Step{Op: engine.OpExpect, Expect: e})
	return nil
}

var listSep = regexp.MustCompile(`, | and `)

// Names splits "a, b and c" into its names.
func Names(s string) []string { return listSep.Split(s, -1) }

func collaboration(ctx context.Context, who string) error {
	steps, err := Preset("drafting", Names(who), nil)
	if err != nil {
		return err
	}
	for _, s := range steps {
		add(ctx, s)
	}
	return nil
}

func inPhase(ctx context.Context, who, phase string) error {
	var names []string
	if who != "" {
		names = Names(who)
	}
	steps, err := Preset(phase, names, nil)
	if err != nil {
		return err
	}
	for _, s := range steps {
		add(ctx, s)
	}
	return nil
}

var quotedText = regexp.MustCompile(`"([^"]*)"`)

func initWith(ctx context.Context, who, objective, gates string) error {
	var gs []string
	for _, m := range quotedText.FindAllStringSubmatch(gates, -1) {
		gs = append(gs, m[1])
	}
	var names []string
	for _, n := range Names(who) {
		if n != "nobody" {
			names = append(names, n)
		}
	}
	add(ctx, Init(names, objective, gs, false))
	return nil
}

func initAgain(ctx context.Context, resume string) error {
	add(ctx, Init(DefaultParticipants, DefaultObjective, DefaultGates, resume != ""))
	return nil
}

func maybeCompat(s engine.Step, flag string) engine.Step {
	if strings.TrimSpace(flag) != "" {
		return Compat(s)
	}
	return s
}

func appendEvent(ctx context.Context, from, event, replyTo, doc, compat string) error {
	n, _ := strconv.Atoi(replyTo)
	add(ctx, maybeCompat(Append(from, event, n, doc), compat))
	return nil
}

func appendAtOnce(ctx context.Context, a, b, event, replyTo, doc string) error {
	n, _ := strconv.Atoi(replyTo)
	b1 := gherkin.From(ctx)
	b1.Add(engine.Step{Op: engine.OpParallel, Steps: AtOnce([]engine.Step{Append(a, event, n, doc), Append(b, event, n, doc)})})
	last := b1.Last()
	for i := range last.Steps {
		last.Steps[i].Source = last.Source
		last.Steps[i].Text = fmt.Sprint(last.Steps[i].Params["participant"]) + " appends " + event
	}
	return nil
}

func writeReview(ctx context.Context, p, seq string) error {
	n, _ := strconv.Atoi(seq)
	add(ctx, Write("review.md", "append", Review(p, n)))
	return nil
}

func appendFile(ctx context.Context, file string, doc *godog.DocString) error {
	add(ctx, Write(file, "append", doc.Content+"\n"))
	return nil
}

func replaceFile(ctx context.Context, file string, doc *godog.DocString) error {
	add(ctx, Write(file, "replace", doc.Content+"\n"))
	return nil
}

func removeFile(ctx context.Context, file string) error {
	add(ctx, Write(file, "remove", ""))
	return nil
}

func phaseIs(ctx context.Context, phase, who string) error {
	waiting := []any{}
	if who != "nobody" {
		for _, n := range Names(who) {
			waiting = append(waiting, n)
		}
	}
	add(ctx, engine.Step{Op: engine.OpExpect, Expect: &engine.Expect{Match: []engine.Match{
		{Pointer: "/result/phase", Matcher: phase}, {Pointer: "/result/waitingFor", Matcher: waiting}}}})
	return nil
}
