package kcpcli

import (
	"bytes"
	"fmt"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// TestServeArgs: a port as the one positional (3100 when none), the
// documented flags, and a usage error for anything else.
func TestServeArgs(t *testing.T) {
	cfg, err := ParseServeArgs([]string{"4100", "--api-key", "k", "--manifest", "m.yaml", "--public-url", "https://x/mcp", "--allow-private-hosts"})
	if err != nil || !reflect.DeepEqual(cfg, ServeConfig{Port: 4100, APIKey: "k", Manifest: "m.yaml", PublicURL: "https://x/mcp", AllowPrivate: true}) {
		t.Errorf("%+v %v", cfg, err)
	}
	cfg, err = ParseServeArgs([]string{"--no-verify", "--require-signature", "--trust-key", "key.pem"})
	if err != nil || !reflect.DeepEqual(cfg.Signature, kcpref.SignaturePolicy{NoVerify: true, Require: true, TrustedKey: "key.pem"}) {
		t.Errorf("signature options: %+v %v", cfg, err)
	}
	if cfg, err := ParseServeArgs(nil); err != nil || cfg.Port != DefaultPort {
		t.Errorf("no port: %+v %v", cfg, err)
	}
	for _, bad := range [][]string{{"--port", "1"}, {"abc"}, {"0"}, {"70000"}, {"1", "2"}, {"--api-key"}, {"--trust-key"}} {
		if _, err := ParseServeArgs(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// TestServeOnAPortInUse: one line naming the port and what to do, exit 2.
func TestServeOnAPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	var out, errs bytes.Buffer
	code := CLI{Stdout: &out, Stderr: &errs}.Main([]string{"serve", fmt.Sprint(port)})
	msg := errs.String()
	if code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, fmt.Sprintf("port %d is already in use", port)) || !strings.Contains(msg, "another port") {
		t.Errorf("exit %d, %q", code, msg)
	}
}
