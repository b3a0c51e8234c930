package kungfuref_test

import (
	"testing"

	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// TestConformance runs the Kungfu suite against the reference, in process,
// through the suite's public entry: every check a subtest.
func TestConformance(t *testing.T) {
	kungfu.Test(t, func() (kungfu.Target, error) { return kungfuinproc.New() })
}
