package kcp

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// checkServing is the serving-binding check (§3.12, C22): a manifest
// retrieved over http(s) from a location its serving.manifest list does
// not name is warned about (trust capped at 'known'). Locations are
// compared after lower-casing scheme and host, dropping the default port,
// the query and the fragment; paths compare exactly. A local source is
// never checked.
func checkServing(s *Serving, source string) (*ServingCheck, string) {
	if s == nil {
		return nil, ""
	}
	check := &ServingCheck{Declared: s.Manifest, Source: source, Status: "not-checked"}
	src, ok := normalizeServingURL(source)
	if len(s.Manifest) == 0 || !ok {
		return check, ""
	}
	if slices.ContainsFunc(s.Manifest, func(d string) bool {
		n, ok := normalizeServingURL(d)
		return ok && n == src
	}) {
		check.Status = "bound"
		return check, ""
	}
	check.Status = "unbound"
	return check, fmt.Sprintf("serving binding: retrieved from %s, which is not in the declared serving.manifest list [%s] — trust capped at 'known' (KCP §16.5 C22)",
		source, strings.Join(s.Manifest, ", "))
}

// normalizeServingURL normalizes an http(s) URL; false for anything else.
func normalizeServingURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Host == "" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + path, true
}
