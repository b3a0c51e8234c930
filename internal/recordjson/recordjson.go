// Package recordjson lays JSON out for reading and for line diffs: objects
// are indented a member per line, and an array of objects or arrays puts
// each element on a line of its own, compact. A results file or a
// statement is then a line per test and per rule, so a change to one check
// changes the lines of that check's verdicts, and the file is a fraction of
// its size fully indented.
package recordjson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Marshal encodes v (without HTML escapes) in the record layout, ending
// with a newline.
func Marshal(v any) ([]byte, error) {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := layout(&out, bytes.TrimSuffix(compact.Bytes(), []byte("\n")), ""); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// layout writes raw, compact JSON, at the indentation ind.
func layout(out *bytes.Buffer, raw []byte, ind string) error {
	if len(raw) == 0 {
		return fmt.Errorf("recordjson: empty value")
	}
	switch raw[0] {
	case '{':
		return object(out, raw, ind)
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return err
		}
		records := false
		for _, e := range elems {
			records = records || e[0] == '{' || e[0] == '['
		}
		if !records {
			out.Write(raw)
			return nil
		}
		out.WriteString("[\n")
		for i, e := range elems {
			out.WriteString(ind + "  ")
			out.Write(e)
			if i < len(elems)-1 {
				out.WriteByte(',')
			}
			out.WriteByte('\n')
		}
		out.WriteString(ind + "]")
		return nil
	default:
		out.Write(raw)
		return nil
	}
}

// object writes an object's members in their order, one per line.
func object(out *bytes.Buffer, raw []byte, ind string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	first := true
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if first {
			out.WriteString("{\n")
		} else {
			out.WriteString(",\n")
		}
		first = false
		key, err := marshalKey(tok.(string))
		if err != nil {
			return err
		}
		out.WriteString(ind + "  ")
		out.Write(key)
		out.WriteString(": ")
		if err := layout(out, v, ind+"  "); err != nil {
			return err
		}
	}
	if first {
		out.WriteString("{}")
		return nil
	}
	out.WriteString("\n" + ind + "}")
	return nil
}

func marshalKey(k string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(k); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
