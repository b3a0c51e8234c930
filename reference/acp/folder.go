package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
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

// ReadProtocol reads protocol.json, failing with the upstream messages.
func ReadProtocol(folder string) (Protocol, error) {
	raw, err := os.ReadFile(filepath.Join(folder, "protocol.json"))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, refuse("missing protocol.json in %s", folder)
	}
	if err != nil {
		return nil, refuse("invalid protocol.json: %v", err)
	}
	var p any
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&p); err != nil {
		return nil, refuse("invalid protocol.json: %v", err)
	}
	if dec.More() {
		return nil, refuse("invalid protocol.json: extra data after the object")
	}
	obj, ok := p.(map[string]any)
	if !ok {
		return nil, refuse("invalid protocol.json: the top level must be an object")
	}
	return Protocol(obj), nil
}

// ReadEvents reads events.jsonl; blank lines are skipped. A missing file is
// reported as fs.ErrNotExist.
func ReadEvents(folder string) ([]Event, []byte, error) {
	raw, err := os.ReadFile(filepath.Join(folder, "events.jsonl"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fs.ErrNotExist
		}
		return nil, nil, refuse("cannot read events.jsonl: %v", err)
	}
	events, err := ParseEvents(raw)
	return events, raw, err
}

// ParseEvents decodes event lines, keeping numbers exact.
func ParseEvents(raw []byte) ([]Event, error) {
	var events []Event
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, refuse("events.jsonl line %d: invalid JSON: %v", n, err)
		}
		if dec.More() {
			return nil, refuse("events.jsonl line %d: invalid JSON: extra data after the object", n)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, refuse("events.jsonl line %d: event must be an object", n)
		}
		events = append(events, Event{Line: n, Fields: obj})
	}
	if err := sc.Err(); err != nil {
		return nil, refuse("events.jsonl: %v", err)
	}
	return events, nil
}

func readText(folder, name string) string {
	raw, _ := os.ReadFile(filepath.Join(folder, name))
	return string(raw)
}

// lockFolder takes an exclusive advisory lock on the folder itself, so no
// lock file ever appears among the protocol files. It returns the unlock.
func lockFolder(folder string) (func(), error) {
	d, err := os.Open(folder)
	if err != nil {
		return nil, refuse("cannot open %s: %v", folder, err)
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		d.Close()
		return nil, refuse("cannot lock %s: %v", folder, err)
	}
	return func() {
		_ = syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
		d.Close()
	}, nil
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

func maxSeq(events []Event) int {
	m := 0
	for _, e := range events {
		if n, ok := e.Seq(); ok && n > m {
			m = n
		}
	}
	return m
}

func itoa(n int) string { return strconv.Itoa(n) }
