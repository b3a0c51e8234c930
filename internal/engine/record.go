package engine

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Place is where a value sits in the exchanges of one kind of step: a
// suite declares the places of its secrets and of the implementation's own
// prose (Vocabulary.Secrets, Vocabulary.PeerText), and the session applies
// the declaration when it records an exchange, so that what a transcript
// holds, what results.json hashes and what a replay judges are the same.
type Place struct {
	Op   Op     `json:"op"`
	Name string `json:"name,omitempty"` // the step's name; "" for every name
	// Pointer is a JSON pointer into the exchange as transcript.jsonl
	// writes it ("/params/secret", "/outcome/result/secret"); a "*" segment
	// stands for every element of a list or member of an object.
	Pointer string `json:"pointer"`
	// If narrows the place to values whose enclosing object has these
	// members with these values (a chat message's {"role": "system"}).
	If map[string]any `json:"if,omitempty"`
	// Headers says the value at Pointer is a map of HTTP headers; the place
	// is then its members that carry credentials (CredentialHeaders),
	// whatever their case.
	Headers bool `json:"headers,omitempty"`
}

// CredentialHeaders are the HTTP headers whose values are credentials, in
// lower case: a Place with Headers redacts these members of a header map.
var CredentialHeaders = []string{"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token", "api-key"}

// PeerTextMarker is how a transcript begins the value that stands for the
// implementation's own prose: "[peer text sha256:<hex> <n> bytes]".
const PeerTextMarker = "[peer text sha256:"

// record is the transcript line of one executed step, as the suite's
// vocabulary says to write it: each secret replaced by Redacted and its
// pointer listed in Redacted; what the suite derives, what the step's
// literals expected and what the step sent left out.
func (s *Session) record(resolved Step, out Outcome, err error, elapsed time.Duration) Exchange {
	return unsend(unexpect(underive(redact(exchange(resolved, out, err, elapsed), s.vocab.Secrets), s.vocab.Derived), resolved), resolved)
}

// redact replaces the secrets of an exchange at their places.
func redact(ex Exchange, secrets []Place) Exchange {
	places := placesFor(secrets, ex)
	if len(places) == 0 {
		return ex
	}
	doc := exchangeDoc(ex)
	var hidden []string
	for _, p := range places {
		for _, ptr := range locate(doc, p) {
			if setAt(doc, ptr, Redacted) {
				hidden = append(hidden, ptr)
			}
		}
	}
	if len(hidden) == 0 {
		return ex
	}
	red := fromDoc(doc, ex)
	slices.Sort(hidden)
	red.Redacted = slices.Compact(hidden)
	return red
}

// DerivedAll, as an exchange's whole Derived list, says it left out every
// member the suite derives from its result: the common case, written short.
const DerivedAll = "*"

// underive leaves out of an exchange's result the members derive rebuilds
// exactly from the others, listing them in Derived (DerivedAll when they
// are all that derive gives).
func underive(ex Exchange, derive func(Exchange) map[string]any) Exchange {
	if derive == nil || ex.Outcome == nil {
		return ex
	}
	full, ok := Normalize(ex.Outcome.Result).(map[string]any)
	if !ok {
		return ex
	}
	d := derive(ex)
	reduced := maps.Clone(full)
	var left []string
	for k, v := range d {
		if got, ok := full[k]; ok && reflect.DeepEqual(Normalize(v), got) {
			delete(reduced, k)
			left = append(left, k)
		}
	}
	if len(left) == 0 {
		return ex
	}
	slices.Sort(left)
	if len(left) == len(d) {
		left = []string{DerivedAll}
	}
	out := ex
	o := *ex.Outcome
	o.Result = reduced
	out.Outcome = &o
	out.Derived = left
	// What is left out must follow from what is kept.
	if back, err := rederive(out, derive); err != nil || !reflect.DeepEqual(Normalize(back.Outcome.Result), full) {
		return ex
	}
	return out
}

// rederive puts back the members an exchange left out (Derived).
func rederive(ex Exchange, derive func(Exchange) map[string]any) (Exchange, error) {
	if len(ex.Derived) == 0 {
		return ex, nil
	}
	res, ok := Normalize(outcomeResult(ex)).(map[string]any)
	if derive == nil || !ok {
		return ex, fmt.Errorf("the exchange leaves out %v, which this suite does not rebuild", ex.Derived)
	}
	d := derive(ex)
	names := ex.Derived
	if len(names) == 1 && names[0] == DerivedAll {
		names = slices.Sorted(maps.Keys(d))
	}
	for _, k := range names {
		v, ok := d[k]
		if !ok {
			return ex, fmt.Errorf("the exchange leaves out %s, which does not follow from the rest of its result", k)
		}
		res[k] = Normalize(v)
	}
	o := *ex.Outcome
	o.Result = res
	ex.Outcome = &o
	ex.Derived = nil
	return ex, nil
}

func outcomeResult(ex Exchange) any {
	if ex.Outcome == nil {
		return nil
	}
	return ex.Outcome.Result
}

// placesFor keeps the places that concern the exchange's step.
func placesFor(places []Place, ex Exchange) []Place {
	var out []Place
	for _, p := range places {
		if p.Op == ex.Op && (p.Name == "" || p.Name == ex.Name) {
			out = append(out, p)
		}
	}
	return out
}

// exchangeDoc renders an exchange as plain JSON data, a copy that can be
// edited without touching the outcome the session judges.
func exchangeDoc(ex Exchange) map[string]any {
	raw, err := json.Marshal(ex)
	if err != nil {
		return map[string]any{}
	}
	var doc map[string]any
	_ = json.Unmarshal(raw, &doc)
	return doc
}

// fromDoc reads an edited exchange document back; on a document that does
// not read back (which an edit of string values cannot make) it keeps ex.
func fromDoc(doc map[string]any, ex Exchange) Exchange {
	raw, err := json.Marshal(doc)
	if err != nil {
		return ex
	}
	var out Exchange
	if json.Unmarshal(raw, &out) != nil {
		return ex
	}
	return out
}

func escapeSeg(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapeSeg(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

func segments(ptr string) []string {
	if ptr == "" || ptr == "/" {
		return nil
	}
	return strings.Split(strings.TrimPrefix(ptr, "/"), "/")
}

// locate lists the concrete pointers (no "*") of the values in doc at a
// place, in document order.
func locate(doc any, p Place) []string {
	var out []string
	var walk func(v any, segs []string, at string, parent map[string]any)
	walk = func(v any, segs []string, at string, parent map[string]any) {
		if len(segs) == 0 {
			if p.Headers {
				h, ok := v.(map[string]any)
				if !ok {
					return
				}
				for _, k := range slices.Sorted(maps.Keys(h)) {
					if slices.Contains(CredentialHeaders, strings.ToLower(k)) {
						out = append(out, at+"/"+escapeSeg(k))
					}
				}
				return
			}
			if holds(parent, p.If) {
				out = append(out, at)
			}
			return
		}
		seg := unescapeSeg(segs[0])
		switch t := v.(type) {
		case map[string]any:
			if segs[0] == "*" {
				for _, k := range slices.Sorted(maps.Keys(t)) {
					walk(t[k], segs[1:], at+"/"+escapeSeg(k), t)
				}
			} else if e, ok := t[seg]; ok {
				walk(e, segs[1:], at+"/"+segs[0], t)
			}
		case []any:
			for i, e := range t {
				if segs[0] == "*" || segs[0] == strconv.Itoa(i) {
					walk(e, segs[1:], at+"/"+strconv.Itoa(i), nil)
				}
			}
		}
	}
	walk(doc, segments(p.Pointer), "", nil)
	return out
}

// holds reports whether the object holding a value has the members of cond.
func holds(parent map[string]any, cond map[string]any) bool {
	for k, want := range cond {
		if parent == nil || !reflect.DeepEqual(Normalize(want), parent[k]) {
			return false
		}
	}
	return true
}

// getAt and setAt read and replace the value at a concrete pointer.
func getAt(doc any, ptr string) (any, bool) {
	cur := doc
	for _, seg := range segments(ptr) {
		switch t := cur.(type) {
		case map[string]any:
			e, ok := t[unescapeSeg(seg)]
			if !ok {
				return nil, false
			}
			cur = e
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			cur = t[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func setAt(doc any, ptr string, v any) bool {
	segs := segments(ptr)
	if len(segs) == 0 {
		return false
	}
	parent, ok := getAt(doc, "/"+strings.Join(segs[:len(segs)-1], "/"))
	if len(segs) == 1 {
		parent, ok = doc, true
	}
	if !ok {
		return false
	}
	last := segs[len(segs)-1]
	switch t := parent.(type) {
	case map[string]any:
		if _, ok := t[unescapeSeg(last)]; !ok {
			return false
		}
		t[unescapeSeg(last)] = v
		return true
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(t) {
			return false
		}
		t[i] = v
		return true
	}
	return false
}

// wildcard is what a replay puts in place of a recorded secret: a string
// no implementation can have sent, which the replay's judge takes to match
// any value. A "[redacted]" the transcript does not list as redacted is a
// value like any other.
func wildcard() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "[redacted " + hex.EncodeToString(b[:]) + "]"
}

// unredact returns the exchange with every value its Redacted pointers name
// replaced by wild, for a replay to judge.
func unredact(ex Exchange, wild string) Exchange {
	if len(ex.Redacted) == 0 {
		return ex
	}
	doc := exchangeDoc(ex)
	for _, ptr := range ex.Redacted {
		setAt(doc, ptr, wild)
	}
	return fromDoc(doc, ex)
}

// peerText is the marker that stands for a text the implementation wrote,
// keeping of it the texts the check searches it for (found, each on a line
// of its own) so that those searches find what they found in the text.
func peerText(text string, found []string) string {
	sum := sha256.Sum256([]byte(text))
	m := fmt.Sprintf("%s%s %d bytes]", PeerTextMarker, hex.EncodeToString(sum[:]), len(text))
	for _, f := range found {
		m += "\n" + f
	}
	return m
}

// proseRecord is a recorded exchange whose peer text the session hides: the
// exchange as recorded before, and every step that judged its outcome.
type proseRecord struct {
	orig    Exchange
	readers []Step
}

// hideProse replaces the implementation's own prose in the exchange at idx
// (the places of Vocabulary.PeerText in its outcome) by a peerText marker,
// now that reader judged that outcome too. A text is kept whole where a
// judgement reads it other than by searching it for a text: by equality, a
// pattern, a comparison with another outcome, a capture. Each time a step
// judges the outcome again the exchange is rebuilt from what was recorded.
func (s *Session) hideProse(idx int, reader Step) {
	if idx < 0 || idx >= len(s.transcript) || len(s.vocab.PeerText) == 0 {
		return
	}
	rec := s.prose[idx]
	if rec == nil {
		if s.transcript[idx].Outcome == nil || len(placesFor(s.vocab.PeerText, s.transcript[idx])) == 0 {
			return
		}
		rec = &proseRecord{orig: s.transcript[idx]}
		if s.prose == nil {
			s.prose = map[int]*proseRecord{}
		}
		s.prose[idx] = rec
	}
	rec.readers = append(rec.readers, reader)
	doc := exchangeDoc(rec.orig)
	changed := false
	for _, p := range placesFor(s.vocab.PeerText, rec.orig) {
		for _, ptr := range locate(doc, p) {
			v, _ := getAt(doc, ptr)
			text, ok := v.(string)
			if !ok || !strings.HasPrefix(ptr, "/outcome/") || strings.HasPrefix(text, PeerTextMarker) {
				continue
			}
			needles, keep := s.reads(rec.readers, strings.TrimPrefix(ptr, "/outcome"))
			if keep {
				continue
			}
			var found []string
			for _, n := range needles {
				if strings.Contains(text, n) {
					found = append(found, n)
				}
			}
			slices.Sort(found)
			marker := peerText(text, slices.Compact(found))
			same := true
			for _, n := range needles {
				same = same && strings.Contains(marker, n) == strings.Contains(text, n)
			}
			if same && setAt(doc, ptr, marker) {
				changed = true
			}
		}
	}
	if changed {
		s.transcript[idx] = fromDoc(doc, rec.orig)
	} else {
		s.transcript[idx] = rec.orig
	}
}

// reads says how the steps that judged an outcome read the value at ptr (a
// pointer into the outcome document): the texts they search it for, or
// keep when they read it in any other way.
func (s *Session) reads(readers []Step, ptr string) (needles []string, keep bool) {
	at := segments(ptr)
	for _, st := range readers {
		for _, c := range st.Capture {
			if c == "" || relation(segments(c), at) != relApart {
				return nil, true
			}
		}
		e := st.Expect
		if e == nil {
			continue
		}
		if e.SameAs != "" || len(e.Mask) > 0 {
			return nil, true
		}
		for _, m := range e.Match {
			ms := segments(m.Pointer)
			switch relation(ms, at) {
			case relApart, relWithin:
				continue
			case relCovers:
				if op, _, ok := operator(m.Matcher); ok && (op == "$len" || op == "$type" || op == "$absent" || op == "$present") {
					continue
				}
				return nil, true
			}
			want, err := s.resolveValue(m.Matcher)
			if err != nil {
				return nil, true
			}
			n, reads, ok := searchedFor(want, slices.Contains(ms, "*"))
			if !ok {
				return nil, true
			}
			if reads {
				needles = append(needles, n)
			}
		}
	}
	return needles, false
}

// The relation of a matcher's pointer (which may hold "*") to the concrete
// pointer of a value: apart, the same value (at), a container of it
// (covers), or a place inside it (within, which finds nothing in a text).
const (
	relApart = iota
	relSame
	relCovers
	relWithin
)

func relation(m, p []string) int {
	n := min(len(m), len(p))
	for i := 0; i < n; i++ {
		if m[i] != "*" && m[i] != p[i] {
			return relApart
		}
	}
	switch {
	case len(m) == len(p):
		return relSame
	case len(m) < len(p):
		return relCovers
	}
	return relWithin
}

// searchedFor reads a matcher at a text's own pointer: a search for a text
// ($contains, $not_contains; over a fanned-out list, $each of one) gives
// that text; a matcher that does not read the text's content ($type,
// $absent, $present, a fanned-out $len) gives none; anything else is not
// ok (the judgement reads the text some other way).
func searchedFor(want any, fanned bool) (needle string, reads, ok bool) {
	op, arg, isOp := operator(want)
	if !isOp {
		return "", false, false
	}
	switch {
	case op == "$absent" || op == "$present":
		return "", false, true
	case op == "$type", fanned && op == "$len":
		return "", false, true
	case fanned && op == "$each":
		return searchedFor(arg, false)
	case !fanned && (op == "$contains" || op == "$not_contains"):
		s, isText := arg.(string)
		return s, isText, isText
	}
	return "", false, false
}
