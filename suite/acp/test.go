package acp

import (
	"testing"

	"github.com/sifu-dev/sifu/suite"
)

// Test runs the ACP suite under go test against the implementations
// newTarget makes, a fresh one for each check: each check is a subtest
// named by its stable check ID, with the verdict sifu run gives it.
// Package suite says what a run reports and writes (SIFU_OUT).
func Test(t *testing.T, newTarget func() (Target, error), opts ...suite.Option) {
	t.Helper()
	suite.Run(t, Suite, RunTarget{New: suite.Factory(newTarget)}, opts...)
}
