package acpref

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Error is a refusal of a tool, with the exit code it ends with.
type Error struct {
	Code int
	Msg  string
	// Usage marks errors of the command line itself (argparse's exit 2).
	Usage bool
}

func (e *Error) Error() string { return e.Msg }

func refuse(format string, args ...any) error {
	return &Error{Code: 2, Msg: fmt.Sprintf(format, args...)}
}

func usageError(format string, args ...any) error {
	return &Error{Code: 2, Usage: true, Msg: fmt.Sprintf(format, args...)}
}

// ReadProtocol reads protocol.json, failing with the upstream messages. A
// file that is not UTF-8, or whose top level is not an object, is refused
// with a message naming the problem (upstream's scripts crash on both).
func ReadProtocol(folder string) (Protocol, error) {
	raw, err := os.ReadFile(filepath.Join(folder, "protocol.json"))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, refuse("missing protocol.json in %s", folder)
	}
	if err != nil {
		return nil, refuse("invalid protocol.json: %v", err)
	}
	if line, col, b, bad := firstInvalidUTF8(raw); bad {
		return nil, refuse("invalid protocol.json: not valid UTF-8 (byte 0x%02x at line %d, column %d)", b, line, col)
	}
	v, err := decodeJSON(string(raw))
	if err != nil {
		return nil, refuse("invalid protocol.json: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, refuse("invalid protocol.json: the top level must be an object, not %s", jsonKind(v))
	}
	return Protocol(obj), nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// decodeJSON is json.loads on one text: one value, surrounded only by JSON
// whitespace, numbers kept exact.
func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if rest := strings.TrimLeft(s[dec.InputOffset():], " \t\n\r"); rest != "" {
		return nil, fmt.Errorf("extra data after the value at offset %d", len(s)-len(rest))
	}
	return v, nil
}

// firstInvalidUTF8 finds the first byte that is not UTF-8: its line and
// column (1-based, columns in characters) and the byte.
func firstInvalidUTF8(raw []byte) (line, col int, b byte, bad bool) {
	if utf8.Valid(raw) {
		return 0, 0, 0, false
	}
	line, col = 1, 1
	for i := 0; i < len(raw); {
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size <= 1 {
			return line, col, raw[i], true
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return 0, 0, 0, false
}

// EventsRead is events.jsonl as read: the events that parsed and what kept
// the others (or the file) from being read.
type EventsRead struct {
	Events   []Event
	Problems []Finding // in line order
	Missing  bool
	Raw      []byte
}

// Messages are the problems' texts.
func (r EventsRead) Messages() []string {
	out := make([]string, len(r.Problems))
	for i, p := range r.Problems {
		out[i] = p.Message
	}
	return out
}

// ReadEvents reads events.jsonl. compat reads it as the upstream scripts
// do (universal newlines, then str.splitlines()); otherwise lines end at
// "\n" (a "\r" before it is allowed) and a raw line separator inside a
// line is a problem of its own (ACP-STRICT-RAW-SEPARATOR). Either way a line
// that is not JSON, or not an object, is a problem and the other lines are
// still read, and bytes that are not UTF-8 are a problem naming the line.
func ReadEvents(folder string, compat bool) (EventsRead, error) {
	raw, err := os.ReadFile(filepath.Join(folder, "events.jsonl"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return EventsRead{Missing: true}, nil
		}
		return EventsRead{}, refuse("cannot read events.jsonl: %v", err)
	}
	r := ParseEvents(raw, compat)
	r.Raw = raw
	return r, nil
}

// ParseEvents decodes event lines (see ReadEvents).
func ParseEvents(raw []byte, compat bool) EventsRead {
	var r EventsRead
	problem := func(line int, msg, rule string) {
		r.Problems = append(r.Problems, Finding{Message: msg, File: "events.jsonl", Line: line, Rule: rule})
	}
	// Bytes that are not UTF-8 are named by their line in the file.
	for n, l := range bytes.SplitAfter(raw, []byte("\n")) {
		if _, col, b, bad := firstInvalidUTF8(l); bad {
			problem(n+1, fmt.Sprintf("events.jsonl line %d: not valid UTF-8 (byte 0x%02x at column %d)", n+1, b, col), "")
		}
	}
	text := strings.ToValidUTF8(string(raw), "\uFFFD")
	var lines []string
	if compat {
		lines = pySplitlines(universalNewlines(text))
	} else {
		lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if text == "" {
			lines = nil
		}
	}
	for i, line := range lines {
		n := i + 1
		if !compat {
			line = strings.TrimSuffix(line, "\r")
		}
		if pyBlank(line) {
			continue
		}
		if !compat {
			col := 0
			for _, c := range line {
				col++
				if name, ok := rawSeparators[c]; ok {
					problem(n, fmt.Sprintf("events.jsonl line %d: raw U+%04X (%s) at column %d; write it escaped (\\u%04x), since readers that split lines on it, as Python's splitlines() does, cannot read this event", n, c, name, col, c), "ACP-STRICT-RAW-SEPARATOR")
					break
				}
			}
		}
		v, err := decodeJSON(line)
		if err != nil {
			problem(n, fmt.Sprintf("events.jsonl line %d: invalid JSON: %v", n, err), "")
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			problem(n, fmt.Sprintf("events.jsonl line %d: event must be an object", n), "")
			continue
		}
		r.Events = append(r.Events, Event{Line: n, Fields: obj})
	}
	return r
}

// readDoc reads a document as Python's read_text does (universal
// newlines). Bytes that are not UTF-8 are replaced, and reported.
func readDoc(folder, name string) (string, *Finding) {
	raw, err := os.ReadFile(filepath.Join(folder, name))
	if err != nil {
		return "", nil
	}
	var bad *Finding
	if line, col, b, ok := firstInvalidUTF8(raw); ok {
		bad = &Finding{Message: fmt.Sprintf("%s line %d: not valid UTF-8 (byte 0x%02x at column %d)", name, line, col, b), File: name, Line: line}
	}
	return universalNewlines(strings.ToValidUTF8(string(raw), "\uFFFD")), bad
}

func readText(folder, name string) string {
	s, _ := readDoc(folder, name)
	return s
}

func exists(folder, name string) bool {
	_, err := os.Stat(filepath.Join(folder, name))
	return err == nil
}

// crashPoint, when set by a test, stops a write after the temporary file is
// complete and before it replaces the original: what a crash leaves behind.
var crashPoint func(name string) bool

// replaceFile writes data to a temporary file beside name, syncs it and
// renames it over name, so readers see the old or the new file, never a
// torn one.
func (t *Tools) replaceFile(folder, name string, data []byte) error {
	tmp, err := os.CreateTemp(folder, "."+name+".tmp-")
	if err != nil {
		return refuse("cannot write %s: %v", name, err)
	}
	_, werr := tmp.Write(data)
	var serr error
	if !t.NoSync {
		serr = tmp.Sync()
	}
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return refuse("cannot write %s: %v", name, err)
	}
	if crashPoint != nil && crashPoint(name) {
		return refuse("crashed before replacing %s", name)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(folder, name)); err != nil {
		os.Remove(tmp.Name())
		return refuse("cannot replace %s: %v", name, err)
	}
	if t.NoSync {
		return nil
	}
	if d, err := os.Open(folder); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// writeInPlace is the planted unsafe write (FaultUnlockedAppend): the file
// is truncated and rewritten where it is, as upstream's write_text does, so
// a reader in between sees it empty or half written.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return refuse("cannot write %s: %v", filepath.Base(path), err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return refuse("cannot write %s: %v", filepath.Base(path), err)
	}
	return f.Close()
}

// appendInPlace is the planted unsafe append: O_APPEND with no lock.
func appendInPlace(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return refuse("cannot write %s: %v", filepath.Base(path), err)
	}
	_, werr := f.Write(line)
	return errors.Join(werr, f.Close())
}

func maxSeq(events []Event) int {
	m, any := 0, false
	for _, e := range events {
		if n, ok := e.PySeq(); ok && (!any || n > m) {
			m, any = n, true
		}
	}
	return m
}
