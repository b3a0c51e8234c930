// Package progress shows how far a long command has got (done/total and
// the time elapsed) on one line of a terminal, and nothing when its output
// is not a terminal, so logs and pipes stay clean.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
)

// Meter redraws one status line. The zero Meter and a nil *Meter show
// nothing.
type Meter struct {
	w     io.Writer
	label string
	total int
	start time.Time
	now   func() time.Time

	mu   sync.Mutex
	done int
	last time.Time
	drew bool
}

// every is the least time between two redraws.
const every = 200 * time.Millisecond

// New returns a meter writing to w when w is a terminal, and one that shows
// nothing otherwise. total may be 0 when it is not known.
func New(w io.Writer, label string, total int) *Meter {
	f, ok := w.(*os.File)
	if !ok || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return nil
	}
	return newMeter(w, label, total, time.Now)
}

func newMeter(w io.Writer, label string, total int, now func() time.Time) *Meter {
	return &Meter{w: w, label: label, total: total, start: now(), now: now}
}

// Add counts n more units done and redraws the line when enough time has
// passed since the last redraw.
func (m *Meter) Add(n int) {
	if m == nil || m.w == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done += n
	if t := m.now(); !m.drew || t.Sub(m.last) >= every || m.done == m.total {
		m.last, m.drew = t, true
		fmt.Fprintf(m.w, "\r\x1b[K%s", m.line(t))
	}
}

// Done clears the line, so the command's summary follows on a clean one.
func (m *Meter) Done() {
	if m == nil || m.w == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.drew {
		fmt.Fprint(m.w, "\r\x1b[K")
	}
}

func (m *Meter) line(t time.Time) string {
	elapsed := t.Sub(m.start).Round(time.Second)
	if m.total > 0 {
		return fmt.Sprintf("%s: %d/%d, %s elapsed", m.label, m.done, m.total, elapsed)
	}
	return fmt.Sprintf("%s: %d, %s elapsed", m.label, m.done, elapsed)
}

// Ended is a meter for a count told as it goes (done of total, total
// known from the first call): the meter is made on the first call and
// cleared on the last.
func Ended(w io.Writer, label string) func(done, total int) {
	return ended(func(total int) *Meter { return New(w, label, total) })
}

func ended(meter func(total int) *Meter) func(done, total int) {
	var m *Meter
	return func(done, total int) {
		if done == 1 {
			m = meter(total)
		}
		m.Add(1)
		if done == total {
			m.Done()
		}
	}
}
