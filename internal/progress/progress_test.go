package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestMeterRedrawsAtMostEvery200ms: a meter shows done/total and the time
// elapsed, redraws no more often than every 200ms (and at the end), and
// clears its line when done; a meter for a non-terminal writes nothing.
func TestMeterRedrawsAtMostEvery200ms(t *testing.T) {
	var b bytes.Buffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := newMeter(&b, "fuzz", 3, func() time.Time { return clock })
	m.Add(1)
	clock = clock.Add(50 * time.Millisecond)
	m.Add(1) // too soon: not drawn
	clock = clock.Add(2 * time.Second)
	m.Add(1)
	m.Done()
	out := b.String()
	if strings.Count(out, "fuzz:") != 2 || !strings.Contains(out, "fuzz: 1/3, 0s elapsed") || !strings.Contains(out, "fuzz: 3/3, 2s elapsed") {
		t.Fatalf("meter output %q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the line is not cleared at the end: %q", out)
	}
	var quiet bytes.Buffer
	New(&quiet, "x", 1).Add(1)
	if quiet.Len() != 0 {
		t.Errorf("a meter on a non-terminal wrote %q", quiet.String())
	}
}

// TestEndedMakesTheMeterOnTheFirstAndClearsItOnTheLast: a count told as
// it goes draws done/total from the first end and clears the line at the
// last.
func TestEndedMakesTheMeterOnTheFirstAndClearsItOnTheLast(t *testing.T) {
	var b bytes.Buffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	made := 0
	end := ended(func(total int) *Meter {
		made++
		return newMeter(&b, "suite kungfu: checks", total, func() time.Time { return clock })
	})
	for done := 1; done <= 3; done++ {
		clock = clock.Add(time.Second)
		end(done, 3)
	}
	out := b.String()
	if made != 1 || !strings.Contains(out, "suite kungfu: checks: 1/3") || !strings.Contains(out, "suite kungfu: checks: 3/3") || !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("made %d meter(s); output %q", made, out)
	}
}
