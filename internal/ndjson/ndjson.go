// Package ndjson speaks newline-delimited JSON to a subprocess: one request
// per line on its standard input, one answer per line on its standard
// output, matched by the request's id, so requests may overlap. It keeps
// the end of the process's standard error for messages, and ends every
// request in flight when the process stops answering. The Kungfu stdio
// adapter and the KCP planner runner adapter both speak through it.
package ndjson

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/internal/proc"
)

// Options say how to start and read a process.
type Options struct {
	Dir string   // working directory ("" for sifu's)
	Env []string // environment (nil for sifu's)
	// Who names the process in messages ("the implementation").
	Who string
	// Answer names what a line must be in messages ("binding answer").
	Answer string
	// MaxLine bounds one answer line.
	MaxLine int
	// Tail is how many bytes of standard error are kept.
	Tail int
	// SkipBlank passes over empty lines instead of refusing them.
	SkipBlank bool
}

// Conn is one running process.
type Conn struct {
	opts    Options
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  *Tail
	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[string]chan []byte
	dead    error // why the process stopped answering
	done    chan struct{}
}

// Start runs command through sh -c, in a process group of its own so that
// killing it reaches whatever the shell started.
func Start(command string, o Options) (*Conn, error) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir, cmd.Env = o.Dir, o.Env
	proc.Isolate(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &Conn{opts: o, cmd: cmd, stdin: stdin, stderr: &Tail{Max: o.Tail}, pending: map[string]chan []byte{}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %q: %w", command, err)
	}
	go c.readLoop(stdout)
	return c, nil
}

// Key is an id's canonical text: 1 and 1.0 are one id.
func Key(raw json.RawMessage) string {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if f, err := n.Float64(); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return string(bytes.TrimSpace(raw))
}

// readLoop routes answers to their requests. A line that is no answer, or
// answers no pending request, breaks the connection: the process is killed
// and every waiting request ends.
func (c *Conn) readLoop(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), c.opts.MaxLine)
	var why error
	for sc.Scan() {
		line := sc.Bytes()
		if c.opts.SkipBlank {
			if line = bytes.TrimSpace(line); len(line) == 0 {
				continue
			}
		}
		var head struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(line, &head); err != nil || len(head.ID) == 0 || string(head.ID) == "null" {
			why = fmt.Errorf("%s wrote a line that is not a%s %s: %q", c.opts.Who, article(c.opts.Answer), c.opts.Answer, excerpt(line))
			break
		}
		key := Key(head.ID)
		c.mu.Lock()
		ch, ok := c.pending[key]
		delete(c.pending, key)
		c.mu.Unlock()
		if !ok {
			why = fmt.Errorf("%s answered id %s, which no request is waiting for", c.opts.Who, key)
			break
		}
		ch <- append([]byte(nil), line...)
	}
	if why == nil {
		why = sc.Err()
		if errors.Is(why, bufio.ErrTooLong) {
			why = fmt.Errorf("%s (%q) wrote a line longer than %s, the longest sifu reads: write each %s as one JSON document of at most that size on one line",
				c.opts.Who, c.cmd.Args[len(c.cmd.Args)-1], SizeLabel(c.opts.MaxLine), c.opts.Answer)
		}
	}
	if why != nil {
		c.Fail(why)
		c.Kill()
	}
	err := c.cmd.Wait()
	c.Fail(fmt.Errorf("%s %s", c.opts.Who, proc.Ended(err)))
	close(c.done)
}

// SizeLabel says n bytes in MiB when it is a whole number of them.
func SizeLabel(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	}
	return fmt.Sprintf("%d bytes", n)
}

func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "n"
	}
	return ""
}

func excerpt(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// Fail records the first reason the process stopped answering and ends
// every pending request with it.
func (c *Conn) Fail(why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead == nil {
		c.dead = why
	}
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

// Dead is why the process stopped answering, or nil while it answers.
func (c *Conn) Dead() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

// Kill ends the process group without warning (SIGKILL on Unix).
func (c *Conn) Kill() { proc.Kill(c.cmd) }

// Done is closed once the process has exited and its output is read.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Stderr is the end of what the process wrote to standard error.
func (c *Conn) Stderr() string { return c.stderr.String() }

// Write writes raw bytes to the process's input (a line cut in half).
func (c *Conn) Write(b []byte) {
	c.writeMu.Lock()
	_, _ = c.stdin.Write(b)
	c.writeMu.Unlock()
}

// CloseInput closes the process's standard input, which tells a process
// that reads requests until their end to finish.
func (c *Conn) CloseInput() error { return c.stdin.Close() }

// Stopped is a request the process will not answer: it stopped answering
// (Why), and Stderr is what it wrote last.
type Stopped struct {
	Why    error
	Stderr string
}

func (e *Stopped) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("%v; it wrote nothing on standard error", e.Why)
	}
	return fmt.Sprintf("%v; its standard error ends: %q", e.Why, e.Stderr)
}
func (e *Stopped) Unwrap() error { return e.Why }

// stopped is the error of a request the process will not answer. It quotes
// the stderr tail once the process has ended and its stderr is drained
// (it is being killed by then), so the message holds what it said last; a
// process that lingers is quoted as it is after a moment.
func (c *Conn) stopped(why error) error {
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
	}
	return &Stopped{Why: why, Stderr: c.stderr.String()}
}

// Call writes one request line whose id is key (Key of the id it holds)
// and waits for the answer line, the context, or the process's end: a
// *Stopped error when the process will not answer, the context's error
// when it ran out.
func (c *Conn) Call(ctx context.Context, key string, line []byte) ([]byte, error) {
	ch := make(chan []byte, 1)
	c.mu.Lock()
	if c.dead != nil {
		why := c.dead
		c.mu.Unlock()
		return nil, c.stopped(why)
	}
	c.pending[key] = ch
	c.mu.Unlock()
	c.writeMu.Lock()
	_, err := c.stdin.Write(append(line, '\n'))
	c.writeMu.Unlock()
	if err != nil {
		// A process that exited (or whose stream was cut) before it read
		// the request: say why it stopped, once its end is read, rather
		// than the broken pipe.
		select {
		case <-c.done:
		case <-time.After(2 * time.Second):
		}
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
		why := c.Dead()
		if why == nil {
			why = fmt.Errorf("write to %s: %w", c.opts.Who, err)
		}
		return nil, c.stopped(why)
	}
	select {
	case a, ok := <-ch:
		if !ok {
			return nil, c.stopped(c.Dead())
		}
		return a, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

// Late is a request that got no answer before its deadline: Msg says so in
// words, and Cause (the context's error) stays in the chain for errors.Is.
type Late struct {
	Msg   string
	Cause error
}

func (e *Late) Error() string { return e.Msg }
func (e *Late) Unwrap() error { return e.Cause }

// IsStopped reports whether err is a request the process will not answer.
func IsStopped(err error) bool {
	var s *Stopped
	return errors.As(err, &s)
}

// Tail keeps the last Max bytes written to it.
type Tail struct {
	mu  sync.Mutex
	Max int
	buf []byte
}

func (t *Tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.Max {
		t.buf = t.buf[len(t.buf)-t.Max:]
	}
	return len(b), nil
}

// String is the kept bytes as text, trimmed.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(bytes.ToValidUTF8(t.buf, nil)))
}
