package kcpcli

import (
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// TestFaultedDiscoverDialsOnlyLoopback: with discover's guard switched
// off by a planted fault, a fetch still never leaves the machine (the
// reference's safety rail), while an unfaulted discover refuses the host
// in its guard before any dial.
func TestFaultedDiscoverDialsOnlyLoopback(t *testing.T) {
	c := CLI{Faults: []kcpref.Fault{kcpref.FaultDiscoverUnguarded}}
	g := discoverGuard{allowPrivate: true, client: c.discoverClient()}
	// 192.0.2.1 is TEST-NET-1: documentation only, never a real host.
	if _, err := g.fetch("http://192.0.2.1/knowledge.yaml"); err == nil || !strings.Contains(err.Error(), "dials only loopback") {
		t.Errorf("a faulted fetch of 192.0.2.1: %v, want the loopback-only refusal", err)
	}
	if kcpref.FaultedTransport(nil) != nil {
		t.Error("an unfaulted reference has a restricted transport")
	}
}
