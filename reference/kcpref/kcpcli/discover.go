package kcpcli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// discover: find a site's manifest at its well-known paths, else point at
// its llms.txt, else crawl it and draft one. Every fetch passes the fetch
// guard: https only and no loopback, private or link-local host, unless
// --allow-private-hosts.

// discoverGuard fetches text as kcp-agent's guarded fetch does, as far as
// discover needs: a refused or failed fetch is an error.
type discoverGuard struct {
	allowPrivate bool
	client       *http.Client
}

// discoverClient is the HTTP client of discover and init's fetches: no
// redirect followed, and only loopback dialled when faults are planted
// (kcpref.FaultedTransport: FaultDiscoverUnguarded switches the guard off).
func (c CLI) discoverClient() *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: kcpref.FaultedTransport(c.Faults),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func (g discoverGuard) fetch(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("invalid URL: %s", raw)
	}
	if !g.allowPrivate {
		if privateHost(u.Hostname()) {
			return "", fmt.Errorf("refused private/loopback/link-local address %s for '%s' (pass --allow-private-hosts to permit local and internal manifests)", u.Hostname(), u.Hostname())
		}
		if u.Scheme != "https" {
			return "", errors.New("only https:// URLs are fetched (pass --allow-private-hosts for http://)")
		}
	} else if u.Scheme != "https" && u.Scheme != "http" {
		return "", fmt.Errorf("unsupported scheme %s", u.Scheme)
	}
	resp, err := g.client.Get(raw)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return string(body), err
}

// privateHost says a host is loopback, private, link-local or unspecified
// (a name is looked up; one that does not resolve is refused too).
func privateHost(host string) bool {
	ips := []net.IP{net.ParseIP(host)}
	if ips[0] == nil {
		if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
			return true
		}
		addrs, err := net.LookupIP(host)
		if err != nil {
			return true
		}
		ips = addrs
	}
	for _, ip := range ips {
		if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() {
			return true
		}
	}
	return false
}

func urlOrigin(u *url.URL) string { return u.Scheme + "://" + u.Host }

var (
	discoverProject = regexp.MustCompile(`(?m)^project:\s*["']?(.+?)["']?\s*$`)
	discoverVersion = regexp.MustCompile(`(?m)^version:\s*["']?(.+?)["']?\s*$`)
	discoverKCP     = regexp.MustCompile(`(?m)^kcp_version:\s*["']?(.+?)["']?\s*$`)
	discoverUnit    = regexp.MustCompile(`(?m)^\s*- id:`)
	githubRepo      = regexp.MustCompile(`^/([^/]+)/([^/]+)`)
)

// wellKnownPaths are where discover looks for a site's manifest.
func wellKnownPaths(u *url.URL) []string {
	origin := urlOrigin(u)
	paths := []string{origin + "/knowledge.yaml", origin + "/.well-known/kcp/knowledge.yaml"}
	if m := githubRepo.FindStringSubmatch(u.EscapedPath()); m != nil {
		repo := strings.TrimSuffix(m[2], ".git")
		switch u.Hostname() {
		case "github.com":
			paths = append(paths, "https://raw.githubusercontent.com/"+m[1]+"/"+repo+"/main/knowledge.yaml")
		case "gitlab.com":
			paths = append(paths, "https://gitlab.com/"+m[1]+"/"+repo+"/-/raw/main/knowledge.yaml")
		}
	}
	return paths
}

// Discover is `discover <url> [--json] [--allow-private-hosts]`.
func (c CLI) Discover(args []string) int {
	rest, on := switches(args, "--allow-private-hosts")
	a, code, done := c.commandArgs(rest, "task")
	if done {
		return code
	}
	raw := a.values["task"]
	if raw == "" && len(a.positionals) > 0 {
		raw = a.positionals[0]
	}
	if raw == "" {
		return c.fail(kcpref.ExitUsage, "Missing URL.\n\n"+c.usage())
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return c.fail(kcpref.ExitFailure, "kcp-agent: Invalid URL")
	}
	allow := on["--allow-private-hosts"] || kcpref.HasFault(c.Faults, kcpref.FaultDiscoverUnguarded)
	g := discoverGuard{allowPrivate: allow, client: c.discoverClient()}
	for _, candidate := range wellKnownPaths(u) {
		text, err := g.fetch(candidate)
		if err != nil || !strings.Contains(text, "project:") && !strings.Contains(text, "project :") {
			continue
		}
		fmt.Fprintf(c.Stdout, "Found manifest at %s\n", candidate)
		if a.json {
			m := kcpref.NewJSONObject()
			m.Put("project", firstMatch(discoverProject, text, "(unnamed)")).Put("version", firstMatch(discoverVersion, text, "0.0.0")).
				Put("unitCount", float64(len(discoverUnit.FindAllString(text, -1))))
			if k := firstMatch(discoverKCP, text, ""); k != "" {
				m.Put("kcpVersion", k)
			}
			fmt.Fprintln(c.Stdout, kcpref.StringifyJSON(kcpref.NewJSONObject().Put("found", true).Put("url", candidate).Put("manifest", m), "  "))
		}
		return kcpref.ExitOK
	}
	llms := urlOrigin(u) + "/llms.txt"
	if text, err := g.fetch(llms); err == nil && !kcpref.HasFault(c.Faults, kcpref.FaultDiscoverNoLlms) {
		doc := kcpref.ParseLlmsTxt(text)
		links := 0
		for _, s := range doc.Sections {
			links += len(s.Links)
		}
		if links > 0 {
			fmt.Fprintf(c.Stdout, "No manifest, but %s exists — %d link(s) in %d section(s).\n", llms, links, len(doc.Sections))
			fmt.Fprintf(c.Stdout, "Upgrade it:  kcp-agent init --from-llms-txt %s\n", llms)
			return kcpref.ExitOK
		}
	}
	fmt.Fprintf(c.Stdout, "No manifest found. Crawling %s...\n", raw)
	pages, disallowed := crawl(g, u, 20)
	yaml := webManifest(pages)
	if a.json {
		list := []any{}
		for _, p := range pages {
			heads := []any{}
			for _, h := range p.headings {
				heads = append(heads, h)
			}
			list = append(list, kcpref.NewJSONObject().Put("url", p.url).Put("title", p.title).Put("headings", heads).
				Put("firstParagraph", p.firstParagraph).Put("path", p.path))
		}
		dis := []any{}
		for _, d := range disallowed {
			dis = append(dis, d)
		}
		crawl := kcpref.NewJSONObject().Put("pages", list).Put("robotsDisallowed", dis)
		fmt.Fprintln(c.Stdout, kcpref.StringifyJSON(kcpref.NewJSONObject().Put("crawl", crawl).Put("yaml", yaml), "  "))
		return kcpref.ExitOK
	}
	fmt.Fprintln(c.Stdout, yaml)
	return kcpref.ExitOK
}

func firstMatch(re *regexp.Regexp, text, otherwise string) string {
	if m := re.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return otherwise
}

// page is one crawled page.
type page struct {
	url, title, firstParagraph, path string
	headings                         []string
}

var (
	htmlTag       = regexp.MustCompile(`<[^>]+>`)
	htmlTitle     = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	htmlHeading   = regexp.MustCompile(`(?i)<h[1-3][^>]*>(.*?)</h[1-3]>`)
	htmlLink      = regexp.MustCompile(`(?i)<a[^>]+href="([^"]*)"[^>]*>`)
	htmlParagraph = regexp.MustCompile(`(?is)<p[^>]*>(.*?)</p>`)
	notContent    = regexp.MustCompile(`(?i)\.(png|jpg|jpeg|gif|svg|css|js|woff|woff2|ttf|eot|ico|pdf|zip|tar|gz)$`)
	robotsAgent   = regexp.MustCompile(`(?i)^user-agent:\s*(.+)$`)
	robotsDeny    = regexp.MustCompile(`(?i)^disallow:\s*(.+)$`)
)

func stripTags(s string) string { return strings.TrimSpace(htmlTag.ReplaceAllString(s, "")) }

// crawl reads robots.txt and walks the site breadth first from u, same
// origin only, at most max pages, a second apart.
func crawl(g discoverGuard, u *url.URL, max int) ([]page, []string) {
	origin := urlOrigin(u)
	disallowed := []string{}
	if text, err := g.fetch(origin + "/robots.txt"); err == nil {
		all := false
		for _, raw := range strings.Split(text, "\n") {
			line := strings.TrimSpace(raw)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if m := robotsAgent.FindStringSubmatch(line); m != nil {
				all = strings.TrimSpace(m[1]) == "*"
				continue
			}
			if m := robotsDeny.FindStringSubmatch(line); m != nil && all {
				if p := strings.TrimSpace(m[1]); p != "" {
					disallowed = append(disallowed, p)
				}
			}
		}
	}
	visited := map[string]bool{}
	queue := []string{u.String()}
	var pages []page
	for len(queue) > 0 && len(pages) < max {
		current := queue[0]
		queue = queue[1:]
		norm := normalizeURL(current)
		if visited[norm] {
			continue
		}
		visited[norm] = true
		cu, err := url.Parse(current)
		if err != nil {
			continue
		}
		p := cu.EscapedPath()
		if p == "" {
			p = "/"
		}
		denied := false
		for _, d := range disallowed {
			denied = denied || strings.HasPrefix(p, d)
		}
		if denied {
			continue
		}
		if len(pages) > 0 {
			time.Sleep(time.Second) // kcp-agent's politeness delay between pages
		}
		html, err := g.fetch(current)
		if err != nil {
			continue
		}
		pg := page{url: current, path: p, headings: []string{}}
		if m := htmlTitle.FindStringSubmatch(html); m != nil {
			pg.title = strings.TrimSpace(stripTags(m[1]))
		}
		for _, m := range htmlHeading.FindAllStringSubmatch(html, -1) {
			if t := strings.TrimSpace(stripTags(m[1])); t != "" {
				pg.headings = append(pg.headings, t)
			}
		}
		if m := htmlParagraph.FindStringSubmatch(html); m != nil {
			pg.firstParagraph = strings.TrimSpace(stripTags(m[1]))
		}
		pages = append(pages, pg)
		for _, m := range htmlLink.FindAllStringSubmatch(html, -1) {
			ref, err := url.Parse(m[1])
			if err != nil {
				continue
			}
			link := cu.ResolveReference(ref)
			if link.Scheme != "http" && link.Scheme != "https" || visited[normalizeURL(link.String())] ||
				urlOrigin(link) != origin || notContent.MatchString(link.EscapedPath()) {
				continue
			}
			queue = append(queue, link.String())
		}
	}
	return pages, disallowed
}

// normalizeURL drops the fragment and a trailing slash, for de-duplication.
func normalizeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Fragment = ""
	if p := u.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
		u.Path = strings.TrimSuffix(p, "/")
		u.RawPath = ""
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String()
}

var (
	slugExt    = regexp.MustCompile(`\.[^.]+$`)
	slugOther  = regexp.MustCompile(`[^a-zA-Z0-9/-]`)
	slugDashes = regexp.MustCompile(`-+`)
	slugEnds   = regexp.MustCompile(`^-|-$`)
	webSplit   = regexp.MustCompile(`[\s,;:—–\-/|]+`)
	webStop    = regexp.MustCompile(`^(the|and|for|with|from|that|this|are|was|has|have|not|but|its|our|your)$`)
	webQuote   = regexp.MustCompile("[:{}\\[\\],&*?|>!%@`#'\"\n\r]")
)

func webSlug(p string) string {
	s := strings.TrimRight(strings.TrimLeft(p, "/"), "/")
	s = slugExt.ReplaceAllString(s, "")
	s = strings.ReplaceAll(slugOther.ReplaceAllString(s, "-"), "/", "-")
	s = strings.ToLower(slugEnds.ReplaceAllString(slugDashes.ReplaceAllString(s, "-"), ""))
	if s == "" {
		return "index"
	}
	return s
}

func webYAMLQuote(v string) string {
	if v == "" || webQuote.MatchString(v) || strings.Contains(v, " - ") {
		return `"` + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`) + `"`
	}
	return v
}

// webManifest drafts a manifest from the crawled pages.
func webManifest(pages []page) string {
	if len(pages) > 30 {
		pages = pages[:30] // kcp-agent keeps the 30 with the most content; the Go reference the first 30
	}
	project := ""
	if len(pages) > 0 {
		project = pages[0].title
		if project == "" {
			if u, err := url.Parse(pages[0].url); err == nil {
				h := strings.TrimPrefix(u.Hostname(), "www.")
				project = strings.Split(h, ".")[0]
				if project == "" {
					project = u.Hostname()
				}
			}
		}
	}
	if project == "" {
		project = "website"
	}
	lines := []string{"# Auto-generated by kcp-agent discover — review before use", "# TODO: review and refine this manifest", "",
		`kcp_version: "0.26"`, "project: " + webYAMLQuote(project), `version: "1.0.0"`, "", "units:"}
	for _, p := range pages {
		var parts []string
		if p.title != "" {
			parts = append(parts, p.title)
		}
		if p.firstParagraph != "" {
			parts = append(parts, p.firstParagraph)
		}
		intent := strings.Join(parts, " — ")
		if r := []rune(intent); len(r) > 100 {
			intent = regexp.MustCompile(`\s+\S*$`).ReplaceAllString(string(r[:100]), "") + "..."
		}
		seen := map[string]bool{}
		var triggers []string
		for _, h := range p.headings {
			for _, w := range webSplit.Split(strings.ToLower(h), -1) {
				w = strings.TrimSpace(w)
				if len([]rune(w)) > 2 && !webStop.MatchString(w) && !seen[w] {
					seen[w] = true
					triggers = append(triggers, webYAMLQuote(w))
				}
			}
		}
		if len(triggers) > 15 {
			triggers = triggers[:15]
		}
		lines = append(lines, "  - id: "+webYAMLQuote(webSlug(p.path)), "    path: "+webYAMLQuote(kcpref.RelativeUnitPath(p.url)),
			"    intent: "+webYAMLQuote(intent), "    scope: global", "    audience: [agent, human]",
			"    triggers: ["+strings.Join(triggers, ", ")+"]")
	}
	lines = append(lines, "")
	return strings.Join(lines, "\n")
}
