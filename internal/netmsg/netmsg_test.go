package netmsg_test

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/internal/netmsg"
)

// TestAServerThatWritesFirstIsMalformedHTTP: a server that writes a banner
// before any request gives the client either Go's malformed-response error
// or, when the banner comes before the request is sent, a text that wraps
// nil; Clean makes the second a malformed HTTP response too, and no text
// it gives says "<nil>".
func TestAServerThatWritesFirstIsMalformedHTTP(t *testing.T) {
	raw := errors.New(`Get "http://127.0.0.1:1/hello": readLoopPeekFailLocked: %!w(<nil>)`)
	got := netmsg.Clean(raw).Error()
	if !strings.Contains(got, "malformed HTTP") || strings.Contains(got, "nil") || !strings.Contains(got, "http://127.0.0.1:1/hello") {
		t.Errorf("cleaned: %s", got)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
			c.Close()
		}
	}()
	for range 20 {
		_, err := http.Get("http://" + ln.Addr().String() + "/")
		if err == nil {
			t.Fatal("a banner was taken for an HTTP answer")
		}
		if msg := netmsg.Clean(err).Error(); strings.Contains(msg, "<nil>") {
			t.Fatalf("cleaned: %s", msg)
		}
	}
	if err := netmsg.Clean(nil); err != nil {
		t.Errorf("Clean(nil) = %v", err)
	}
}
