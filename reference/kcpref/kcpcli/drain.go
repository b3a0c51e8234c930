package kcpcli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// draining sits between the MCP server and its stdin and stdout so that
// a client that writes its requests and closes stdin still gets every
// answer, as from kcp-agent, which answers in order: the end of input is
// passed on only once every request read has been answered.
type draining struct {
	in      *bufio.Reader
	out     io.Writer
	mu      sync.Mutex
	pending int
	idle    *sync.Cond
	buf     []byte
}

func newDraining(in io.Reader, out io.Writer) *draining {
	d := &draining{in: bufio.NewReaderSize(in, 1<<16), out: out}
	d.idle = sync.NewCond(&d.mu)
	return d
}

// message is what draining reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (d *draining) Read(p []byte) (int, error) {
	if len(d.buf) == 0 {
		line, err := d.in.ReadBytes('\n')
		if len(line) > 0 {
			var m message
			if json.Unmarshal(bytes.TrimSpace(line), &m) == nil && m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
				d.mu.Lock()
				d.pending++
				d.mu.Unlock()
			}
			d.buf = line
		} else if err != nil {
			d.mu.Lock()
			for d.pending > 0 {
				d.idle.Wait()
			}
			d.mu.Unlock()
			return 0, err
		}
	}
	n := copy(p, d.buf)
	d.buf = d.buf[n:]
	return n, nil
}

func (d *draining) Write(p []byte) (int, error) {
	n, err := d.out.Write(p)
	for _, line := range bytes.Split(p, []byte("\n")) {
		var m message
		if json.Unmarshal(bytes.TrimSpace(line), &m) == nil && m.Method == "" && len(m.ID) > 0 {
			d.mu.Lock()
			if d.pending > 0 {
				d.pending--
			}
			d.idle.Broadcast()
			d.mu.Unlock()
		}
	}
	return n, err
}

func (d *draining) Close() error { return nil }
