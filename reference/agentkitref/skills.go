package agentkitref

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// deliverable is a skill result that goes with the answer as it is: the
// model only chooses which ones (by citing #id) and introduces them.
type deliverable struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Source  string `json:"source"`
	Content string `json:"content"`
	mode    string // attach (when cited), always or direct
	seq     int    // the turn's tool call that made it
}

// direct is the answer of a finished turn: the raw result of its one
// direct deliverable when that came from the turn's last tool call (not
// in a stream, whose text is already out), else the model's answer. The
// deliverable is then the answer, so it does not go with it.
func (t *turn) direct(answer string) string {
	if t.onDelta != nil || has(t.g.faults, FaultDirectIgnored) {
		return answer
	}
	var only *deliverable
	for i, d := range t.deliverables {
		if d.mode != "direct" {
			continue
		}
		if only != nil {
			return answer
		}
		only = &t.deliverables[i]
	}
	if only == nil || (only.seq != t.toolSeq && !has(t.g.faults, FaultDirectAnyCall)) {
		return answer
	}
	return only.Content
}

var citation = regexp.MustCompile(`#(d\d+)`)

// runSkill runs an assembled skill: its steps in declaration order (a
// topological order, since a step may only need earlier ones), each tool
// step with its args template filled from the call's arguments and the
// results of the steps before it. A skill that delivers records its result
// as a deliverable and tells the model how to cite it.
func (t *turn) runSkill(ctx context.Context, c *capability, args, input string) (string, error) {
	s := c.skill
	var given map[string]any
	_ = json.Unmarshal([]byte(args), &given)
	vals := map[string]string{"$input": input, "$user_input": input, "$user_id": ""}
	for k, v := range given {
		if str, ok := v.(string); ok {
			vals[k] = str
		} else {
			vals[k] = fmt.Sprint(v)
		}
	}
	results := make([]string, len(s.steps))
	for i, st := range s.steps {
		tool := s.tools[i]
		if tool == nil {
			results[i] = ""
			continue
		}
		rendered := fill(stepArgs(st.Args), vals)
		out, _ := t.invokeOnce(ctx, tool, rendered)
		results[i] = out
		vals[st.Name] = out
	}
	out := results[s.output]
	mode := s.deliver
	switch {
	case mode == "" && has(t.g.faults, FaultEvidenceDelivered):
		mode = "attach"
	case mode == "attach" && has(t.g.faults, FaultAttachAlways):
		mode = "always"
	}
	if mode == "" || has(t.g.faults, FaultNoDeliverables) {
		return out, nil
	}
	d := deliverable{ID: fmt.Sprintf("d%02d", len(t.deliverables)+1), Title: title(s.ref.Name, out), Source: s.ref.String(), Content: out, mode: mode, seq: t.toolSeq}
	t.deliverables = append(t.deliverables, d)
	return fmt.Sprintf("[deliverable #%s | %s] kept as it is: cite #%s in the final answer and the user gets it verbatim; do not repeat it.\n%s", d.ID, s.ref.Name, d.ID, out), nil
}

// stepArgs is a step's args as one template text: a scalar as it is, a
// mapping as a JSON object whose values are templates.
func stepArgs(v any) string {
	switch a := v.(type) {
	case nil:
		return ""
	case string:
		return a
	case map[string]any:
		m := map[string]string{}
		for k, x := range a {
			m[k] = fmt.Sprint(x)
		}
		raw, _ := json.Marshal(m)
		return string(raw)
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// fill replaces the {name} placeholders of a template with their values.
func fill(tmpl string, vals map[string]string) string {
	return placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		if v, ok := vals[m[1:len(m)-1]]; ok {
			raw, _ := json.Marshal(v)
			return strings.Trim(string(raw), `"`) // safe inside a JSON string
		}
		return m
	})
}

// title is the first markdown heading of a text, or the fallback.
func title(fallback, text string) string {
	for _, line := range strings.SplitN(text, "\n", 8) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			if t := strings.TrimSpace(strings.TrimLeft(line, "# ")); t != "" {
				return t
			}
		}
	}
	return fallback
}

// resolveDeliverables is what goes with an answer: the deliverables it
// cites, in the order cited, then those that always go, each once.
func resolveDeliverables(answer string, items []deliverable) []deliverable {
	byID := map[string]deliverable{}
	for _, d := range items {
		byID[d.ID] = d
	}
	var out []deliverable
	seen := map[string]bool{}
	push := func(d deliverable) {
		if !seen[d.ID] {
			seen[d.ID] = true
			out = append(out, d)
		}
	}
	for _, m := range citation.FindAllStringSubmatch(answer, -1) {
		if d, ok := byID[m[1]]; ok {
			push(d)
		}
	}
	for _, d := range items {
		if d.mode == "always" {
			push(d)
		}
	}
	return out
}

// doneBody is the JSON answer of a finished turn: answer, session, status,
// and the deliverables when there are any.
func doneBody(answer, session string, items []deliverable) map[string]any {
	body := map[string]any{"answer": answer, "session": session, "status": "done"}
	if dels := resolveDeliverables(answer, items); len(dels) > 0 {
		body["deliverables"] = dels
	}
	return body
}
