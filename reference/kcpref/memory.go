package kcpref

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Episodic memory, as kcp-agent keeps it: an entry is a saved plan or
// grounded-answer artifact with the unit bytes taken out, stored under the
// sha256 of that stripped artifact, so the same answer recorded twice is
// one entry and an entry edited by hand no longer matches its address.

// JSONValue is a JSON document read as JavaScript's JSON.parse reads it:
// objects keep their member order (array-index keys first, ascending, as
// a JavaScript object orders them), numbers are float64.
type JSONValue = any

// ParseJSON reads one JSON document, keeping object member order.
func ParseJSON(raw []byte) (JSONValue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseJSONValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("Unexpected non-whitespace character after JSON")
	}
	return v, nil
}

func parseJSONValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			list := []any{}
			for dec.More() {
				v, err := parseJSONValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		case '{':
			obj := &jsonObject{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := parseJSONValue(dec)
				if err != nil {
					return nil, err
				}
				obj.set(k.(string), v)
			}
			_, err := dec.Token()
			return obj, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return f, nil
	default:
		return t, nil // string, bool, nil
	}
}

// set gives key its value: a key already there keeps its place, an array
// index goes before the other keys in ascending order.
func (o *jsonObject) set(key string, v any) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].value = v
			return
		}
	}
	if n, ok := arrayIndex(key); ok {
		at := 0
		for at < len(o.members) {
			m, isIndex := arrayIndex(o.members[at].key)
			if !isIndex || m > n {
				break
			}
			at++
		}
		o.members = slices.Insert(o.members, at, jsonMember{key: key, value: v})
		return
	}
	o.members = append(o.members, jsonMember{key: key, value: v})
}

func arrayIndex(key string) (uint64, bool) {
	n, err := strconv.ParseUint(key, 10, 32)
	return n, err == nil && n < math.MaxUint32 && strconv.FormatUint(n, 10) == key
}

// jsonGet is a member of an object (nil, false for anything else).
func jsonGet(v any, key string) (any, bool) {
	o, ok := v.(*jsonObject)
	if !ok || o == nil {
		return nil, false
	}
	for _, m := range o.members {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

func (o *jsonObject) remove(key string) {
	o.members = slices.DeleteFunc(o.members, func(m jsonMember) bool { return m.key == key })
}

// StringifyJSON is JSON.stringify(v) (indent "") or JSON.stringify(v,
// null, 2) (indent "  "), without a trailing newline.
func StringifyJSON(v JSONValue, indent string) string {
	var b strings.Builder
	jsonWrite(&b, v, indent, 0)
	return b.String()
}

func cloneJSON(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneJSON(e)
		}
		return out
	case *jsonObject:
		out := &jsonObject{members: make([]jsonMember, len(x.members))}
		for i, m := range x.members {
			out.members[i] = jsonMember{key: m.key, value: cloneJSON(m.value)}
		}
		return out
	}
	return v
}

// SHA256Hex is the lowercase hex sha256 of s's UTF-8 bytes.
func SHA256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// MemoryEntry is one stored episode.
type MemoryEntry struct {
	ID   string
	Kind string // "plan" or "grounded-answer"
	// Doc is the whole entry as stored: id, kind, task, manifestSource,
	// manifestSha, optionsKey (plan --memory only), recordedAt, artifact.
	Doc JSONValue
}

// Field is a member of the stored entry.
func (e MemoryEntry) Field(key string) (any, bool) { return jsonGet(e.Doc, key) }

// Task is the entry's task, as JavaScript's String() would print it.
func (e MemoryEntry) Task() any { v, _ := e.Field("task"); return v }

// NewMemoryEntry makes the entry of an artifact recorded at recordedAt (an
// ISO instant); optionsKey is "" except for plan --memory's episodes.
func NewMemoryEntry(artifact JSONValue, recordedAt, optionsKey string, faults []Fault) MemoryEntry {
	kind, holder := "plan", artifact
	if _, ok := jsonGet(artifact, "grounding"); ok {
		if plan, _ := jsonGet(artifact, "plan"); jsBoolean(plan) {
			kind, holder = "grounded-answer", plan
		}
	}
	task, hasTask := jsonGet(holder, "task")
	manifest, _ := jsonGet(holder, "manifest")
	stripped := stripArtifact(artifact, faults)
	id := SHA256Hex(StringifyJSON(stripped, ""))
	if HasFault(faults, FaultMemoryIDUnstripped) {
		id = SHA256Hex(StringifyJSON(artifact, ""))
	}
	doc := &jsonObject{}
	doc.put("id", id).put("kind", kind)
	if hasTask {
		doc.put("task", task)
	}
	if src, ok := jsonGet(manifest, "source"); ok {
		doc.put("manifestSource", src)
	}
	if sha, ok := jsonGet(manifest, "sha256"); ok {
		doc.put("manifestSha", sha)
	}
	doc.putIf(optionsKey != "", "optionsKey", optionsKey)
	doc.put("recordedAt", recordedAt).put("artifact", stripped)
	return MemoryEntry{ID: id, Kind: kind, Doc: doc}
}

// stripArtifact keeps of each loaded unit only id, path and sha256, and
// drops every content member anywhere.
func stripArtifact(raw any, faults []Fault) any {
	artifact := cloneJSON(raw)
	if synthesis, ok := jsonGet(artifact, "synthesis"); ok {
		if units, ok := jsonGet(synthesis, "unitsLoaded"); ok {
			if list, ok := units.([]any); ok {
				skeletons := make([]any, len(list))
				for i, u := range list {
					s := &jsonObject{}
					for _, k := range []string{"id", "path", "sha256"} {
						if v, ok := jsonGet(u, k); ok {
							s.put(k, v)
						}
					}
					skeletons[i] = s
				}
				synthesis.(*jsonObject).set("unitsLoaded", skeletons)
			}
		}
	}
	if !HasFault(faults, FaultMemoryKeepsContent) {
		dropContent(artifact)
	}
	return artifact
}

func dropContent(v any) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			dropContent(e)
		}
	case *jsonObject:
		x.remove("content")
		for _, m := range x.members {
			dropContent(m.value)
		}
	}
}

// EntryJSON is the stored file's text (JSON.stringify(entry, null, 2)).
func (e MemoryEntry) EntryJSON() string { return StringifyJSON(e.Doc, "  ") }

// ReadMemoryEntry reads a stored entry; Verified says its id is the
// sha256 of its artifact (an entry edited since it was recorded is not).
func ReadMemoryEntry(raw []byte) (MemoryEntry, error) {
	doc, err := ParseJSON(raw)
	if err != nil {
		return MemoryEntry{}, err
	}
	id, _ := jsonGet(doc, "id")
	kind, _ := jsonGet(doc, "kind")
	s, _ := id.(string)
	k, _ := kind.(string)
	return MemoryEntry{ID: s, Kind: k, Doc: doc}, nil
}

// Verified says the entry's id is a string and the sha256 of its artifact.
func (e MemoryEntry) Verified(faults []Fault) bool {
	if HasFault(faults, FaultMemoryTrustsEntries) {
		return true
	}
	id, ok := e.Field("id")
	s, isString := id.(string)
	if !ok || !isString {
		return false
	}
	artifact, has := e.Field("artifact")
	if !has {
		return false
	}
	return s == SHA256Hex(StringifyJSON(artifact, ""))
}

// RecallHit is one recalled episode: its entry, how many of its task terms
// the query shares, and, replayed or not, what is known of its freshness.
type RecallHit struct {
	Entry  MemoryEntry
	Score  int
	Status string // "valid", "drifted" or "unverifiable"
	Detail string
}

// RecallEntries ranks the verified entries by their task terms' overlap
// with the query's (those sharing none left out, ties in the given
// order) and keeps the first limit of them (JavaScript's slice(0,
// limit): NaN none, a negative count from the end; nil all).
func RecallEntries(entries []MemoryEntry, task string, limit *float64, faults []Fault) []RecallHit {
	query := map[string]bool{}
	for _, t := range Terms(task) {
		query[t] = true
	}
	var hits []RecallHit
	for _, e := range entries {
		if !e.Verified(faults) {
			continue
		}
		score := 0
		for _, t := range Terms(jsString(e.Task())) {
			if query[t] {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, RecallHit{Entry: e, Score: score})
		}
	}
	if !HasFault(faults, FaultRecallUnranked) {
		slices.SortStableFunc(hits, func(a, b RecallHit) int { return b.Score - a.Score })
	}
	if limit != nil {
		end := float64(len(hits))
		switch l := *limit; {
		case math.IsNaN(l):
			end = 0
		case l < 0:
			end = math.Max(end+math.Trunc(l), 0)
		default:
			end = math.Min(math.Trunc(l), end)
		}
		hits = hits[:int(end)]
	}
	return hits
}

// RecallJSON is recall --json's output: [{entry, score, status, detail}].
func RecallJSON(hits []RecallHit) string {
	list := []any{}
	for _, h := range hits {
		o := &jsonObject{}
		o.put("entry", h.Entry.Doc).put("score", float64(h.Score)).put("status", h.Status).put("detail", h.Detail)
		list = append(list, o)
	}
	return StringifyJSON(list, "  ")
}

// OptionsKey is plan --memory's reuse key: the planner inputs as given
// on the command line (values map flag → raw text; asOf the effective
// date), in kcp-agent's order.
func OptionsKey(values map[string]string, asOf string) string {
	o := &jsonObject{}
	str := func(k string) any {
		if v, ok := values[k]; ok {
			return v
		}
		return nil
	}
	num := func(k string) any {
		if v, ok := values[k]; ok {
			return jsNumberFromString(v) // NaN is written null
		}
		return nil
	}
	list := func(k string) any {
		if v, ok := values[k]; ok {
			out := []any{}
			for _, s := range splitList(v) {
				out = append(out, s)
			}
			return out
		}
		return nil
	}
	_, strict := values["strict"]
	_, follow := values["follow"]
	o.put("env", str("env")).put("asOf", asOf).put("maxUnits", num("max-units")).put("strict", strict).
		put("role", str("role")).put("methods", list("methods")).put("credentials", list("credentials")).
		put("attest", str("attest")).put("budget", num("budget")).put("currency", str("currency")).
		put("contextBudget", num("context-budget")).put("follow", follow).
		put("maxDepth", num("max-depth")).put("maxNodes", num("max-nodes"))
	return StringifyJSON(o, "")
}

// PlanArtifact is the plan object plan --memory records: the plan JSON
// without its envelope (schemaVersion, kind, correlationId).
func PlanArtifact(planJSON []byte) (JSONValue, error) {
	doc, err := ParseJSON(planJSON)
	if err != nil {
		return nil, err
	}
	if o, ok := doc.(*jsonObject); ok {
		o.remove("schemaVersion")
		o.remove("kind")
		o.remove("correlationId")
	}
	return doc, nil
}

// MemoryDecision is what plan --memory says of the prior episodes of one
// task, manifest and options: "reuse" (the manifest's sha256 unchanged),
// "drifted" or "miss".
type MemoryDecision struct {
	Status string
	Entry  MemoryEntry
	Detail string
}

// DecideReuse finds the freshest verified plan episode of the same task,
// manifest source and options key and compares its manifest sha256 with
// today's.
func DecideReuse(entries []MemoryEntry, task, source, optionsKey, freshSha string, faults []Fault) MemoryDecision {
	var best *MemoryEntry
	bestAt := ""
	for i, e := range entries {
		t, _ := e.Field("task")
		src, _ := e.Field("manifestSource")
		key, _ := e.Field("optionsKey")
		k, _ := key.(string)
		if !e.Verified(faults) || t != task || src != source || e.Kind != "plan" {
			continue
		}
		if k != optionsKey && !HasFault(faults, FaultMemoryIgnoresOptions) {
			continue
		}
		at, _ := e.Field("recordedAt")
		if s := jsString(at); best == nil || s > bestAt {
			best, bestAt = &entries[i], s
		}
	}
	if best == nil {
		return MemoryDecision{Status: "miss", Detail: "no prior episode for this task + manifest + options"}
	}
	sha, _ := best.Field("manifestSha")
	if s, _ := sha.(string); s == freshSha || HasFault(faults, FaultMemoryReusesDrifted) {
		return MemoryDecision{Status: "reuse", Entry: *best, Detail: fmt.Sprintf("manifest@%s… unchanged", prefix12(freshSha))}
	}
	old := "?"
	if s, ok := sha.(string); ok {
		old = s
	}
	return MemoryDecision{Status: "drifted", Entry: *best, Detail: fmt.Sprintf("manifest drifted: episode %s… ≠ today %s…", prefix12(old), prefix12(freshSha))}
}

// JSONMember is a member of a JSON object (nil, false for anything else).
func JSONMember(v JSONValue, key string) (any, bool) { return jsonGet(v, key) }

// JSString is JavaScript's String(v) of a JSON value.
func JSString(v any) string {
	if o, ok := v.(*jsonObject); ok && o != nil {
		return "[object Object]"
	}
	return jsString(v)
}

// JSNumber is JavaScript's Number(s).
func JSNumber(s string) float64 { return jsNumberFromString(s) }

// PlainJSON is v with its objects as map[string]any (order dropped), as
// encoding/json reads a document.
func PlainJSON(v JSONValue) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = PlainJSON(e)
		}
		return out
	case *jsonObject:
		out := make(map[string]any, len(x.members))
		for _, m := range x.members {
			out[m.key] = PlainJSON(m.value)
		}
		return out
	}
	return v
}

// MemoryReceiptJSON is remember --json's output: {id, kind, task}.
func MemoryReceiptJSON(e MemoryEntry) string {
	o := &jsonObject{}
	o.put("id", e.ID).put("kind", e.Kind)
	if t, ok := e.Field("task"); ok {
		o.put("task", t)
	}
	return StringifyJSON(o, "  ")
}

// JSONObject is a JSON object that keeps its members in the order put.
type JSONObject = jsonObject

// NewJSONObject is an empty JSONObject.
func NewJSONObject() *JSONObject { return &jsonObject{} }

// Put appends a member and returns the object.
func (o *jsonObject) Put(key string, v any) *jsonObject { return o.put(key, v) }
