package kcpref

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
// never checked, and nothing is reported without a serving block.
func checkServing(s *Serving, source string) (*ServingCheck, string) {
	if s == nil {
		return nil, ""
	}
	declared := s.Manifest
	if len(declared) == 0 {
		return &ServingCheck{Status: "no-binding", Detail: "serving block declares no manifest URLs — retrieval binding not in effect"}, ""
	}
	if !hasHTTPScheme(source) {
		return &ServingCheck{Status: "local", Detail: "loaded from a local path — retrieval binding applies to HTTP(S) retrieval only", Declared: declared}, ""
	}
	src, ok := normalizeServingURL(source)
	if ok && slices.ContainsFunc(declared, func(d string) bool {
		n, ok := normalizeServingURL(d)
		return ok && n == src
	}) {
		return &ServingCheck{Status: "bound", Detail: "retrieval URL is in the declared serving.manifest list", RetrievalURL: source, Declared: declared}, ""
	}
	detail := fmt.Sprintf("retrieved from %s, which is not in the declared serving.manifest list [%s] — trust capped at 'known' (KCP §16.5 C22)",
		source, strings.Join(declared, ", "))
	return &ServingCheck{Status: "unbound", Detail: detail, RetrievalURL: source, Declared: declared}, "serving binding: " + detail
}

// hasHTTPScheme reports a source that starts with http:// or https://,
// in any case.
func hasHTTPScheme(s string) bool {
	lower := strings.ToLower(s[:min(len(s), 8)])
	return strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")
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
