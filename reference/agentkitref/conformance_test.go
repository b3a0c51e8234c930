package agentkitref_test

import (
	"testing"

	"github.com/sifu-dev/sifu/adapters/agentkithttp"
	"github.com/sifu-dev/sifu/adapters/agentkitinproc"
	"github.com/sifu-dev/sifu/suite/agentkit"
)

// TestConformance runs the agent-kit suite against the reference gateway,
// started in process for each check and talking to sifu's stub model and
// tools, through the suite's public entry: every check a subtest.
func TestConformance(t *testing.T) {
	stub, err := agentkithttp.StartStub("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stub.Close() })
	agentkit.Test(t, func() (agentkit.Target, error) {
		return &agentkithttp.Managed{Launcher: agentkitinproc.Launcher{}, Client: agentkithttp.NewClient(0), Server: stub}, nil
	})
}
