package kcploopback

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/suite/kcp"
)

// TestServesTheRoutes: a padded body has exactly its size, a streamed one
// declares no length, a redirect names the base URL placed, and an
// unknown path is 404.
func TestServesTheRoutes(t *testing.T) {
	base, stop, err := Start(&kcp.LoopbackServer{Routes: map[string]kcp.Route{
		"/padded":   {Body: "a: 1\n", Size: 5000},
		"/streamed": {Body: "b", Size: 200000, Streamed: true},
		"/hop":      {Redirect: "<server>/padded"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (*http.Response, []byte) {
		res, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	if res, b := get("/padded"); len(b) != 5000 || res.ContentLength != 5000 || string(b[:5]) != "a: 1\n" {
		t.Errorf("/padded: %d bytes, length %d", len(b), res.ContentLength)
	}
	if res, b := get("/streamed"); len(b) != 200000 || res.ContentLength != -1 {
		t.Errorf("/streamed: %d bytes, length %d", len(b), res.ContentLength)
	}
	if res, _ := get("/hop"); res.StatusCode != http.StatusFound || res.Header.Get("Location") != base+"/padded" {
		t.Errorf("/hop: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _ := get("/other"); res.StatusCode != http.StatusNotFound {
		t.Errorf("/other: %d", res.StatusCode)
	}
	if got := strings.Join(stop(), " "); got != "/padded /streamed /hop /other" {
		t.Errorf("requests %q", got)
	}
}
