package kcp

import (
	"crypto/ed25519"
	"strings"
)

// The network profile's vectors (vectors/kcp/commands/net-*.json and
// vectors/kcp/mcp/net-*.json), made by this table as the signature
// vectors are (TestSignatureVectorsAreGenerated writes and checks both).
// A refusal of an address is checked where kcp-agent refuses before it
// connects (an IP literal, checked before anything is sent): no server,
// and nothing leaves the machine. What needs an answer is served by the
// check's own loopback server, with --allow-private-hosts.

const (
	capBytes   = 8 * 1024 * 1024
	guardHint  = " (pass --allow-private-hosts to permit local and internal manifests)"
	netTask    = "deploy"
	netAsOf    = "2026-07-06"
	plainUnits = "project: \"served\"\nversion: \"1.0.0\"\nkcp_version: \"0.32\"\n" + sigUnits
)

func fetchArgs(loc string, more ...string) []string {
	return append([]string{"plan", "--task", netTask, "--manifest", loc, "--json", "--as-of", netAsOf}, more...)
}

func privateRefusal(url, addr string) map[string]any {
	return map[string]any{"/stdout": map[string]any{"$len": 0},
		"/stderr": "kcp-agent: " + url + ": fetch failed: refused private/loopback/link-local address " + addr + " for '" + addr + "'" + guardHint + "\n"}
}

func fetchFailed(url, reason string) map[string]any {
	return map[string]any{"/stdout": map[string]any{"$len": 0}, "/stderr": "kcp-agent: " + url + ": fetch failed: " + reason + "\n"}
}

// netVector is one network check: a command over a URL (or a local
// manifest), maybe with a loopback server; or MCP steps.
type netVector struct {
	name, description string
	rules             []string
	manifest          string
	files             map[string]string
	server            map[string]any // routes
	args              []string
	exit              int
	expect            map[string]any
	mcp               []map[string]any
}

func (v netVector) vector() ([]byte, string) {
	var server any
	if v.server != nil {
		server = map[string]any{"routes": v.server}
	}
	if v.mcp != nil {
		doc := map[string]any{"name": v.name, "kind": "mcp", "description": v.description, "rules": v.rules, "steps": v.mcp}
		if server != nil {
			doc["server"] = server
		}
		if len(v.files) > 0 {
			doc["files"] = v.files
		}
		return marshalVector(doc), "mcp/" + v.name + ".json"
	}
	doc := map[string]any{"name": v.name, "kind": "command", "rules": v.rules, "description": v.description,
		"manifest": v.manifest, "args": v.args, "exit": v.exit, "expect": v.expect}
	if len(v.files) > 0 {
		doc["files"] = v.files
	}
	if server != nil {
		doc["server"] = server
	}
	return marshalVector(doc), "commands/" + v.name + ".json"
}

func netCases() []netVector {
	refused := func(name, desc, host, addr, path string) netVector {
		url := "https://" + host + path
		return netVector{name: name, description: desc, rules: []string{"KCP-net-private"},
			args: fetchArgs(url), exit: 1, expect: privateRefusal(url, addr)}
	}
	served := map[string]any{"/knowledge.yaml": map[string]any{"body": plainUnits}}
	redirects := func(n int) map[string]any {
		routes := map[string]any{"/knowledge.yaml": map[string]any{"body": plainUnits}}
		for i := 0; i < n; i++ {
			next := "/hop" + string(rune('1'+i))
			if i == n-1 {
				next = "/knowledge.yaml"
			}
			routes["/hop"+string(rune('0'+i))] = map[string]any{"redirect": next}
		}
		return routes
	}
	gatedRef := func(url string) string {
		return strings.Replace(plainUnits, "units:\n", "manifests:\n  - id: \"partner\"\n    url: \""+url+"\"\n    agent_identity:\n      required: true\n      credential_hint: \"oauth2\"\nunits:\n", 1)
	}
	signed := sigManifest("served-signed", signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`))
	return []netVector{
		{name: "net-cleartext-refused", rules: []string{"KCP-net-https"},
			description: "an http:// manifest URL on a public address is refused before anything is sent: https only, unless --allow-private-hosts",
			args:        fetchArgs("http://203.0.113.7/knowledge.yaml"), exit: 1,
			expect: fetchFailed("http://203.0.113.7/knowledge.yaml", "refused cleartext http:// for '203.0.113.7' (use https, or --allow-private-hosts for local)")},
		{name: "net-cleartext-private-refused", rules: []string{"KCP-net-https", "KCP-net-private"},
			description: "an http:// URL on a private address: the address is refused first",
			args:        fetchArgs("http://10.0.0.1/knowledge.yaml"), exit: 1, expect: privateRefusal("http://10.0.0.1/knowledge.yaml", "10.0.0.1")},
		refused("net-refused-loopback", "a loopback manifest URL (127.0.0.1) is refused before connecting, naming the address", "127.0.0.1:9", "127.0.0.1", "/knowledge.yaml"),
		refused("net-refused-private-10", "a 10.0.0.0/8 address is refused", "10.20.30.40", "10.20.30.40", "/knowledge.yaml"),
		refused("net-refused-private-172", "a 172.16.0.0/12 address is refused", "172.20.1.1", "172.20.1.1", "/knowledge.yaml"),
		refused("net-refused-private-192", "a 192.168.0.0/16 address is refused", "192.168.0.10", "192.168.0.10", "/knowledge.yaml"),
		refused("net-refused-link-local", "a link-local address (169.254.0.0/16) is refused", "169.254.10.20", "169.254.10.20", "/knowledge.yaml"),
		refused("net-refused-metadata", "the cloud metadata address 169.254.169.254 is refused", "169.254.169.254", "169.254.169.254", "/latest/knowledge.yaml"),
		refused("net-refused-cgnat", "a shared address (100.64.0.0/10) is refused", "100.100.1.1", "100.100.1.1", "/knowledge.yaml"),
		refused("net-refused-this-host", "0.0.0.0 is refused", "0.0.0.0", "0.0.0.0", "/knowledge.yaml"),
		refused("net-refused-v6-loopback", "the IPv6 loopback ::1 is refused", "[::1]:9", "::1", "/knowledge.yaml"),
		refused("net-refused-v6-unique-local", "an IPv6 unique-local address (fc00::/7) is refused", "[fd12:3456::1]", "fd12:3456::1", "/knowledge.yaml"),
		refused("net-refused-v6-link-local", "an IPv6 link-local address (fe80::/10) is refused", "[fe80::1]", "fe80::1", "/knowledge.yaml"),
		{name: "net-refused-v4-mapped-loopback", rules: []string{"KCP-net-private"},
			description: "an IPv4-mapped IPv6 address is decoded: [::ffff:127.0.0.1] is loopback and refused, named as the URL writes it (::ffff:7f00:1)",
			args:        fetchArgs("https://[::ffff:127.0.0.1]:9/knowledge.yaml"), exit: 1,
			expect: privateRefusal("https://[::ffff:127.0.0.1]:9/knowledge.yaml", "::ffff:7f00:1")},
		{name: "net-refused-v4-mapped-metadata", rules: []string{"KCP-net-private"},
			description: "[::ffff:169.254.169.254] reaches the metadata address and is refused (::ffff:a9fe:a9fe)",
			args:        fetchArgs("https://[::ffff:169.254.169.254]/knowledge.yaml"), exit: 1,
			expect: privateRefusal("https://[::ffff:169.254.169.254]/knowledge.yaml", "::ffff:a9fe:a9fe")},
		{name: "net-signature-location-refused", rules: []string{"KCP-net-private"},
			description: "a signature location the manifest names on the metadata address goes through the same guard: refused, so the signature is unverifiable and the plan is made",
			manifest:    sigManifest("signed-remote", signingBlock("scheme: ed25519", `public_key: "`+rawB64(publisherKey)+`"`, `signature: "https://169.254.169.254/knowledge.sig"`)),
			args:        fetchArgs("<manifest>"), exit: 0,
			expect: map[string]any{"/json/signature/status": "unverifiable",
				"/json/signature/detail": "cannot load signature: refused private/loopback/link-local address 169.254.169.254 for '169.254.169.254'" + guardHint}},
		{name: "net-follow-private-ref", rules: []string{"KCP-net-follow"},
			description: "--follow fetches a federated ref through the guard: a ref on a private address is an error node (fetch refused), the root is planned",
			manifest:    strings.Replace(plainUnits, "units:\n", "manifests:\n  - id: \"partner\"\n    url: \"https://10.1.1.1/knowledge.yaml\"\nunits:\n", 1),
			args:        fetchArgs("<manifest>", "--follow"), exit: 0,
			expect: map[string]any{"/json/kind": "tree", "/json/plan/selected/0/id": "deploy-guide", "/json/children/0/refId": "partner",
				"/json/children/0/error": "fetch failed: refused private/loopback/link-local address 10.1.1.1 for '10.1.1.1'" + guardHint}},
		{name: "net-follow-gated-ref", rules: []string{"KCP-net-follow"},
			description: "a federated ref whose agent_identity needs a credential the agent lacks is never fetched: not followed, \"needs oauth2 before fetch\", no child",
			manifest:    gatedRef("https://10.1.1.1/knowledge.yaml"),
			args:        fetchArgs("<manifest>", "--follow"), exit: 0,
			expect: map[string]any{"/json/kind": "tree", "/json/children": map[string]any{"$len": 0},
				"/json/notFollowed": []any{map[string]any{"id": "partner", "url": "https://10.1.1.1/knowledge.yaml", "reason": "needs oauth2 before fetch"}}}},
		{name: "net-follow-gated-ref-credentialed", rules: []string{"KCP-net-follow"},
			description: "with the credential (--credentials oauth2) the walker does fetch the ref, through the guard, which refuses its private address",
			manifest:    gatedRef("https://10.1.1.1/knowledge.yaml"),
			args:        fetchArgs("<manifest>", "--follow", "--credentials", "oauth2"), exit: 0,
			expect: map[string]any{"/json/notFollowed": map[string]any{"$len": 0}, "/json/children/0/refId": "partner",
				"/json/children/0/error": map[string]any{"$contains": "fetch failed: refused private/loopback/link-local address 10.1.1.1"}}},
		{name: "net-allow-private-loopback", rules: []string{"KCP-net-allow-private"},
			description: "--allow-private-hosts permits loopback and http://: a manifest served by sifu on 127.0.0.1 is fetched and planned, its source the URL",
			server:      served, args: fetchArgs("<server>/knowledge.yaml", "--allow-private-hosts"), exit: 0,
			expect: map[string]any{"/json/manifest/source": "<server>/knowledge.yaml", "/json/manifest/project": "served", "/json/selected/0/id": "deploy-guide"}},
		{name: "net-loopback-refused-without-flag", rules: []string{"KCP-net-private"},
			description: "the same loopback server without --allow-private-hosts: refused before connecting, the server asked for nothing",
			server:      served, args: fetchArgs("<server>/knowledge.yaml"), exit: 1,
			expect: map[string]any{"/stdout": map[string]any{"$len": 0}, "/server/requests": map[string]any{"$len": 0},
				"/stderr": map[string]any{"$contains": "fetch failed: refused private/loopback/link-local address 127.0.0.1 for '127.0.0.1'"}}},
		{name: "net-http-status", rules: []string{"KCP-net-allow-private"},
			description: "a status other than 2xx fails the read, naming it",
			server:      served, args: fetchArgs("<server>/missing.yaml", "--allow-private-hosts"), exit: 1,
			expect: fetchFailed("<server>/missing.yaml", "404 Not Found")},
		{name: "net-redirects-five", rules: []string{"KCP-net-redirects"},
			description: "five redirects are followed (each hop checked), and the manifest's source is the URL it was read from",
			server:      redirects(5), args: fetchArgs("<server>/hop0", "--allow-private-hosts"), exit: 0,
			expect: map[string]any{"/json/manifest/source": "<server>/knowledge.yaml", "/json/selected/0/id": "deploy-guide",
				"/server/requests": []any{"GET /hop0", "GET /hop1", "GET /hop2", "GET /hop3", "GET /hop4", "GET /knowledge.yaml"}}},
		{name: "net-redirects-six", rules: []string{"KCP-net-redirects"},
			description: "a sixth redirect is one too many: the read fails naming where it started",
			server:      redirects(6), args: fetchArgs("<server>/hop0", "--allow-private-hosts"), exit: 1,
			expect: fetchFailed("<server>/hop0", "too many redirects (>5) starting at <server>/hop0")},
		{name: "net-size-declared", rules: []string{"KCP-net-size"},
			description: "a declared Content-Length over 8 MiB is refused before the body is read",
			server:      map[string]any{"/big.yaml": map[string]any{"body": plainUnits, "size": capBytes + 1}},
			args:        fetchArgs("<server>/big.yaml", "--allow-private-hosts"), exit: 1,
			expect: fetchFailed("<server>/big.yaml", "response too large: 8388609 bytes exceeds cap 8388608")},
		{name: "net-size-streamed", rules: []string{"KCP-net-size"},
			description: "a body over 8 MiB sent with no Content-Length is cut off while it streams",
			server:      map[string]any{"/big.yaml": map[string]any{"body": plainUnits, "size": capBytes + 1, "streamed": true}},
			args:        fetchArgs("<server>/big.yaml", "--allow-private-hosts"), exit: 1,
			expect: fetchFailed("<server>/big.yaml", "response too large: exceeded cap 8388608 bytes while reading <server>/big.yaml")},
		{name: "net-size-at-cap", rules: []string{"KCP-net-size"},
			description: "a manifest of exactly 8 MiB (streamed) is read and planned: the cap is inclusive",
			server:      map[string]any{"/cap.yaml": map[string]any{"body": plainUnits, "size": capBytes, "streamed": true}},
			args:        fetchArgs("<server>/cap.yaml", "--allow-private-hosts"), exit: 0,
			expect: map[string]any{"/json/selected/0/id": "deploy-guide"}},
		{name: "net-follow-url-relative", rules: []string{"KCP-net-follow"},
			description: "--follow over a served hub: a relative ref is resolved against the hub's URL, fetched and planned",
			server: map[string]any{
				"/hub/knowledge.yaml":   map[string]any{"body": strings.Replace(plainUnits, "units:\n", "manifests:\n  - id: \"child\"\n    url: \"../child/knowledge.yaml\"\nunits:\n", 1)},
				"/child/knowledge.yaml": map[string]any{"body": strings.Replace(plainUnits, `"served"`, `"served-child"`, 1)}},
			args: fetchArgs("<server>/hub/knowledge.yaml", "--allow-private-hosts", "--follow"), exit: 0,
			expect: map[string]any{"/json/kind": "tree", "/json/location": "<server>/hub/knowledge.yaml",
				"/json/children/0/location": "<server>/child/knowledge.yaml", "/json/children/0/plan/manifest/project": "served-child"}},
		{name: "net-follow-max-nodes", rules: []string{"KCP-net-follow"},
			description: "--max-nodes 2 over a served hub with two refs: the second is not fetched (fan-out cap)",
			server: map[string]any{
				"/hub.yaml": map[string]any{"body": strings.Replace(plainUnits, "units:\n", "manifests:\n  - id: \"a\"\n    url: \"a.yaml\"\n  - id: \"b\"\n    url: \"b.yaml\"\nunits:\n", 1)},
				"/a.yaml":   map[string]any{"body": plainUnits}, "/b.yaml": map[string]any{"body": plainUnits}},
			args: fetchArgs("<server>/hub.yaml", "--allow-private-hosts", "--follow", "--max-nodes", "2"), exit: 0,
			expect: map[string]any{"/json/children": map[string]any{"$len": 1}, "/server/requests": []any{"GET /hub.yaml", "GET /a.yaml"},
				"/json/notFollowed": []any{map[string]any{"id": "b", "url": "b.yaml", "reason": "beyond max nodes 2 (fan-out cap)"}}}},
		{name: "net-follow-gated-served", rules: []string{"KCP-net-follow"},
			description: "a served hub's ref whose credential the agent lacks: not followed, and the server is never asked for it",
			server:      map[string]any{"/hub.yaml": map[string]any{"body": gatedRef("partner.yaml")}, "/partner.yaml": map[string]any{"body": plainUnits}},
			args:        fetchArgs("<server>/hub.yaml", "--allow-private-hosts", "--follow"), exit: 0,
			expect: map[string]any{"/json/children": map[string]any{"$len": 0}, "/server/requests": []any{"GET /hub.yaml"},
				"/json/notFollowed": []any{map[string]any{"id": "partner", "url": "partner.yaml", "reason": "needs oauth2 before fetch"}}}},
		{name: "net-follow-gated-served-credentialed", rules: []string{"KCP-net-follow"},
			description: "the same hub with --credentials oauth2: the ref is fetched and planned",
			server:      map[string]any{"/hub.yaml": map[string]any{"body": gatedRef("partner.yaml")}, "/partner.yaml": map[string]any{"body": plainUnits}},
			args:        fetchArgs("<server>/hub.yaml", "--allow-private-hosts", "--follow", "--credentials", "oauth2"), exit: 0,
			expect: map[string]any{"/json/notFollowed": map[string]any{"$len": 0}, "/server/requests": []any{"GET /hub.yaml", "GET /partner.yaml"},
				"/json/children/0/location": "<server>/partner.yaml", "/json/children/0/plan/selected/0/id": "deploy-guide"}},
		{name: "net-validate-served", rules: []string{"KCP-net-allow-private"},
			description: "validate reads a served manifest with --allow-private-hosts; a remote manifest's unit paths are not looked for on disk",
			server:      served, args: []string{"validate", "<server>/knowledge.yaml", "--json", "--allow-private-hosts", "--as-of", netAsOf}, exit: 0,
			expect: map[string]any{"/json/source": "<server>/knowledge.yaml", "/json/ok": true,
				"/json/findings": []any{map[string]any{"level": "warning", "where": "unit 'deploy-guide'", "message": "no 'audience' — declare who this unit serves (e.g. [agent, human])"}}}},
		{name: "net-validate-refused", rules: []string{"KCP-net-private"},
			description: "validate of a manifest URL on a private address: one error finding, the guard's refusal, exit 1",
			args:        []string{"validate", "https://10.9.9.9/knowledge.yaml", "--json"}, exit: 1,
			expect: map[string]any{"/json/ok": false, "/json/findings": []any{map[string]any{"level": "error", "where": "manifest",
				"message": "refused private/loopback/link-local address 10.9.9.9 for '10.9.9.9'" + guardHint}}}},
		{name: "net-replay-served", rules: []string{"KCP-net-allow-private"},
			description: "replay re-fetches a saved plan's served manifest through the guard: with --allow-private-hosts it is identical",
			server:      served, files: map[string]string{"plan.json": servedPlan},
			args: []string{"replay", "<dir>/plan.json", "--json", "--allow-private-hosts"}, exit: 0,
			expect: map[string]any{"/json/ok": true, "/json/checks/0/source": "<server>/knowledge.yaml", "/json/checks/0/status": "identical"}},
		{name: "net-replay-refused", rules: []string{"KCP-net-private"},
			description: "replay of the same saved plan without --allow-private-hosts: the re-fetch is refused, the check is an error, exit 1",
			server:      served, files: map[string]string{"plan.json": servedPlan},
			args: []string{"replay", "<dir>/plan.json", "--json"}, exit: 1,
			expect: map[string]any{"/json/ok": false, "/json/checks/0/status": "error",
				"/json/checks/0/detail": "fetch failed: refused private/loopback/link-local address 127.0.0.1 for '127.0.0.1'" + guardHint}},
		{name: "net-signature-over-url", rules: []string{"KCP-net-allow-private", "KCP-sig-verify"},
			description: "a served manifest's relative signature and key locations are resolved against its URL and read through the guard: verified",
			server: map[string]any{"/knowledge.yaml": map[string]any{"body": signed},
				"/knowledge.sig": map[string]any{"body": b64Sig(ed25519.Sign(publisherKey, []byte(signed)))},
				"/key.pem":       map[string]any{"body": spkiPEM(publisherKey)}},
			args: fetchArgs("<server>/knowledge.yaml", "--allow-private-hosts"), exit: 0,
			expect: map[string]any{"/json/signature": map[string]any{"status": "verified", "detail": "ed25519 signature verified (declared key)"}}},
	}
}

// servedPlan is `plan --json` of plainUnits served at <server>/knowledge.yaml
// (as sifu-kcp and kcp-agent 0.27.0 both print it), for replay.
const servedPlan = `{
  "task": "deploy",
  "manifest": {
    "project": "served",
    "version": "1.0.0",
    "kcpVersion": "0.32",
    "source": "<server>/knowledge.yaml",
    "sha256": "628e5d6240d8a9fef6ceaa2f811946cdeeafcb4d6a89862e6cee89fa67c8f60d"
  },
  "trust": {
    "requiresAttestation": false,
    "agentCanAttest": true,
    "note": "no manifest-level attestation requirement"
  },
  "asOf": "2026-07-06",
  "options": {
    "capabilities": {
      "role": "agent",
      "paymentMethods": [
        "free"
      ],
      "credentials": []
    },
    "maxUnits": 5,
    "strict": false
  },
  "selected": [
    {
      "id": "deploy-guide",
      "path": "deploy.md",
      "intent": "How to deploy to production",
      "score": 9,
      "reasons": [
        "intent matches 1 term(s)",
        "triggers match 1 term(s)",
        "id/path matches 1 term(s)"
      ],
      "payment": {
        "method": "free",
        "affordable": true
      },
      "requiresAttestation": false,
      "loadEligible": true
    }
  ],
  "skipped": [],
  "federation": [],
  "budget": {
    "rateTier": "default",
    "perRequestCosts": [],
    "note": "all selected units are free to load at the resolved tier."
  },
  "context": {
    "approximate": false,
    "unmeasured": 1,
    "note": "no context budget set."
  },
  "warnings": [],
  "signature": {
    "status": "unsigned",
    "detail": "manifest declares no signature"
  },
  "schemaVersion": 1,
  "kind": "plan"
}
`

// netMCPCases check the guard over MCP, where it is on by default.
func netMCPCases() []netVector {
	m := func(ptr string, v any) map[string]any { return map[string]any{"pointer": ptr, "matcher": v} }
	call := func(tool, manifest string, allow bool, expect ...map[string]any) map[string]any {
		args := map[string]any{"task": netTask, "manifest": manifest, "as_of": netAsOf}
		if allow {
			args["allow_private_hosts"] = true
		}
		return map[string]any{"call": tool, "arguments": args, "expect": expect}
	}
	return []netVector{
		{name: "net-mcp-cleartext", rules: []string{"KCP-net-mcp"},
			description: "over MCP an http:// manifest URL is refused as on the command line",
			mcp: []map[string]any{call("kcp_plan", "http://203.0.113.7/knowledge.yaml", false, m("/refused", true),
				m("/text", "http://203.0.113.7/knowledge.yaml: fetch failed: refused cleartext http:// for '203.0.113.7' (use https, or --allow-private-hosts for local)"))}},
		{name: "net-mcp-v4-mapped", rules: []string{"KCP-net-mcp"},
			description: "over MCP an IPv4-mapped IPv6 metadata address is refused",
			mcp: []map[string]any{call("kcp_load", "https://[::ffff:169.254.169.254]/knowledge.yaml", false, m("/refused", true),
				m("/text", map[string]any{"$contains": "refused private/loopback/link-local address ::ffff:a9fe:a9fe"}))}},
		{name: "net-mcp-allow-private", rules: []string{"KCP-net-mcp"},
			description: "a manifest on sifu's loopback server: refused by default over MCP, planned with allow_private_hosts true",
			server:      map[string]any{"/knowledge.yaml": map[string]any{"body": plainUnits}},
			mcp: []map[string]any{
				call("kcp_plan", "<server>/knowledge.yaml", false, m("/refused", true),
					m("/text", map[string]any{"$contains": "refused private/loopback/link-local address 127.0.0.1"})),
				call("kcp_plan", "<server>/knowledge.yaml", true, m("/refused", false),
					m("/json/location", "<server>/knowledge.yaml"), m("/json/plan/selected/0/id", "deploy-guide")),
				call("kcp_validate", "<server>/knowledge.yaml", true, m("/refused", false), m("/json/source", "<server>/knowledge.yaml")),
			}},
	}
}
