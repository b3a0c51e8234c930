package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/adapters/kungfumcp"
	"github.com/sifu-dev/sifu/internal/inputfile"

	"github.com/sifu-dev/sifu"
)

// servedMCP serves the reference behind the bundled 3.0 map; wrap, when
// set, stands between the client and the server.
func servedMCP(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	raw, err := inputfile.ReadFS(sifu.Assets, kungfumcp.Bundled)
	if err != nil {
		t.Fatal(err)
	}
	s, err := kungfumcp.Parse(kungfumcp.Bundled, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := kungfuinproc.New()
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = kungfumcp.NewServer(ref, s).Handler()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Bad input to --target mcp is one message and exit 2, before any check.
func TestTheMCPTargetRefusesBadInputBeforeAnyCheck(t *testing.T) {
	url := servedMCP(t, nil)
	dir := t.TempDir()
	write := func(name, from, to string) string {
		raw, err := inputfile.ReadFS(sifu.Assets, kungfumcp.Bundled)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Replace(string(raw), from, to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"unknown action": {[]string{"--url", url, "--map", write("a.json", `"memory.publish":`, `"memory.frobnicate":`)},
			`sifu has no action "memory.frobnicate"`},
		"unknown tool": {[]string{"--url", url, "--map", write("t.json", `"tool": "memory_share"`, `"tool": "memory_shine"`)},
			"does not list: memory_shine"},
		"not a map": {[]string{"--url", url, "--map", write("s.json", `"surface":`, `"surfac":`)}, "s.json"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := sifuCLI(t, append([]string{"run", "-q", "--suite", "kungfu", "--target", "mcp"}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a message with %q", err, c.want)
			}
			if code := exitCode(err); code != 2 {
				t.Errorf("exit %d, want 2: %v", code, err)
			}
		})
	}
	t.Run("not MCP", func(t *testing.T) {
		plain := httptest.NewServer(http.NotFoundHandler())
		defer plain.Close()
		unreachableRun(t, []string{"does not answer as an MCP server"}, "--suite", "kungfu", "--target", "mcp", "--url", plain.URL)
	})
	t.Run("wrong key", func(t *testing.T) {
		garbled := servedMCP(t, func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "" {
					r.Header.Set("Authorization", "Bearer kf_live_wrong")
				}
				h.ServeHTTP(w, r)
			})
		})
		unreachableRun(t, []string{"account_register"}, "--suite", "kungfu", "--target", "mcp", "--url", garbled)
	})
}

// --list over a map says which checks run and, for each of the others,
// what the surface lacks.
func TestTheMCPTargetListsWhatItCannotCheck(t *testing.T) {
	url := servedMCP(t, nil)
	out, err := sifuCLI(t, "run", "--suite", "kungfu", "--target", "mcp", "--url", url, "--list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"target mcp (kungfu-3.0-surface 3.0.0)",
		"(untestable: needs the clock control, which the target does not offer)",
		"(untestable: the kungfu-3.0 surface lacks action task.create (task_create takes a priced contract",
		"(untestable: the kungfu-3.0 surface lacks view entry (no tool reads one entry",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--list lacks %q", want)
		}
	}
	runnable := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "kungfu/") && !strings.Contains(line, "(untestable") {
			runnable++
		}
	}
	if runnable < 120 {
		t.Errorf("%d checks runnable under the 3.0 map, want at least 120:\n%s", runnable, out)
	}
}

// The plain HTTP form needs a map that says where it is.
func TestTheHTTPTargetWithAMapNeedsItsAPI(t *testing.T) {
	raw, err := inputfile.ReadFS(sifu.Assets, kungfumcp.Bundled)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "noapi.map.json")
	if err := os.WriteFile(p, []byte(strings.Replace(string(raw), `"api": "/api/v1/",`, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = sifuCLI(t, "run", "--suite", "kungfu", "--target", "http", "--url", "http://127.0.0.1:1", "--map", p)
	if err == nil || !strings.Contains(err.Error(), "the map has no api") || exitCode(err) != 2 {
		t.Fatalf("got %v (exit %d), want a usage error naming the missing api", err, exitCode(err))
	}
}

// serve --map without --mcp would serve the binding and ignore the map.
func TestServeTakesAMapOnlyWithMCP(t *testing.T) {
	_, err := sifuCLI(t, "serve", "kungfu", "--db", ":memory:", "--map", "any.map.json")
	if err == nil || !strings.Contains(err.Error(), "add --mcp") || exitCode(err) != 2 {
		t.Fatalf("got %v (exit %d), want a usage error asking for --mcp", err, exitCode(err))
	}
}
