package kcp

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The signatures profile's vectors (vectors/kcp/commands/sig-*.json and
// vectors/kcp/mcp/sig-*.json) carry ed25519 keys and signatures as text.
// They are made here, from fixed seeds, so anyone can see how each was
// made and make it again: TestSignatureVectorsAreGenerated fails when a
// committed vector differs from what this table gives, and with
// SIFU_REGEN_SIG_VECTORS=1 it writes them.

// sigKey is a key pair made from a fixed seed (the byte i+offset at i).
func sigKey(offset byte) ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i) + offset
	}
	return ed25519.NewKeyFromSeed(seed)
}

var (
	publisherKey = sigKey(1)  // the manifest's publisher
	strangerKey  = sigKey(33) // someone else, who signs a manifest to endorse it himself
)

// Key and signature encodings kcp-agent reads.
func rawB64(k ed25519.PrivateKey) string {
	return base64.StdEncoding.EncodeToString(k.Public().(ed25519.PublicKey))
}
func rawHex(k ed25519.PrivateKey) string { return hex.EncodeToString(k.Public().(ed25519.PublicKey)) }
func spkiDER(k ed25519.PrivateKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		panic(err)
	}
	return der
}
func spkiB64(k ed25519.PrivateKey) string { return base64.StdEncoding.EncodeToString(spkiDER(k)) }
func spkiPEM(k ed25519.PrivateKey) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spkiDER(k)}))
}

// sigCase is one vector: the signing block of its manifest, who signs the
// manifest and how the signature file is written, what is changed after
// signing, and the command (or tool calls) and what they must do.
type sigCase struct {
	name, description string
	rules             []string
	signing           string                   // the YAML signing block ("" for none)
	signer            ed25519.PrivateKey       // nil: nothing is signed
	sigFile           string                   // the signature file's name beside the manifest
	sigText           func(sig []byte) string  // the signature file's text
	files             map[string]string        // more files beside the manifest
	tamper            bool                     // a unit's intent is edited after signing
	signedText        func(text string) string // what was signed, from the manifest's text (default: as is)
	trailing          string                   // appended to the manifest after signing
	args              []string                 // after plan --task deploy --manifest <manifest> --json --as-of 2026-07-06
	exit              int
	expect            map[string]any
	mcp               []map[string]any // an mcp vector's steps instead of a command
	children          map[string]sigChild
}

// sigChild is a federated manifest beside the root, signed on its own.
type sigChild struct {
	tamper bool
}

const sigUnits = `units:
  - id: "deploy-guide"
    path: "deploy.md"
    intent: "How to deploy to production"
    triggers: ["deploy"]
`

func sigManifest(project, signing string) string {
	return "project: \"" + project + "\"\nversion: \"1.0.0\"\nkcp_version: \"0.32\"\n" + signing + sigUnits
}

func b64Sig(sig []byte) string { return base64.StdEncoding.EncodeToString(sig) + "\n" }
func hexSig(sig []byte) string { return hex.EncodeToString(sig) + "\n" }
func envelope(k ed25519.PrivateKey, keyID string) func([]byte) string {
	return func(sig []byte) string {
		e := map[string]string{"algorithm": "ed25519", "signature": base64.StdEncoding.EncodeToString(sig)}
		if k != nil {
			e["public_key"] = rawB64(k)
		}
		if keyID != "" {
			e["key_id"] = keyID
		}
		b, _ := json.MarshalIndent(e, "", "  ")
		return string(b) + "\n"
	}
}

func signingBlock(lines ...string) string {
	return "signing:\n  " + strings.Join(lines, "\n  ") + "\n"
}

var planArgs = []string{"plan", "--task", "deploy", "--manifest", "<manifest>", "--json", "--as-of", "2026-07-06"}

func verified(via string) map[string]any {
	return map[string]any{"/exit": 0, "/json/kind": "plan", "/json/selected/0/id": "deploy-guide",
		"/json/signature": map[string]any{"status": "verified", "detail": "ed25519 signature verified (" + via + ")"}}
}

func refused(reason string) map[string]any {
	return map[string]any{"/exit": 1, "/stdout": map[string]any{"$len": 0}, "/stderr": "kcp-agent: <manifest>: " + reason + "\n"}
}

const (
	mismatch = "ed25519 signature does not match manifest bytes"
	declared = `public_key: "key.pem"`
)

func sigCases() []sigCase {
	pemKey := map[string]string{"key.pem": spkiPEM(publisherKey)}
	return []sigCase{
		{name: "sig-envelope-embedded-key", rules: []string{"KCP-sig-verify", "KCP-sig-encodings"},
			description: "a JSON signature envelope {algorithm, public_key, signature, key_id} whose key verifies the manifest: verified (envelope key), the envelope's key_id reported",
			signing:     signingBlock("scheme: ed25519", `signature: "knowledge.sig.json"`), signer: publisherKey, sigFile: "knowledge.sig.json", sigText: envelope(publisherKey, "publisher-2026"),
			exit: 0, expect: map[string]any{"/exit": 0, "/json/selected/0/id": "deploy-guide",
				"/json/signature": map[string]any{"status": "verified", "detail": "ed25519 signature verified (envelope key)", "keyId": "publisher-2026"}}},
		{name: "sig-base64-pem-key", rules: []string{"KCP-sig-verify", "KCP-sig-encodings"},
			description: "a raw base64 signature file and a PEM SPKI key file the signing block names: verified (declared key)",
			signing:     signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey,
			exit: 0, expect: verified("declared key")},
		{name: "sig-hex-der-key", rules: []string{"KCP-sig-verify", "KCP-sig-encodings"},
			description: "a raw hex signature file and a base64 SPKI DER key file: verified (declared key)",
			signing:     signingBlock("scheme: ed25519", `public_key: "key.der.b64"`, `signature: "knowledge.sig.hex"`), signer: publisherKey, sigFile: "knowledge.sig.hex", sigText: hexSig,
			files: map[string]string{"key.der.b64": spkiB64(publisherKey) + "\n"},
			exit:  0, expect: verified("declared key")},
		{name: "sig-inline-raw-key", rules: []string{"KCP-sig-verify", "KCP-sig-encodings"},
			description: "the raw 32-byte key written into the signing block as hex (inline material, not a location) and a hex signature: verified (declared key)",
			signing:     signingBlock("scheme: ed25519", `public_key: "`+rawHex(publisherKey)+`"`, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: hexSig,
			exit: 0, expect: verified("declared key")},
		{name: "sig-inline-raw-base64-key", rules: []string{"KCP-sig-verify", "KCP-sig-encodings"},
			description: "the raw 32-byte key written into the signing block as base64: verified (declared key)",
			signing:     signingBlock("scheme: ed25519", `public_key: "`+rawB64(publisherKey)+`"`, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig,
			exit: 0, expect: verified("declared key")},
		{name: "sig-trailing-newlines", rules: []string{"KCP-sig-verify"},
			description: "the manifest was signed ending in one newline and is published with three: the trailing newlines are made one before the second try, so it verifies",
			signing:     signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey,
			trailing: "\n\n", exit: 0, expect: verified("declared key")},
		{name: "sig-tampered", rules: []string{"KCP-sig-tamper"},
			description: "a unit's intent edited after signing: the signature no longer matches, the manifest is refused before planning (exit 1, nothing on standard output)",
			signing:     signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey,
			tamper: true, exit: 1, expect: refused("signature invalid: " + mismatch)},
		{name: "sig-tampered-envelope", rules: []string{"KCP-sig-tamper"},
			description: "a self-endorsing envelope (its own key) over a manifest edited after signing: refused, the envelope's key does not save it",
			signing:     signingBlock("scheme: ed25519", `signature: "knowledge.sig.json"`), signer: publisherKey, sigFile: "knowledge.sig.json", sigText: envelope(publisherKey, ""),
			tamper: true, exit: 1, expect: refused("signature invalid: " + mismatch)},
		{name: "sig-tampered-trace", rules: []string{"KCP-sig-tamper"},
			description: "plan --trace over a manifest edited after signing is refused as plan is",
			signing:     signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey,
			tamper: true, args: []string{"--trace"}, exit: 1, expect: refused("signature invalid: " + mismatch)},
		{name: "sig-short-signature", rules: []string{"KCP-sig-tamper"},
			description: "a signature file of 32 bytes, not 64: invalid, refused",
			signing:     signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: func(sig []byte) string { return b64Sig(sig[:32]) }, files: pemKey,
			exit: 1, expect: refused("signature invalid: signature is not 64 ed25519 signature bytes")},
		{name: "sig-unverifiable-missing-key", rules: []string{"KCP-sig-unverifiable"},
			description: "the declared key file does not exist and no envelope carries one: unverifiable, reported in the plan, which is still made (exit 0)",
			signing:     signingBlock("scheme: ed25519", `public_key: "missing.pem"`, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig,
			exit: 0, expect: map[string]any{"/exit": 0, "/json/selected/0/id": "deploy-guide", "/json/signature/status": "unverifiable",
				"/json/signature/detail": map[string]any{"$contains": "cannot load public key: ENOENT"}}},
		{name: "sig-unverifiable-scheme", rules: []string{"KCP-sig-unverifiable"},
			description: "a signing scheme other than ed25519: unverifiable, the plan is made",
			signing:     signingBlock("scheme: rsa-pss", declared, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey,
			exit: 0, expect: map[string]any{"/exit": 0, "/json/selected/0/id": "deploy-guide",
				"/json/signature": map[string]any{"status": "unverifiable", "detail": "unsupported signing scheme 'rsa-pss'"}}},
		{name: "sig-unverifiable-no-signature", rules: []string{"KCP-sig-unverifiable"},
			description: "a signing block that names no signature: unverifiable (never taken for unsigned), its key_id reported",
			signing:     signingBlock("scheme: ed25519", "key_id: \"publisher-2026\"", declared), files: pemKey,
			exit: 0, expect: map[string]any{"/exit": 0, "/json/signature/status": "unverifiable", "/json/signature/keyId": "publisher-2026"}},
		{name: "sig-unsigned", rules: []string{"KCP-sig-unverifiable"},
			description: "a manifest with no signing block plans, its signature reported unsigned",
			exit:        0, expect: map[string]any{"/exit": 0, "/json/signature": map[string]any{"status": "unsigned", "detail": "manifest declares no signature"}}},
		{name: "sig-require-verified", rules: []string{"KCP-sig-require"},
			description: "--require-signature over a manifest that verifies: planned",
			signing:     signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey,
			args: []string{"--require-signature"}, exit: 0, expect: verified("declared key")},
		{name: "sig-require-unsigned", rules: []string{"KCP-sig-require"},
			description: "--require-signature over an unsigned manifest: refused, exit 1",
			args:        []string{"--require-signature"}, exit: 1, expect: refused("signature required but unsigned: manifest declares no signature")},
		{name: "sig-require-unverifiable", rules: []string{"KCP-sig-require"},
			description: "--require-signature over a manifest whose key cannot be read: refused, exit 1",
			signing:     signingBlock("scheme: ed25519", `public_key: "missing.pem"`, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig,
			args: []string{"--require-signature"}, exit: 1,
			expect: map[string]any{"/exit": 1, "/stdout": map[string]any{"$len": 0}, "/stderr": map[string]any{"$contains": "kcp-agent: <manifest>: signature required but unverifiable: cannot load public key: ENOENT"}}},
		{name: "sig-trust-key-inline", rules: []string{"KCP-sig-trust-key"},
			description: "--trust-key with the publisher's raw key inline pins it: verified (pinned key)",
			signing:     signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey,
			args: []string{"--trust-key", rawB64(publisherKey)}, exit: 0, expect: verified("pinned key")},
		{name: "sig-trust-key-path", rules: []string{"KCP-sig-trust-key"},
			description: "--trust-key naming a PEM file pins that key over the envelope's own: verified (pinned key)",
			signing:     signingBlock("scheme: ed25519", `signature: "knowledge.sig.json"`), signer: publisherKey, sigFile: "knowledge.sig.json", sigText: envelope(publisherKey, ""),
			files: map[string]string{"pinned/publisher.pem": spkiPEM(publisherKey)},
			args:  []string{"--trust-key", "<dir>/pinned/publisher.pem"}, exit: 0, expect: verified("pinned key")},
		{name: "sig-trust-key-self-endorsed", rules: []string{"KCP-sig-trust-key"},
			description: "a manifest signed by another key whose envelope and signing block endorse that key: with the publisher's key pinned it is invalid and refused — a manifest cannot vouch for itself",
			signing:     signingBlock("scheme: ed25519", `public_key: "`+rawB64(strangerKey)+`"`, `signature: "knowledge.sig.json"`), signer: strangerKey, sigFile: "knowledge.sig.json", sigText: envelope(strangerKey, ""),
			args: []string{"--trust-key", rawB64(publisherKey)}, exit: 1, expect: refused("signature invalid: " + mismatch)},
		{name: "sig-trust-key-unreadable", rules: []string{"KCP-sig-trust-key"},
			description: "a pinned key file that cannot be read: unverifiable, with no fallback to the envelope's key",
			signing:     signingBlock("scheme: ed25519", `signature: "knowledge.sig.json"`), signer: publisherKey, sigFile: "knowledge.sig.json", sigText: envelope(publisherKey, ""),
			args: []string{"--trust-key", "<dir>/absent.pem"}, exit: 0,
			expect: map[string]any{"/exit": 0, "/json/signature/status": "unverifiable", "/json/signature/detail": map[string]any{"$contains": "cannot load public key: ENOENT"}}},
		{name: "sig-no-verify-tampered", rules: []string{"KCP-sig-no-verify"},
			description: "--no-verify skips the check: a manifest edited after signing is planned, and the plan carries no signature verdict",
			signing:     signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey,
			tamper: true, args: []string{"--no-verify"}, exit: 0,
			expect: map[string]any{"/exit": 0, "/json/kind": "plan", "/json/selected/0/id": "deploy-guide", "/json/signature": map[string]any{"$absent": true}}},
		{name: "sig-follow-child-tampered", rules: []string{"KCP-sig-tamper"},
			description: "--follow over a signed root federating a local child edited after signing: the child is an error node (signature invalid), its plan not made; the root is planned",
			signing:     signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`), signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey,
			children: map[string]sigChild{"child": {tamper: true}}, args: []string{"--follow"}, exit: 0,
			expect: map[string]any{"/exit": 0, "/json/kind": "tree", "/json/signature/status": "verified",
				"/json/children/0/refId": "child", "/json/children/0/error": "signature invalid: " + mismatch,
				"/json/children/0/plan": map[string]any{"$absent": true}}},
	}
}

// build writes out one case's manifest text and files.
func (c sigCase) build() (manifest string, files map[string]string) {
	files = map[string]string{}
	for k, v := range c.files {
		files[k] = v
	}
	text := sigManifest("signed-handbook", c.signing)
	if len(c.children) > 0 {
		text = strings.Replace(text, "units:\n", "manifests:\n  - id: \"child\"\n    url: \"child/knowledge.yaml\"\n    label: \"the child\"\nunits:\n", 1)
		for id, ch := range c.children {
			ctext := sigManifest("child-"+id, signingBlock("scheme: ed25519", `public_key: "`+rawB64(publisherKey)+`"`, `signature: "knowledge.sig"`))
			files[id+"/knowledge.sig"] = b64Sig(ed25519.Sign(publisherKey, []byte(ctext)))
			if ch.tamper {
				ctext = strings.Replace(ctext, "to production", "to staging", 1)
			}
			files[id+"/knowledge.yaml"] = ctext
		}
	}
	if c.signer != nil {
		files[c.sigFile] = c.sigText(ed25519.Sign(c.signer, []byte(text)))
	}
	if c.tamper {
		text = strings.Replace(text, "to production", "to staging", 1)
	}
	return text + c.trailing, files
}

func (c sigCase) vector() ([]byte, string) {
	manifest, files := c.build()
	if c.mcp != nil {
		files["knowledge.yaml"] = manifest
		return marshalVector(map[string]any{"name": c.name, "kind": "mcp", "description": c.description, "rules": c.rules, "files": files, "steps": c.mcp}), filepath.Join("mcp", c.name+".json")
	}
	args := append(append([]string{}, planArgs...), c.args...)
	expect := map[string]any{}
	for k, v := range c.expect {
		if k != "/exit" { // the vector's exit says it
			expect[k] = v
		}
	}
	return marshalVector(map[string]any{"name": c.name, "kind": "command", "rules": c.rules, "description": c.description,
		"manifest": manifest, "files": files, "args": args, "exit": c.exit, "expect": expect}), filepath.Join("commands", c.name+".json")
}

// marshalVector writes a vector in the order its schema lists the members.
func marshalVector(v map[string]any) []byte {
	order := []string{"name", "kind", "rules", "description", "manifest", "files", "server", "args", "exit", "expect", "steps"}
	var b bytes.Buffer
	b.WriteString("{\n")
	first := true
	for _, k := range order {
		val, ok := v[k]
		if files, isFiles := val.(map[string]string); !ok || isFiles && len(files) == 0 {
			continue
		}
		if !first {
			b.WriteString(",\n")
		}
		first = false
		var e bytes.Buffer
		enc := json.NewEncoder(&e)
		enc.SetEscapeHTML(false)
		enc.SetIndent("  ", "  ")
		if err := enc.Encode(val); err != nil {
			panic(err)
		}
		b.WriteString(`  "` + k + `": ` + strings.TrimSuffix(e.String(), "\n"))
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

func TestSignatureVectorsAreGenerated(t *testing.T) {
	root := filepath.Join("..", "..", "vectors", "kcp")
	regen := os.Getenv("SIFU_REGEN_SIG_VECTORS") == "1"
	type vector interface{ vector() ([]byte, string) }
	var all []vector
	for _, c := range append(sigCases(), sigMCPCases()...) {
		all = append(all, c)
	}
	for _, c := range append(netCases(), netMCPCases()...) {
		all = append(all, c)
	}
	for _, c := range all {
		raw, rel := c.vector()
		file := filepath.Join(root, rel)
		if same, err := CurrentFile(t, file, raw, regen); !same {
			t.Errorf("%s is not what the fixed seeds give (%v); SIFU_REGEN_SIG_VECTORS=1 go test ./suite/kcp -run TestSignatureVectorsAreGenerated writes it", file, err)
		}
	}
}

// sigMCPCases are the signatures profile's MCP checks: the tools verify
// every manifest they plan, with its own key (they take no signature
// arguments).
func sigMCPCases() []sigCase {
	pemKey := map[string]string{"key.pem": spkiPEM(publisherKey)}
	block := signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`)
	call := func(tool string, expect ...map[string]any) map[string]any {
		return map[string]any{"call": tool, "arguments": map[string]any{"task": "deploy", "manifest": "<dir>/knowledge.yaml", "as_of": "2026-07-06"}, "expect": expect}
	}
	m := func(ptr string, v any) map[string]any { return map[string]any{"pointer": ptr, "matcher": v} }
	refusedText := m("/text", "<dir>/knowledge.yaml: signature invalid: "+mismatch)
	return []sigCase{
		{name: "sig-mcp-verified", rules: []string{"KCP-sig-mcp"},
			description: "kcp_plan and kcp_load over a signed manifest verify it with its declared key and report the verdict in the plan tree",
			signing:     block, signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey,
			mcp: []map[string]any{
				call("kcp_plan", m("/refused", false), m("/json/signature", map[string]any{"status": "verified", "detail": "ed25519 signature verified (declared key)"}),
					m("/json/plan/signature/status", "verified")),
				call("kcp_load", m("/refused", false), m("/json/plan/signature/status", "verified")),
			}},
		{name: "sig-mcp-tampered", rules: []string{"KCP-sig-mcp"},
			description: "kcp_plan and kcp_load over a manifest edited after signing are refused (isError), naming the manifest and the mismatch",
			signing:     block, signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey, tamper: true,
			mcp: []map[string]any{
				call("kcp_plan", m("/refused", true), refusedText),
				call("kcp_load", m("/refused", true), refusedText),
			}},
		{name: "sig-mcp-trace-tampered", rules: []string{"KCP-sig-mcp"},
			description: "kcp_trace plans as kcp_plan does, so a manifest edited after signing is refused there too (the README: an invalid signature always fails closed before planning)",
			signing:     block, signer: publisherKey, sigFile: "knowledge.sig", sigText: b64Sig, files: pemKey, tamper: true,
			mcp: []map[string]any{call("kcp_trace", m("/refused", true), refusedText)}},
	}
}
