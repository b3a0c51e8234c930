package kcpref

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The network boundary, as kcp-agent draws it: every remote read of a
// manifest, a signature or a key goes through GuardedFetch.
const (
	// MaxFetchBytes is the cap on one response body, declared or streamed.
	MaxFetchBytes = 8 * 1024 * 1024
	// FetchTimeout bounds one whole exchange.
	FetchTimeout = 15 * time.Second
	// MaxRedirects is how many redirects one read follows.
	MaxRedirects = 5
)

// FetchGuard is how remote reads are guarded. The zero value is the
// default: https only, no loopback, private, link-local or reserved
// address.
type FetchGuard struct {
	// AllowPrivate (--allow-private-hosts) permits those addresses and
	// http://.
	AllowPrivate bool
	Faults       []Fault
}

// IsRemote reports a location read over the network, as kcp-agent tells
// one from a path.
func IsRemote(loc string) bool {
	return strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://")
}

// IsPrivateAddress reports an address an untrusted manifest must not make
// the agent reach: this-host, private, loopback, link-local (the cloud
// metadata address included), CGNAT, multicast and reserved IPv4; IPv6
// loopback, unspecified, link-local, unique-local and multicast; and any
// IPv4-mapped IPv6 address whose IPv4 address is one of those.
func IsPrivateAddress(ip net.IP) bool {
	if v4 := ip.To4(); v4 != nil {
		a, b := v4[0], v4[1]
		return a == 0 || a == 10 || a == 127 || (a == 169 && b == 254) || (a == 172 && b >= 16 && b <= 31) ||
			(a == 192 && b == 168) || (a == 100 && b >= 64 && b <= 127) || a >= 224
	}
	if len(ip) != net.IPv6len {
		return true // not an address: refuse
	}
	return ip.Equal(net.IPv6loopback) || ip.Equal(net.IPv6unspecified) ||
		(ip[0] == 0xfe && ip[1]&0xc0 == 0x80) || ip[0]&0xfe == 0xfc || ip[0] == 0xff
}

// urlHost is a URL's host as a WHATWG URL serializes it, without the
// brackets: an IPv6 address compressed, an IPv4-mapped one in hex
// (::ffff:7f00:1).
func urlHost(u *url.URL) string {
	h := u.Hostname()
	ip := net.ParseIP(h)
	if ip == nil || !strings.Contains(h, ":") {
		return strings.ToLower(h)
	}
	if v4 := ip.To4(); v4 != nil {
		return fmt.Sprintf("::ffff:%x:%x", uint16(v4[0])<<8|uint16(v4[1]), uint16(v4[2])<<8|uint16(v4[3]))
	}
	return ip.String()
}

// CheckURL refuses a URL the guard does not let the agent reach, before
// anything is sent: not http(s); a host that resolves to a refused address
// (every address checked); http:// unless private hosts are allowed.
func CheckURL(ctx context.Context, raw string, g FetchGuard) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("not a valid URL: %s", raw)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("refused scheme '%s:' (only http/https are fetched)", u.Scheme)
	}
	host := urlHost(u)
	var addrs []net.IP
	if ip := net.ParseIP(host); ip != nil {
		addrs = []net.IP{ip}
	} else {
		found, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("cannot resolve host '%s': %v", host, err)
		}
		for _, a := range found {
			addrs = append(addrs, a.IP)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("host '%s' resolved to no addresses", host)
		}
	}
	if !g.AllowPrivate {
		for _, a := range addrs {
			mapped := a.To4() != nil && strings.Contains(host, ":")
			if IsPrivateAddress(a) && !(mapped && hasFault(g.Faults, FaultMappedV6Allowed)) {
				return nil, fmt.Errorf("refused private/loopback/link-local address %s for '%s' (pass --allow-private-hosts to permit local and internal manifests)", addrText(a, host), host)
			}
		}
		if u.Scheme == "http" && !hasFault(g.Faults, FaultCleartextAllowed) {
			return nil, fmt.Errorf("refused cleartext http:// for '%s' (use https, or --allow-private-hosts for local)", host)
		}
	}
	return u, nil
}

// addrText is an address as the refusal names it: a literal host as the
// URL serialized it, a resolved address as the resolver gave it.
func addrText(ip net.IP, host string) string {
	if net.ParseIP(host) != nil {
		return host
	}
	return ip.String()
}

// GuardedFetch reads a URL's body as text through the guard: every hop
// checked before it is dialled, redirects followed by hand (at most
// MaxRedirects), the body capped at MaxFetchBytes (a declared length over
// it refused before reading), the whole exchange bounded by FetchTimeout.
// It returns the text and the URL it was read from, after redirects.
func GuardedFetch(ctx context.Context, raw string, g FetchGuard) (text, final string, err error) {
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	client := &http.Client{Transport: FaultedTransport(g.Faults), CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	limit := MaxRedirects
	if hasFault(g.Faults, FaultRedirectsUnbounded) {
		limit = 50
	}
	current := raw
	for hop := 0; hop <= limit; hop++ {
		u, err := CheckURL(ctx, current, g)
		if err != nil {
			return "", "", err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return "", "", err
		}
		res, err := client.Do(req)
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return "", "", errors.New("The operation was aborted due to timeout")
			}
			return "", "", errors.New("fetch failed")
		}
		if res.StatusCode >= 300 && res.StatusCode < 400 {
			res.Body.Close()
			loc := res.Header.Get("Location")
			if loc == "" {
				return "", "", fmt.Errorf("redirect with no Location from %s", u)
			}
			next, err := u.Parse(loc)
			if err != nil {
				return "", "", fmt.Errorf("not a valid URL: %s", loc)
			}
			current = next.String()
			continue
		}
		text, err := readCapped(res, u.String(), g)
		return text, u.String(), err
	}
	return "", "", fmt.Errorf("too many redirects (>%d) starting at %s", MaxRedirects, raw)
}

func readCapped(res *http.Response, href string, g FetchGuard) (string, error) {
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return "", fmt.Errorf("%d %s", res.StatusCode, strings.TrimPrefix(res.Status, strconv.Itoa(res.StatusCode)+" "))
	}
	max := int64(MaxFetchBytes)
	if hasFault(g.Faults, FaultSizeUncapped) {
		max = 1 << 40
	}
	if n, err := strconv.ParseInt(res.Header.Get("Content-Length"), 10, 64); err == nil && n > max {
		return "", fmt.Errorf("response too large: %d bytes exceeds cap %d", n, max)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, max+1))
	if err != nil {
		return "", errors.New("terminated")
	}
	if int64(len(body)) > max {
		return "", fmt.Errorf("response too large: exceeded cap %d bytes while reading %s", max, href)
	}
	return toValidText(body), nil
}

// FaultedTransport is the transport of every fetch of a reference with
// faults planted: it dials only loopback, since a planted fault may let a
// guard pass an address it must refuse and a mutant must still never
// leave the machine. Without faults it is nil (http.DefaultTransport).
func FaultedTransport(faults []Fault) http.RoundTripper {
	if len(faults) == 0 {
		return nil
	}
	return &http.Transport{DialContext: loopbackOnly}
}

// loopbackOnly dials only loopback addresses: the transport of a reference
// with planted faults.
func loopbackOnly(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("a reference with planted faults dials only loopback, not %s", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
