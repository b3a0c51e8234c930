package results

import (
	"encoding/json"
	"fmt"
	"reflect"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/wI2L/jsondiff"

	"github.com/sifu-dev/sifu/internal/engine"
)

// transcriptLine is one exchange of one test in transcript.jsonl. Its
// outcome is written whole, or as OutcomePatch: the JSON Patch that makes
// it from the outcome of an earlier line of the same test.
type transcriptLine struct {
	Test string `json:"test"`
	engine.Exchange
	OutcomePatch *outcomePatch `json:"outcome_patch,omitempty"`
}

// outcomePatch is an outcome written as the change from another: Of is the
// line (of transcript.jsonl, from 1) whose outcome it patches, Ops the
// RFC 6902 operations.
type outcomePatch struct {
	Of  int             `json:"of"`
	Ops json.RawMessage `json:"ops"`
}

// patchBases is how many earlier outcomes of a test an outcome is compared
// with to find the smallest patch: the state a step observes (ACP's folder,
// its event log and protocol.json) is mostly the last step's.
const patchBases = 4

// encodeTranscript writes a test's exchanges as transcript lines, the
// first at line number first. An outcome is written as a patch of an
// earlier outcome of the test when the patch is shorter than the outcome
// and rebuilds it exactly.
func encodeTranscript(test string, exchanges []engine.Exchange, first int) ([][]byte, error) {
	type base struct {
		line int
		raw  []byte
		doc  any
	}
	var bases []base
	out := make([][]byte, 0, len(exchanges))
	for i, ex := range exchanges {
		tl := transcriptLine{Test: test, Exchange: ex}
		if ex.Outcome != nil {
			raw, err := json.Marshal(ex.Outcome)
			if err != nil {
				return nil, err
			}
			var doc any
			if err := json.Unmarshal(raw, &doc); err != nil {
				return nil, err
			}
			var best *outcomePatch
			for _, b := range bases[max(len(bases)-patchBases, 0):] {
				ops, ok := patchOf(b.raw, b.doc, doc)
				if ok && len(ops)+len(`,"outcome_patch":{"of":000000,"ops":}`) < len(raw) && (best == nil || len(ops) < len(best.Ops)) {
					best = &outcomePatch{Of: b.line, Ops: ops}
				}
			}
			if best != nil {
				tl.Outcome, tl.OutcomePatch = nil, best
			}
			bases = append(bases, base{line: first + i, raw: raw, doc: doc})
		}
		raw, err := json.Marshal(tl)
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, nil
}

// patchOf is the JSON Patch from one outcome to another, when applying it
// gives the second back exactly.
func patchOf(fromRaw []byte, from, to any) (json.RawMessage, bool) {
	p, err := jsondiff.Compare(from, to)
	if err != nil {
		return nil, false
	}
	ops := json.RawMessage("[]") // the same outcome again
	if len(p) > 0 {
		if ops, err = json.Marshal(p); err != nil {
			return nil, false
		}
	}
	got, err := applyPatch(fromRaw, ops)
	if err != nil {
		return nil, false
	}
	var back any
	if json.Unmarshal(got, &back) != nil || !reflect.DeepEqual(back, to) {
		return nil, false
	}
	return ops, true
}

func applyPatch(doc, ops []byte) ([]byte, error) {
	p, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		return nil, err
	}
	return p.Apply(doc)
}

// decodeTranscript reads a test's lines back into exchanges; lines[0] is
// line number first of the file.
func decodeTranscript(path, test string, lines [][]byte, first int) ([]engine.Exchange, error) {
	outcomes := map[int][]byte{}
	var out []engine.Exchange
	for n, l := range lines {
		at := first + n
		var tl transcriptLine
		if err := json.Unmarshal(l, &tl); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, at, err)
		}
		if tl.Test != test {
			return nil, fmt.Errorf("%s:%d belongs to %q, but the test named here is %s", path, at, tl.Test, test)
		}
		if p := tl.OutcomePatch; p != nil {
			base, ok := outcomes[p.Of]
			if !ok || tl.Outcome != nil {
				return nil, fmt.Errorf("%s:%d: /outcome_patch/of names line %d, which is no earlier answer of %s", path, at, p.Of, test)
			}
			raw, err := applyPatch(base, p.Ops)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: /outcome_patch does not apply to the answer of line %d: %w", path, at, p.Of, err)
			}
			var o engine.Outcome
			if err := json.Unmarshal(raw, &o); err != nil {
				return nil, fmt.Errorf("%s:%d: /outcome_patch makes no answer: %w", path, at, err)
			}
			tl.Outcome = &o
		}
		if tl.Outcome != nil {
			raw, err := json.Marshal(tl.Outcome)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, at, err)
			}
			outcomes[at] = raw
		}
		out = append(out, tl.Exchange)
	}
	return out, nil
}
