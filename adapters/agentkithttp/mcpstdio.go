package agentkithttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// MCPStubEnv, set in a process's environment, makes any binary that links
// this package (sifu itself, a test binary) the stub MCP server over stdio
// instead of what it would be: the value is the relay address of the check
// and source it serves, or "refuse" for a server that will not start. The
// generated configuration of an stdio MCP source launches the running
// binary so; nothing needs installing.
const MCPStubEnv = "SIFU_AGENTKIT_MCP_STUB"

func init() {
	relay := os.Getenv(MCPStubEnv)
	if relay == "" {
		return
	}
	os.Exit(serveStdioStub(relay))
}

// serveStdioStub serves the stub MCP server on stdin and stdout until the
// gateway closes stdin, relaying every request to the stub at relay.
func serveStdioStub(relay string) int {
	if relay == "refuse" {
		fmt.Fprintln(os.Stderr, "sifu stub MCP server: refusing to start (scripted for this check)")
		return 3
	}
	srv := newMCPServer(relayRecorder{url: relay, client: &http.Client{Timeout: 30 * time.Second}})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintf(os.Stderr, "sifu stub MCP server: %v\n", err)
		return 1
	}
	return 0
}

// stubCommand is the command an stdio MCP source runs: this binary.
func stubCommand() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", &SetupError{Msg: fmt.Sprintf("cannot name sifu's own binary for the stdio stub MCP server: %v", err)}
	}
	return exe, nil
}

// relayRecorder reports to the stub over HTTP.
type relayRecorder struct {
	url    string
	client *http.Client
}

func (r relayRecorder) record(ctx context.Context, req agentkit.MCPRequest) (mcpCallAnswer, error) {
	raw, _ := json.Marshal(req)
	hreq, err := http.NewRequestWithContext(ctx, "POST", r.url, bytes.NewReader(raw))
	if err != nil {
		return mcpCallAnswer{}, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := r.client.Do(hreq)
	if err != nil {
		return mcpCallAnswer{}, fmt.Errorf("sifu stub MCP server: the harness at %s is gone: %w", r.url, err)
	}
	defer resp.Body.Close()
	var ans mcpCallAnswer
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		return mcpCallAnswer{}, fmt.Errorf("sifu stub MCP server: relay answer: %w", err)
	}
	return ans, nil
}
