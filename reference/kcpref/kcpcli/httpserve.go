package kcpcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// DefaultPort is the port serve listens on when none is given, as
// kcp-agent's.
const DefaultPort = 3100

// ServeConfig is what `serve` was asked for.
type ServeConfig struct {
	Port int
	// APIKey, when set, is asked of every request but GET /health and
	// OPTIONS, as a bearer token.
	APIKey string
	// Manifest is put in any tool call or REST body that names none.
	Manifest string
	// PublicURL is checked against the manifest's serving.mcp.
	PublicURL string
	// AllowPrivate lets fetches reach private hosts.
	AllowPrivate bool
	// Signature is how every manifest served is verified: --no-verify,
	// --require-signature and --trust-key mean what they mean to plan.
	Signature kcpref.SignaturePolicy
}

// ParseServeArgs reads `serve [<port>] [--api-key K] [--manifest LOC]
// [--public-url URL] [--allow-private-hosts] [--no-verify]
// [--require-signature] [--trust-key LOC]`.
func ParseServeArgs(args []string) (ServeConfig, error) {
	cfg := ServeConfig{Port: DefaultPort}
	port := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("Option %s needs a value", a)
			}
			i++
			return args[i], nil
		}
		var err error
		switch a {
		case "--api-key":
			cfg.APIKey, err = value()
		case "--manifest":
			cfg.Manifest, err = value()
		case "--public-url":
			cfg.PublicURL, err = value()
		case "--allow-private-hosts":
			cfg.AllowPrivate = true
		case "--no-verify":
			cfg.Signature.NoVerify = true
		case "--require-signature":
			cfg.Signature.Require = true
		case "--trust-key":
			cfg.Signature.TrustedKey, err = value()
		default:
			if strings.HasPrefix(a, "-") {
				return cfg, fmt.Errorf("Unknown option: %s", a)
			}
			if port != "" {
				return cfg, fmt.Errorf("serve takes one port, not %s and %s", port, a)
			}
			port = a
		}
		if err != nil {
			return cfg, err
		}
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return cfg, fmt.Errorf("serve: the port %q is not a number from 1 to 65535", port)
		}
		cfg.Port = n
	}
	return cfg, nil
}

// HTTPServe is `serve`: kcp-agent's HTTP server on the port, until it is
// interrupted. A port in use is said so, exit 2.
func (c CLI) HTTPServe(args []string) int {
	cfg, err := ParseServeArgs(args)
	if err != nil {
		return c.fail(kcpref.ExitUsage, err.Error())
	}
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", cfg.Port))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return c.fail(kcpref.ExitUsage, fmt.Sprintf("serve: port %d is already in use: stop what listens there, or give serve another port", cfg.Port))
		}
		return c.fail(kcpref.ExitUsage, fmt.Sprintf("serve: cannot listen on port %d: %v", cfg.Port, err))
	}
	srv := &http.Server{Handler: c.ServeHandler(cfg), ReadHeaderTimeout: 10 * time.Second}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return c.fail(kcpref.ExitFailure, "serve: "+err.Error())
	}
	return kcpref.ExitOK
}

// ServeHandler is serve's HTTP handler; it prints the start-up lines
// (the port, the Link headers, the --public-url self-check's warning on
// standard error).
func (c CLI) ServeHandler(cfg ServeConfig) http.Handler {
	c.DefaultManifest = cfg.Manifest
	c.Signature = cfg.Signature
	h := &serveHandler{c: c, cfg: cfg, started: time.Now()}
	if cfg.Manifest != "" {
		if m, _, bad := readManifest(cfg.Manifest); bad != nil {
			fmt.Fprintf(c.Stderr, "  ⚠ serving: the manifest %s could not be read for the Link headers: %s\n", cfg.Manifest, strings.TrimPrefix(bad.line(), "kcp-agent: "))
		} else {
			var warning string
			h.links, warning = kcpref.ServingLinks(m, cfg.PublicURL, c.Faults)
			if len(h.links) > 0 {
				fmt.Fprintf(c.Stdout, "  %d Link header line(s) on /mcp and /health\n", len(h.links))
			}
			if warning != "" {
				fmt.Fprintf(c.Stderr, "  ⚠ serving: %s\n", warning)
			}
		}
	}
	fmt.Fprintf(c.Stdout, "%s HTTP server on port %d\n", c.progName(), cfg.Port)
	if cfg.APIKey != "" {
		fmt.Fprintln(c.Stdout, "  every route but /health asks for the API key")
	}
	srv := c.mcpServer(true)
	h.tools = len(c.servedTools(true))
	if h.has(kcpref.FaultServeHealthToolsMiscounted) {
		h.tools--
	}
	h.mcp = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	fmt.Fprintf(c.Stdout, "  %d tools\n", h.tools)
	return h
}

func (c CLI) progName() string {
	if c.Name != "" {
		return c.Name
	}
	return "sifu kcp"
}

type serveHandler struct {
	c       CLI
	cfg     ServeConfig
	started time.Time
	links   []string
	tools   int
	mcp     http.Handler
}

func (h *serveHandler) has(f kcpref.Fault) bool {
	for _, x := range h.c.Faults {
		if x == f {
			return true
		}
	}
	return false
}

func sendJSON(w http.ResponseWriter, status int, body any) {
	raw, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(raw)
}

func (h *serveHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", "*")
	hd.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	hd.Set("Access-Control-Allow-Headers", "Content-Type, Authorization")
	hd.Set("Access-Control-Expose-Headers", "Link")
	hd.Set("Access-Control-Max-Age", "86400")
	path := r.URL.Path
	if path == "/mcp" || path == "/health" {
		for _, l := range h.links {
			hd.Add("Link", l)
		}
	}
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if path == "/health" && r.Method == http.MethodGet && !h.has(kcpref.FaultServeHealthGuarded) {
		h.health(w)
		return
	}
	if !h.authorized(r) {
		sendJSON(w, http.StatusUnauthorized, map[string]any{"error": "unauthorized"})
		return
	}
	switch {
	case path == "/health" && r.Method == http.MethodGet:
		h.health(w)
	case path == "/mcp" && r.Method == http.MethodPost:
		h.mcp.ServeHTTP(w, r)
	case path == "/mcp" && (r.Method == http.MethodGet || r.Method == http.MethodDelete):
		hd.Set("Allow", "POST, OPTIONS")
		w.WriteHeader(http.StatusMethodNotAllowed)
	case r.Method == http.MethodPost && (path == "/plan" || path == "/trace" || path == "/diff" || path == "/validate"):
		h.rest(w, r, path)
	case h.has(kcpref.FaultServeRouteUnknownOK):
		sendJSON(w, http.StatusOK, map[string]any{})
	default:
		sendJSON(w, http.StatusNotFound, map[string]any{"error": "not found"})
	}
}

func (h *serveHandler) health(w http.ResponseWriter) {
	sendJSON(w, http.StatusOK, map[string]any{"status": "ok", "version": Version, "tools": h.tools,
		"uptime": int(time.Since(h.started) / time.Second)})
}

// authorized: no key asked, or "Bearer <key>" (the scheme in any case).
func (h *serveHandler) authorized(r *http.Request) bool {
	if h.cfg.APIKey == "" || h.has(kcpref.FaultServeAuthIgnored) {
		return true
	}
	parts := strings.SplitN(r.Header.Get("Authorization"), " ", 3)
	return len(parts) >= 2 && strings.EqualFold(parts[0], "bearer") && parts[1] == h.cfg.APIKey
}

// rest answers POST /plan, /trace and /validate with what kcp_plan,
// kcp_trace and kcp_validate give, as JSON, and POST /diff with the diff
// of two plans; a refused call is 500 with its message.
func (h *serveHandler) rest(w http.ResponseWriter, r *http.Request, path string) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxLine))
	var body map[string]any
	if err != nil || json.Unmarshal(raw, &body) != nil || body == nil {
		sendJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid JSON body"})
		return
	}
	if path == "/diff" {
		a, aok := body["a"].(map[string]any)
		b, bok := body["b"].(map[string]any)
		if !aok || !bok {
			sendJSON(w, http.StatusInternalServerError, map[string]any{"error": "diff needs the plan artifacts a and b"})
			return
		}
		writeRaw(w, kcpref.DiffJSON(kcpref.DiffPlans(planOf(a), planOf(b))))
		return
	}
	name := map[string]string{"/plan": "kcp_plan", "/trace": "kcp_trace", "/validate": "kcp_validate"}[path]
	if name == "kcp_trace" && h.has(kcpref.FaultServeTraceAsPlan) {
		name = "kcp_plan"
	}
	c := h.c
	if name == "kcp_trace" && h.has(kcpref.FaultServeTraceUnverified) {
		c.Signature.NoVerify = true
	}
	text, err := c.runTool(name, body)
	if err != nil {
		sendJSON(w, http.StatusInternalServerError, map[string]any{"error": err.Error()})
		return
	}
	writeRaw(w, text)
}

// planOf is an artifact's plan: a tree's or an answer's plan, or the
// artifact itself.
func planOf(a map[string]any) map[string]any {
	if p, ok := a["plan"].(map[string]any); ok {
		return p
	}
	return a
}

func writeRaw(w http.ResponseWriter, text []byte) {
	var buf bytes.Buffer
	if json.Compact(&buf, text) != nil {
		raw, _ := json.Marshal(string(text))
		buf.Reset()
		buf.Write(raw)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}
