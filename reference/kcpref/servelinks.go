package kcpref

import (
	"net/url"
	"regexp"
	"strings"
)

// linkablePath is a relative file name a signing block may give for its
// signature or key (knowledge.yaml.sig, keys/kcp.pub): path-shaped, with
// an extension. Inline key material is not.
var linkablePath = regexp.MustCompile(`^[\w./-]+\.[A-Za-z0-9]+$`)

// ServingLinks is what kcp-agent's serve says of the manifest it serves by
// default: the RFC 8288 Link header lines of /mcp and /health (the
// manifest's public URL, its signature's and its signing key's, each when
// it is a URL or resolves to one against the manifest's), and the warning
// of the §3.12 self-check of publicURL against serving.mcp ("" when the
// manifest declares no serving.mcp or publicURL is in it).
func ServingLinks(m Manifest, publicURL string, faults []Fault) (links []string, warning string) {
	manifestURL := ""
	switch {
	case hasHTTPScheme(m.Source):
		manifestURL = m.Source
	case m.Serving != nil && len(m.Serving.Manifest) > 0:
		manifestURL = m.Serving.Manifest[0]
	}
	asURL := func(loc string) string {
		if loc == "" || (!hasHTTPScheme(loc) && (len(loc) > 128 || !linkablePath.MatchString(loc) || strings.Contains(loc, "-----"))) {
			return ""
		}
		if hasHTTPScheme(loc) {
			return loc
		}
		base, err := url.Parse(manifestURL)
		if manifestURL == "" || err != nil {
			return ""
		}
		ref, err := url.Parse(loc)
		if err != nil {
			return ""
		}
		return base.ResolveReference(ref).String()
	}
	if manifestURL != "" {
		links = append(links, "<"+manifestURL+`>; rel="knowledge-manifest"`)
	}
	if m.Signing != nil {
		if u := asURL(m.Signing.Signature); u != "" && !hasFault(faults, FaultServeLinkSignatureDropped) {
			links = append(links, "<"+u+`>; rel="knowledge-manifest-signature"`)
		}
		if u := asURL(m.Signing.PublicKey); u != "" {
			links = append(links, "<"+u+`>; rel="signing-key"`)
		}
	}
	if m.Serving == nil || len(m.Serving.MCP) == 0 || hasFault(faults, FaultServePublicURLUnchecked) {
		return links, ""
	}
	declared := "[" + strings.Join(m.Serving.MCP, ", ") + "]"
	if publicURL == "" {
		return links, "the manifest lists serving.mcp " + declared + " and no --public-url was given, so this server cannot check that it is one of them"
	}
	want, ok := normalizeServingURL(publicURL)
	for _, u := range m.Serving.MCP {
		if got, gok := normalizeServingURL(u); ok && gok && got == want {
			return links, ""
		}
	}
	return links, "the public URL " + publicURL + " is not in the manifest's serving.mcp " + declared + ": agents that apply KCP §3.12 will not take this endpoint for an authorized one"
}
