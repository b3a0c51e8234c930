// Command sifu-kcp is the reference KCP planner alone: the same code as
// `sifu kcp`, without the harness, so one planner call costs a few
// milliseconds instead of the whole harness's start-up. It speaks
// kcp-agent's command line, so `--target exec --cmd sifu-kcp` checks it,
// and with --serve the planner runner protocol (docs/kcp-runner.md), so
// `--target exec --cmd "sifu-kcp --serve"` checks every vector in one
// process.
package main

import (
	"os"

	"github.com/sifu-dev/sifu/reference/kcpref/kcpcli"
)

func main() {
	os.Exit(kcpcli.CLI{Name: "sifu-kcp", Stdout: os.Stdout, Stderr: os.Stderr}.Main(os.Args[1:]))
}
