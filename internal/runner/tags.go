package runner

import (
	"fmt"
	"strings"
)

// Tag expressions select checks by their tags (a check's kind, its tags and
// the rule IDs it evidences). Two forms are accepted:
//
//   - Cucumber's tag expressions: @tag, not, and, or and parentheses, with
//     not binding tighter than and, and and tighter than or; a backslash
//     escapes a parenthesis, a backslash or a space inside a tag
//     ("@a and not (@b or @c)").
//   - godog's older form: "," for or, "&&" for and, "~" for not, an or of
//     and-groups without parentheses ("@a && ~@b,@c").
//
// Cucumber's own Go module for them is not served by the module registry
// this project builds from, so the published grammar is implemented here
// (docs/decisions.md).

// tagExpr is a parsed tag expression.
type tagExpr interface {
	eval(have map[string]bool) bool
}

type tagLit string
type tagNot struct{ x tagExpr }
type tagAnd struct{ l, r tagExpr }
type tagOr struct{ l, r tagExpr }
type tagTrue struct{}

func (t tagLit) eval(h map[string]bool) bool { return h[string(t)] }
func (n tagNot) eval(h map[string]bool) bool { return !n.x.eval(h) }
func (a tagAnd) eval(h map[string]bool) bool { return a.l.eval(h) && a.r.eval(h) }
func (o tagOr) eval(h map[string]bool) bool  { return o.l.eval(h) || o.r.eval(h) }
func (tagTrue) eval(map[string]bool) bool    { return true }

// ParseTags parses a tag expression in either form; "" matches every check.
func ParseTags(expr string) (tagExpr, error) {
	if strings.TrimSpace(expr) == "" {
		return tagTrue{}, nil
	}
	toks, err := tagTokens(expr)
	if err != nil {
		return nil, err
	}
	old, cucumber := false, false
	for _, t := range toks {
		switch t {
		case ",", "&&":
			old = true
		case "and", "or", "not", "(", ")":
			cucumber = true
		default:
			if strings.HasPrefix(t, "~") {
				old = true
			}
		}
	}
	if old && cucumber {
		return nil, fmt.Errorf("mixes Cucumber's and/or/not with godog's &&/,/~; write it in one form, e.g. \"@a and not @b\"")
	}
	if old {
		return parseOldTags(toks)
	}
	p := &tagParser{toks: toks}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q at token %d", p.toks[p.i], p.i+1)
	}
	return e, nil
}

// tagTokens splits an expression into "(", ")", operators and tags, with
// backslash escapes resolved inside tags.
func tagTokens(expr string) ([]string, error) {
	var toks []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			toks = append(toks, cur.String())
			cur.Reset()
		}
	}
	rs := []rune(expr)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; {
		case c == '\\':
			if i+1 >= len(rs) {
				return nil, fmt.Errorf("ends with a lone backslash; escape it as \\\\")
			}
			next := rs[i+1]
			if next != '(' && next != ')' && next != '\\' && next != ' ' && next != '\t' {
				return nil, fmt.Errorf("\\%c is not an escape: only \\(, \\), \\\\ and an escaped space are", next)
			}
			cur.WriteRune(next)
			i++
		case c == '(' || c == ')':
			flush()
			toks = append(toks, string(c))
		case c == ' ' || c == '\t' || c == '\n':
			flush()
		case c == ',':
			flush()
			toks = append(toks, ",")
		case c == '&' && i+1 < len(rs) && rs[i+1] == '&':
			flush()
			toks = append(toks, "&&")
			i++
		default:
			cur.WriteRune(c)
		}
	}
	flush()
	return toks, nil
}

type tagParser struct {
	toks []string
	i    int
}

func (p *tagParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *tagParser) or() (tagExpr, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek() == "or" {
		p.i++
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = tagOr{l, r}
	}
	return l, nil
}

func (p *tagParser) and() (tagExpr, error) {
	l, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.peek() == "and" {
		p.i++
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		l = tagAnd{l, r}
	}
	return l, nil
}

func (p *tagParser) not() (tagExpr, error) {
	if p.peek() == "not" {
		p.i++
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return tagNot{x}, nil
	}
	return p.atom()
}

func (p *tagParser) atom() (tagExpr, error) {
	t := p.peek()
	switch {
	case t == "":
		return nil, fmt.Errorf("ends where a tag or ( was expected")
	case t == "(":
		p.i++
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, fmt.Errorf("a ( is not closed")
		}
		p.i++
		return e, nil
	case t == ")" || t == "and" || t == "or":
		return nil, fmt.Errorf("unexpected %q at token %d; a tag or ( was expected", t, p.i+1)
	}
	p.i++
	return tagName(t)
}

// tagName is a tag literal: it must start with "@", which is not part of
// the name compared.
func tagName(t string) (tagExpr, error) {
	if !strings.HasPrefix(t, "@") || len(t) < 2 {
		return nil, fmt.Errorf("%q is not a tag: tags start with @, e.g. @thread or @KF-L3-02", t)
	}
	return tagLit(t[1:]), nil
}

// parseOldTags reads godog's form: an or (",") of and-groups ("&&") of
// possibly negated ("~") tags.
func parseOldTags(toks []string) (tagExpr, error) {
	var alts []tagExpr
	var group tagExpr
	expectTerm := true
	for _, t := range toks {
		switch {
		case t == "," || t == "&&":
			if expectTerm {
				return nil, fmt.Errorf("%q without a tag before it", t)
			}
			if t == "," {
				alts = append(alts, group)
				group = nil
			}
			expectTerm = true
		case expectTerm:
			neg := strings.HasPrefix(t, "~")
			lit, err := tagName(strings.TrimPrefix(t, "~"))
			if err != nil {
				return nil, err
			}
			if neg {
				lit = tagNot{lit}
			}
			if group == nil {
				group = lit
			} else {
				group = tagAnd{group, lit}
			}
			expectTerm = false
		default:
			return nil, fmt.Errorf("two tags without && or , between them, before %q", t)
		}
	}
	if expectTerm {
		return nil, fmt.Errorf("ends where a tag was expected")
	}
	e := group
	for i := len(alts) - 1; i >= 0; i-- {
		e = tagOr{alts[i], e}
	}
	return e, nil
}

// MatchTags evaluates a tag expression against a check's tags, compared
// without their "@". An empty expression matches all; a malformed one
// matches none (ValidTagExpr says why).
func MatchTags(expr string, tags []string) bool {
	e, err := ParseTags(expr)
	if err != nil {
		return false
	}
	have := map[string]bool{}
	for _, t := range tags {
		have[strings.TrimPrefix(t, "@")] = true
	}
	return e.eval(have)
}

// ValidTagExpr reports a problem with a tag expression, or "".
func ValidTagExpr(expr string) string {
	if _, err := ParseTags(expr); err != nil {
		return err.Error() + ` (write e.g. "@thread and not @slow", "(@a or @b) and @c", or godog's "@a && ~@b,@c")`
	}
	return ""
}
