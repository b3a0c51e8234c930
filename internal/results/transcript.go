package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/wI2L/jsondiff"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
)

// transcriptLine is one exchange of one test in transcript.jsonl. Its
// params and its outcome are each written whole, or as a patch: the JSON
// Patch that makes them from the params or the outcome of an earlier line
// of the file (any test's).
type transcriptLine struct {
	// Test names the test on the first of its lines; the lines after it,
	// up to the next test's first, are that test's too.
	Test string `json:"test,omitempty"`
	engine.Exchange
	ParamsPatch  *patchOf `json:"params_patch,omitempty"`
	OutcomePatch *patchOf `json:"outcome_patch,omitempty"`
}

// patchOf is a value written as the change from another: Of is the line
// (of transcript.jsonl, from 1) whose value of the same member it patches,
// Ops the RFC 6902 operations and splices (spliceOp), each written short
// (short), to apply in order ([] for the same value again).
type patchOf struct {
	Of  int             `json:"of"`
	Ops json.RawMessage `json:"ops"`
}

// A value is compared with the latest few values of its kind of step
// (sameKind) and the latest of any kind (anyKind) to find the smallest
// patch: what a step observes (ACP's folder, its event log and
// protocol.json) is mostly what the steps just before it, or the same step
// of the check before, observed. More bases find little more and cost a
// diff each.
const (
	sameKind = 8
	anyKind  = 2
)

// patchOverhead is what a patch costs beyond its operations; a patch is
// written only when it is shorter than the value whole.
var patchOverhead = len(`,"outcome_patch":{"of":000000,"ops":}`)

// transcriptEncoder writes the lines of one transcript file, test after
// test, remembering what earlier lines hold so that a value may be written
// as a patch of one of them.
type transcriptEncoder struct {
	line            int // the number of the last line written
	params, outcome bases
}

// bases are the values of one member (params or outcome) of the lines
// written so far: every one by its digest, for repeats from anywhere in the
// file, and the latest few whole, for patches.
type bases struct {
	seen   map[[32]byte]int
	byKind map[string][]base
	last   []base
}

type base struct {
	line int
	raw  []byte
	doc  any
}

// encode writes a test's exchanges as transcript lines. Each value is
// written as a patch when the patch is shorter and rebuilds it exactly.
func (e *transcriptEncoder) encode(test string, exchanges []engine.Exchange) ([][]byte, error) {
	out := make([][]byte, 0, len(exchanges))
	for i, ex := range exchanges {
		e.line++
		tl := transcriptLine{Exchange: ex}
		if i == 0 {
			tl.Test = test
		}
		kind := string(ex.Op) + " " + ex.Name
		if len(ex.Params) > 0 {
			p, err := e.params.add(e.line, kind, ex.Params)
			if err != nil {
				return nil, err
			}
			if p != nil {
				tl.Params, tl.ParamsPatch = nil, p
			}
		}
		if ex.Outcome != nil {
			p, err := e.outcome.add(e.line, kind, ex.Outcome)
			if err != nil {
				return nil, err
			}
			if p != nil {
				tl.Outcome, tl.OutcomePatch = nil, p
			}
		}
		raw, err := json.Marshal(tl)
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, nil
}

// add remembers the value of line, from a step of kind, and returns the
// patch to write instead of it, or nil to write it whole.
func (b *bases) add(line int, kind string, v any) (*patchOf, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	if b.seen == nil {
		b.seen, b.byKind = map[[32]byte]int{}, map[string][]base{}
	}
	if of, ok := b.seen[sum]; ok {
		if len("[]")+patchOverhead < len(raw) {
			return &patchOf{Of: of, Ops: json.RawMessage("[]")}, nil
		}
		return nil, nil
	}
	b.seen[sum] = line
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	candidates := slices.Clone(b.byKind[kind])
	for _, c := range b.last {
		if !slices.ContainsFunc(candidates, func(o base) bool { return o.line == c.line }) {
			candidates = append(candidates, c)
		}
	}
	var best *patchOf
	for _, c := range candidates {
		ops, ok := diff(c.raw, c.doc, doc)
		if ok && len(ops)+patchOverhead < len(raw) && (best == nil || len(ops) < len(best.Ops)) {
			best = &patchOf{Of: c.line, Ops: ops}
		}
	}
	this := base{line: line, raw: raw, doc: doc}
	b.byKind[kind] = latest(b.byKind[kind], this, sameKind)
	b.last = latest(b.last, this, anyKind)
	return best, nil
}

// latest appends b to list and keeps its last n.
func latest(list []base, b base, n int) []base {
	list = append(list, b)
	return list[max(len(list)-n, 0):]
}

// diff is the JSON Patch from one value to another, when applying it gives
// the second back exactly. Lists are compared by their longest common
// subsequence (jsondiff.LCS), so a line put into or taken out of a
// command's output is one op, not a replace of every line after it; a
// text replaced by one that shares most of it is written as a splice.
func diff(fromRaw []byte, from, to any) (json.RawMessage, bool) {
	p, err := jsondiff.Compare(from, to, jsondiff.LCS())
	if err != nil || len(p) == 0 {
		return nil, false // the same value is found by its digest
	}
	ops, err := json.Marshal(short(spliced(p)))
	if err != nil {
		return nil, false
	}
	got, err := ApplyPatch(fromRaw, ops)
	if err != nil {
		return nil, false
	}
	var back any
	if json.Unmarshal(got, &back) != nil || !reflect.DeepEqual(back, to) {
		return nil, false
	}
	return ops, true
}

// spliceOp is the one operation a transcript patch adds to RFC 6902: the
// text at Path with Cut bytes from byte At (of its UTF-8) replaced by
// Value. A long text changed in a few places (a timestamp in an event
// line, a number in a line of output) is then written as its change.
type spliceOp struct {
	Op    string `json:"op"` // "splice"
	Path  string `json:"path"`
	At    int    `json:"at"`
	Cut   int    `json:"cut"`
	Value string `json:"value"`
}

// spliced is the patch with each replace of a text by another written as
// a splice where that is shorter.
func spliced(p jsondiff.Patch) []any {
	out := make([]any, 0, len(p))
	for _, op := range p {
		old, ok1 := op.OldValue.(string)
		cur, ok2 := op.Value.(string)
		if op.Type != jsondiff.OperationReplace || !ok1 || !ok2 {
			out = append(out, op)
			continue
		}
		s := splice(op.Path, old, cur)
		whole, err1 := json.Marshal(op)
		short, err2 := json.Marshal(s)
		if err1 != nil || err2 != nil || len(short) >= len(whole) {
			out = append(out, op)
			continue
		}
		out = append(out, s)
	}
	return out
}

// splice is the splice that makes cur from old: the bytes between their
// common beginning and their common end, cut at rune boundaries.
func splice(path, old, cur string) spliceOp {
	pre := 0
	for pre < len(old) && pre < len(cur) && old[pre] == cur[pre] {
		pre++
	}
	for pre > 0 && (pre < len(old) && !utf8.RuneStart(old[pre]) || pre < len(cur) && !utf8.RuneStart(cur[pre])) {
		pre--
	}
	suf := 0
	for suf < len(old)-pre && suf < len(cur)-pre && old[len(old)-1-suf] == cur[len(cur)-1-suf] {
		suf++
	}
	for suf > 0 && (!utf8.RuneStart(old[len(old)-suf]) || !utf8.RuneStart(cur[len(cur)-suf])) {
		suf--
	}
	return spliceOp{Op: "splice", Path: path, At: pre, Cut: len(old) - pre - suf, Value: cur[pre : len(cur)-suf]}
}

// A transcript writes each op of a patch short, as a list: [op, path,
// value] for add, replace and test, [op, path] for remove, [op, path, from]
// for move and copy, ["splice", path, at, cut, value] for a splice. The
// names of an RFC 6902 operation object's members cost about twenty bytes
// an op, and an event log grows by thousands of ops. A reader takes the
// object form too.
func short(list []any) []any {
	out := make([]any, 0, len(list))
	for _, op := range list {
		switch o := op.(type) {
		case spliceOp:
			out = append(out, []any{o.Op, o.Path, o.At, o.Cut, o.Value})
		case jsondiff.Operation:
			switch o.Type {
			case jsondiff.OperationRemove:
				out = append(out, []any{o.Type, o.Path})
			case jsondiff.OperationMove, jsondiff.OperationCopy:
				out = append(out, []any{o.Type, o.Path, o.From})
			default:
				out = append(out, []any{o.Type, o.Path, o.Value})
			}
		default:
			out = append(out, op)
		}
	}
	return out
}

// long reads an op written short (short) as the object RFC 6902 and
// spliceOp read; an op written as an object is returned as it is.
func long(op json.RawMessage) (json.RawMessage, error) {
	if t := bytes.TrimLeft(op, " \t\r\n"); len(t) == 0 || t[0] != '[' {
		return op, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(op, &list); err != nil {
		return nil, err
	}
	var name string
	if len(list) == 0 || json.Unmarshal(list[0], &name) != nil {
		return nil, fmt.Errorf("%s does not begin with the name of an operation", op)
	}
	fields := map[string][]string{
		"add": {"path", "value"}, "replace": {"path", "value"}, "test": {"path", "value"},
		"remove": {"path"}, "move": {"path", "from"}, "copy": {"path", "from"},
		"splice": {"path", "at", "cut", "value"},
	}[name]
	if fields == nil {
		return nil, fmt.Errorf("%s names no operation a transcript patch has", op)
	}
	if len(list) != 1+len(fields) {
		return nil, fmt.Errorf("%s: a %s is [%q, %s]", op, name, name, strings.Join(fields, ", "))
	}
	obj := map[string]json.RawMessage{"op": list[0]}
	for k, f := range fields {
		obj[f] = list[1+k]
	}
	return json.Marshal(obj)
}

// ApplyPatch applies the ops of a transcript patch (a params_patch's or an
// outcome_patch's) to the JSON value they patch: RFC 6902 operations (by
// evanphx/json-patch) and splices (spliceOp), in order.
func ApplyPatch(doc, ops []byte) ([]byte, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(ops, &list); err != nil {
		return nil, fmt.Errorf("the ops are not a list of operations: %w", err)
	}
	var pending []json.RawMessage
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		raw, err := json.Marshal(pending)
		if err != nil {
			return err
		}
		p, err := jsonpatch.DecodePatch(raw)
		if err == nil {
			doc, err = p.Apply(doc)
		}
		pending = pending[:0]
		return err
	}
	for i, op := range list {
		op, err := long(op)
		if err != nil {
			return nil, fmt.Errorf("op %d: %w", i, err)
		}
		var head struct {
			Op string `json:"op"`
		}
		_ = json.Unmarshal(op, &head)
		if head.Op != "splice" {
			pending = append(pending, op)
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		var s spliceOp
		if err := json.Unmarshal(op, &s); err != nil {
			return nil, fmt.Errorf("op %d: %w", i, err)
		}
		if doc, err = applySplice(doc, s); err != nil {
			return nil, fmt.Errorf("op %d (splice %s): %w", i, s.Path, err)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return doc, nil
}

// applySplice applies one splice to a JSON document.
func applySplice(doc []byte, s spliceOp) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber() // numbers are written back as they were
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	var set func(string)
	cur := &root
	segs := strings.Split(s.Path, "/")
	if s.Path == "" || segs[0] != "" {
		return nil, fmt.Errorf("the path is not a JSON pointer to a text")
	}
	for _, seg := range segs[1:] {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch t := (*cur).(type) {
		case map[string]any:
			v, ok := t[seg]
			if !ok {
				return nil, fmt.Errorf("there is no member %q", seg)
			}
			cur = &v
			set = func(x string) { t[seg] = x }
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= len(t) {
				return nil, fmt.Errorf("there is no element %q", seg)
			}
			cur = &t[n]
			set = func(x string) { t[n] = x }
		default:
			return nil, fmt.Errorf("%q is inside a value that is neither an object nor a list", seg)
		}
	}
	text, ok := (*cur).(string)
	if !ok || set == nil {
		return nil, fmt.Errorf("the value there is not a text")
	}
	if s.At < 0 || s.Cut < 0 || s.At+s.Cut > len(text) {
		return nil, fmt.Errorf("cuts bytes %d to %d of a %d-byte text", s.At, s.At+s.Cut, len(text))
	}
	out := text[:s.At] + s.Value + text[s.At+s.Cut:]
	if !utf8.ValidString(out) {
		return nil, fmt.Errorf("cuts a character of the text in two")
	}
	set(out)
	return json.Marshal(root)
}

// rebuiltLimit bounds what the patches of one transcript may rebuild: a
// file of patches that each repeat a large earlier value could otherwise
// ask for far more memory than its own size.
const rebuiltLimit = 4 * inputfile.Limit

// transcriptDecoder reads the lines of one transcript file in order,
// rebuilding each value written as a patch from the line it names.
type transcriptDecoder struct {
	path            string
	params, outcome map[int][]byte // each line's value, as JSON
	rebuilt         int64
}

func newTranscriptDecoder(path string) *transcriptDecoder {
	return &transcriptDecoder{path: path, params: map[int][]byte{}, outcome: map[int][]byte{}}
}

// decode reads line number at, which must belong to test: the first line
// of a test's range names it, the others name it or nothing.
func (d *transcriptDecoder) decode(at int, test string, first bool, l []byte) (engine.Exchange, error) {
	var tl transcriptLine
	if err := json.Unmarshal(l, &tl); err != nil {
		return engine.Exchange{}, fmt.Errorf("%s:%d: %w", d.path, at, err)
	}
	switch {
	case tl.Test == "" && first:
		return engine.Exchange{}, fmt.Errorf("%s:%d is the first line of %s but names no test", d.path, at, test)
	case tl.Test != "" && tl.Test != test:
		return engine.Exchange{}, fmt.Errorf("%s:%d belongs to %q, but the test named here is %s", d.path, at, tl.Test, test)
	}
	if p := tl.ParamsPatch; p != nil {
		raw, err := d.apply(at, "params", d.params, p, tl.Params != nil)
		if err != nil {
			return engine.Exchange{}, err
		}
		if err := json.Unmarshal(raw, &tl.Params); err != nil {
			return engine.Exchange{}, fmt.Errorf("%s:%d: /params_patch makes no params: %w", d.path, at, err)
		}
	}
	if p := tl.OutcomePatch; p != nil {
		raw, err := d.apply(at, "outcome", d.outcome, p, tl.Outcome != nil)
		if err != nil {
			return engine.Exchange{}, err
		}
		var o engine.Outcome
		if err := json.Unmarshal(raw, &o); err != nil {
			return engine.Exchange{}, fmt.Errorf("%s:%d: /outcome_patch makes no answer: %w", d.path, at, err)
		}
		tl.Outcome = &o
	}
	if err := d.keep(at, d.params, tl.Params, len(tl.Params) > 0); err != nil {
		return engine.Exchange{}, err
	}
	if err := d.keep(at, d.outcome, tl.Outcome, tl.Outcome != nil); err != nil {
		return engine.Exchange{}, err
	}
	return tl.Exchange, nil
}

// apply rebuilds a member of line at from its patch.
func (d *transcriptDecoder) apply(at int, member string, values map[int][]byte, p *patchOf, whole bool) ([]byte, error) {
	base, ok := values[p.Of]
	if !ok || p.Of >= at || whole {
		return nil, fmt.Errorf("%s:%d: /%s_patch/of names line %d, which is no earlier line with %s", d.path, at, member, p.Of, map[string]string{"params": "params", "outcome": "an answer"}[member])
	}
	raw, err := ApplyPatch(base, p.Ops)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: /%s_patch does not apply to the %s of line %d: %w", d.path, at, member, member, p.Of, err)
	}
	if d.rebuilt += int64(len(raw)); d.rebuilt > rebuiltLimit {
		return nil, fmt.Errorf("%s:%d: the transcript's patches rebuild more than %d MiB; it is not one sifu wrote", d.path, at, rebuiltLimit>>20)
	}
	return raw, nil
}

func (d *transcriptDecoder) keep(at int, values map[int][]byte, v any, has bool) error {
	if !has {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s:%d: %w", d.path, at, err)
	}
	values[at] = raw
	return nil
}
