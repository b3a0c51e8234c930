package kcpinproc_test

import (
	"testing"
	"time"

	"github.com/sifu-dev/sifu/adapters/kcpinproc"
)

// TestTheClockNeverReadsOneInstantTwice: without SOURCE_DATE_EPOCH a
// check's clock is the wall clock at millisecond resolution, each reading
// later than the one before, however fast they come (memory orders a
// task's episodes by recordedAt, which has milliseconds); with it, each
// reading is one second after the last, from the epoch.
func TestTheClockNeverReadsOneInstantTwice(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "")
	now := kcpinproc.NewClock()
	start := time.Now().UTC().Add(-time.Millisecond)
	last := time.Time{}
	for range 1000 {
		r := now()
		if !r.After(last) || r.Before(start) || r.Truncate(time.Millisecond) != r {
			t.Fatalf("reading %v after %v (start %v)", r, last, start)
		}
		last = r
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1764460800")
	epoch := kcpinproc.NewClock()
	if a, b := epoch(), epoch(); !a.Equal(time.Unix(1764460801, 0)) || b.Sub(a) != time.Second {
		t.Errorf("from the epoch: %v, then %v", a, b)
	}
}
