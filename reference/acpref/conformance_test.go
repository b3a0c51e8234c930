package acpref_test

import (
	"testing"

	"github.com/sifu-dev/sifu/adapters/acpinproc"
	"github.com/sifu-dev/sifu/suite/acp"
)

// TestConformance runs the ACP suite against the reference tools, in
// process, through the suite's public entry: every check a subtest.
func TestConformance(t *testing.T) {
	acp.Test(t, func() (acp.Target, error) { return acpinproc.Reference{}, nil })
}
