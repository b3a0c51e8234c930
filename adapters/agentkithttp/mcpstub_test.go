package agentkithttp

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// TestStubMCPServerRecordsAndAnswers drives the stub MCP server with the
// SDK's own client over each transport (stdio through this test binary,
// which the init hook turns into the server): it lists its tools, records
// the handshake and every call with its arguments per check, and answers
// a call as the script of its ref says.
func TestStubMCPServerRecordsAndAnswers(t *testing.T) {
	stub, err := StartStub("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stub.Close()
	stub.SetScript("k1-main", agentkit.Script{Tools: map[string]string{"charge": "iserror", "wipe": "fail"}})
	for _, transport := range []string{"stdio", "sse", "http"} {
		t.Run(transport, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cfg, err := stub.mcpConfig("k1", agentkit.MCPSource{Name: "src_" + transport, Transport: transport})
			if err != nil {
				t.Fatal(err)
			}
			var tr mcp.Transport
			switch transport {
			case "stdio":
				cmd := exec.Command(cfg["command"].(string))
				cmd.Env = append(os.Environ(), MCPStubEnv+"="+cfg["env"].(map[string]string)[MCPStubEnv])
				tr = &mcp.CommandTransport{Command: cmd}
			case "sse":
				tr = &mcp.SSEClientTransport{Endpoint: cfg["url"].(string)}
			default:
				tr = &mcp.StreamableClientTransport{Endpoint: cfg["url"].(string)}
			}
			session, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer session.Close()
			var names []string
			for tool, err := range session.Tools(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"charge", "find", "secret", "wipe"}) {
				t.Fatalf("tools %v", names)
			}
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "find", Arguments: map[string]any{"ref": "k1-main", "extra": 7}})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text == "" {
				t.Fatalf("find: %v %+v", err, res)
			}
			if res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "charge", Arguments: map[string]any{"ref": "k1-main"}}); err != nil || !res.IsError {
				t.Fatalf("charge should answer isError: %v %+v", err, res)
			}
			if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "wipe", Arguments: map[string]any{"ref": "k1-main"}}); err == nil {
				t.Fatal("wipe should fail")
			}
			var methods []string
			for _, r := range stub.MCPRequests("k1", "src_"+transport) {
				methods = append(methods, r.Method)
			}
			for _, m := range []string{"initialize", "notifications/initialized", "tools/list", "tools/call"} {
				if !slices.Contains(methods, m) {
					t.Fatalf("%s not recorded: %v", m, methods)
				}
			}
		})
	}
	if n := stub.ToolCalls("k1-main", "find"); n != 3 {
		t.Fatalf("find counted %d times, want 3 (one per transport)", n)
	}
	if last := stub.ToolCallRecords("k1-main", "find")[2]; last.Method != "MCP" || last.Body["extra"] != 7.0 {
		t.Fatalf("record %+v", last)
	}
}

// TestStubMCPServerRefusesOnCue: the stdio command exits at once and the
// HTTP endpoints answer 503 for a source that must not start.
func TestStubMCPServerRefusesOnCue(t *testing.T) {
	stub, err := StartStub("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stub.Close()
	cfg, err := stub.mcpConfig("k2", agentkit.MCPSource{Name: "kb", Transport: "stdio", Down: true})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cfg["command"].(string))
	cmd.Env = append(os.Environ(), MCPStubEnv+"="+cfg["env"].(map[string]string)[MCPStubEnv])
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the refusing stdio server exited 0: %s", out)
	}
	for _, transport := range []string{"sse", "http"} {
		cfg, _ := stub.mcpConfig("k2", agentkit.MCPSource{Name: "kb", Transport: transport, Down: true})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var tr mcp.Transport = &mcp.SSEClientTransport{Endpoint: cfg["url"].(string)}
		if transport == "http" {
			tr = &mcp.StreamableClientTransport{Endpoint: cfg["url"].(string), MaxRetries: -1}
		}
		if s, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, tr, nil); err == nil {
			s.Close()
			t.Fatalf("%s: connected to a server that refuses", transport)
		}
		cancel()
	}
}

// refusesMCP launches a "gateway" that starts unless its app.yaml has an
// MCP source.
type refusesMCP struct{ starts *int }

func (refusesMCP) Hello() agentkit.Hello { return agentkit.Hello{Implementation: "no-mcp"} }

func (r refusesMCP) Launch(_ context.Context, dir, _ string) (Instance, error) {
	*r.starts++
	raw, err := os.ReadFile(dir + "/app.yaml")
	if err != nil {
		return nil, err
	}
	if strings.Contains(string(raw), "type: mcp") {
		return nil, &StartFailure{ExitCode: 1, Stderr: "log line\nunknown source type \"mcp\"\n"}
	}
	return fixedUp{}, nil
}

type fixedUp struct{}

func (fixedUp) URL() string { return "http://127.0.0.1:1" }
func (fixedUp) Stop() error { return nil }

// TestProbeNamesTheMCPSourcesAGatewayRefuses: a gateway that starts with
// the default configuration but not with MCP sources is said once, naming
// the sources and with the end of its output.
func TestProbeNamesTheMCPSourcesAGatewayRefuses(t *testing.T) {
	stub, err := StartStub("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stub.Close()
	starts := 0
	m := &Managed{Launcher: refusesMCP{&starts}, Client: NewClient(time.Second), Server: stub}
	err = m.Probe(context.Background())
	var pe *ProbeError
	if !errors.As(err, &pe) {
		t.Fatalf("want a ProbeError, got %v", err)
	}
	for _, want := range []string{"probe_stdio", "probe_sse", "probe_http", "exited with status 1", `unknown source type "mcp"`, "--target-config"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the message lacks %q: %s", want, err)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("the message is not one line: %q", err)
	}
	if starts != 3 {
		t.Errorf("%d starts, want 3 (default, with MCP sources, default again)", starts)
	}
}
