package kcpref

import (
	"context"
	"net"
	"net/url"
	"strings"
	"testing"
)

// TestIsPrivateAddress: the ranges the guard refuses, and public
// addresses it lets through.
func TestIsPrivateAddress(t *testing.T) {
	for addr, want := range map[string]bool{
		"0.0.0.0": true, "10.1.2.3": true, "127.0.0.1": true, "169.254.169.254": true, "172.16.0.1": true, "172.31.255.255": true,
		"172.32.0.1": false, "192.168.1.1": true, "100.64.0.1": true, "100.128.0.1": false, "224.0.0.1": true, "203.0.113.7": false,
		"8.8.8.8": false, "::1": true, "::": true, "fe80::1": true, "fc00::1": true, "fd12::1": true, "ff02::1": true,
		"2001:db8::1": false, "::ffff:127.0.0.1": true, "::ffff:169.254.169.254": true, "::ffff:8.8.8.8": false,
	} {
		if got := IsPrivateAddress(net.ParseIP(addr)); got != want {
			t.Errorf("%s: private %v, want %v", addr, got, want)
		}
	}
}

// TestCheckURLRefusesBeforeDialling: refusals name the host as a WHATWG
// URL writes it (an IPv4-mapped address in hex), and need no network.
func TestCheckURLRefusesBeforeDialling(t *testing.T) {
	for raw, want := range map[string]string{
		"https://[::ffff:127.0.0.1]:9/k": "address ::ffff:7f00:1 for '::ffff:7f00:1'",
		"https://[FE80::1]/k":            "address fe80::1 for 'fe80::1'",
		"http://203.0.113.7/k":           "refused cleartext http:// for '203.0.113.7'",
		"ftp://203.0.113.7/k":            "refused scheme 'ftp:'",
	} {
		_, err := CheckURL(context.Background(), raw, FetchGuard{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
	if u, err := CheckURL(context.Background(), "http://127.0.0.1:9/k", FetchGuard{AllowPrivate: true}); err != nil || u.Host != "127.0.0.1:9" {
		t.Errorf("allowed loopback: %v %v", u, err)
	}
	u, _ := url.Parse("https://[::ffff:a9fe:a9fe]/")
	if h := urlHost(u); h != "::ffff:a9fe:a9fe" {
		t.Errorf("urlHost %q", h)
	}
}

// TestResolveLocation: relative references under a URL resolve as links.
func TestResolveLocation(t *testing.T) {
	for _, c := range [][3]string{
		{"http://h/hub/knowledge.yaml", "../child/knowledge.yaml", "http://h/child/knowledge.yaml"},
		{"http://h/hub/knowledge.yaml", "k.sig", "http://h/hub/k.sig"},
		{"/d/knowledge.yaml", "k.sig", "/d/k.sig"},
		{"/d/knowledge.yaml", "https://x/k.sig", "https://x/k.sig"},
	} {
		if got := ResolveLocation(c[0], c[1]); got != c[2] {
			t.Errorf("ResolveLocation(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}
