package kcpref_test

import (
	"testing"

	"github.com/sifu-dev/sifu/adapters/kcpinproc"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// TestConformance runs the KCP suite against the reference planner, in
// process, through the suite's public entry: every check a subtest.
func TestConformance(t *testing.T) {
	kcp.Test(t, func() (kcp.Target, error) { return kcpinproc.Reference{}, nil })
}
