package kcp

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The signatures profile's serve vectors (vectors/kcp/serve/sig-serve-*.json):
// a server started over a directory of signed, tampered, unsigned,
// unverifiable and self-endorsed manifests, each in a folder of its own,
// answering REST and /mcp requests for them. Keys and signatures come from
// the fixed seeds of sigvectors_test.go; TestSignatureServeVectorsAreGenerated
// fails when a committed vector differs, and with SIFU_REGEN_SIG_VECTORS=1
// writes them.

// sigServeFiles is the directory every signature serve vector serves.
func sigServeFiles() map[string]string {
	files := map[string]string{}
	pem := spkiPEM(publisherKey)
	declaredBlock := signingBlock("scheme: ed25519", declared, `signature: "knowledge.sig"`)
	signed := sigManifest("signed-handbook", declaredBlock)
	sig := b64Sig(ed25519.Sign(publisherKey, []byte(signed)))
	files["signed/knowledge.yaml"], files["signed/knowledge.sig"], files["signed/key.pem"] = signed, sig, pem
	files["tampered/knowledge.yaml"] = strings.Replace(signed, "to production", "to staging", 1)
	files["tampered/knowledge.sig"], files["tampered/key.pem"] = sig, pem
	files["unsigned/knowledge.yaml"] = sigManifest("signed-handbook", "")
	unverifiable := sigManifest("signed-handbook", signingBlock("scheme: ed25519", `public_key: "missing.pem"`, `signature: "knowledge.sig"`))
	files["unverifiable/knowledge.yaml"] = unverifiable
	files["unverifiable/knowledge.sig"] = b64Sig(ed25519.Sign(publisherKey, []byte(unverifiable)))
	stranger := sigManifest("signed-handbook", signingBlock("scheme: ed25519", `public_key: "`+rawB64(strangerKey)+`"`, `signature: "knowledge.sig.json"`))
	files["stranger/knowledge.yaml"] = stranger
	files["stranger/knowledge.sig.json"] = envelope(strangerKey, "")(ed25519.Sign(strangerKey, []byte(stranger)))
	return files
}

// sigServeCase is one serve vector over sigServeFiles.
type sigServeCase struct {
	name, description string
	rules             []string
	args              []string
	steps             []map[string]any
}

func (c sigServeCase) vector() ([]byte, string) {
	v := map[string]any{"name": c.name, "kind": "serve", "rules": c.rules, "description": c.description,
		"files": sigServeFiles(), "steps": c.steps}
	if len(c.args) > 0 {
		v["args"] = c.args
	}
	return marshalVector(v), filepath.Join("serve", c.name+".json")
}

func sigServeCases() []sigServeCase {
	m := func(ptr string, v any) map[string]any { return map[string]any{"pointer": ptr, "matcher": v} }
	body := func(folder string) map[string]any {
		return map[string]any{"task": "deploy", "manifest": "<dir>/" + folder + "/knowledge.yaml", "as_of": "2026-07-06"}
	}
	post := func(route, folder string, expect ...map[string]any) map[string]any {
		return map[string]any{"request": map[string]any{"method": "POST", "path": route, "body": body(folder)}, "expect": expect}
	}
	refusedWith := func(folder, reason string) []map[string]any {
		return []map[string]any{m("/status", 500), m("/json", map[string]any{"error": "<dir>/" + folder + "/knowledge.yaml: " + reason})}
	}
	planned := func(sig any) []map[string]any {
		return []map[string]any{m("/status", 200), m("/json/signature", sig), m("/json/plan/selected/0/id", "deploy-guide")}
	}
	verifiedBy := func(via string) map[string]any {
		return map[string]any{"status": "verified", "detail": "ed25519 signature verified (" + via + ")"}
	}
	invalid := "signature invalid: " + mismatch
	return []sigServeCase{
		{name: "sig-serve-verify", rules: []string{"KCP-sig-verify", "KCP-sig-tamper", "KCP-sig-unverifiable", "KCP-serve-rest"},
			description: "with no signature option, POST /plan verifies each manifest with its own key: a signed one is planned (verified, declared key), one edited after signing is refused (500 naming the manifest), an unverifiable one and an unsigned one are planned with their verdicts; POST /validate lints the edited manifest as the validate command does, without verifying it (kcp-agent 0.27.0's behaviour: the README gives validate no signature check)",
			steps: []map[string]any{
				post("/plan", "signed", planned(verifiedBy("declared key"))...),
				post("/plan", "tampered", refusedWith("tampered", invalid)...),
				post("/plan", "unverifiable", m("/status", 200), m("/json/signature/status", "unverifiable"),
					m("/json/signature/detail", map[string]any{"$contains": "cannot load public key: ENOENT"}), m("/json/plan/selected/0/id", "deploy-guide")),
				post("/plan", "unsigned", planned(map[string]any{"status": "unsigned", "detail": "manifest declares no signature"})...),
				{"request": map[string]any{"method": "POST", "path": "/validate", "body": map[string]any{"manifest": "<dir>/tampered/knowledge.yaml"}},
					"expect": []map[string]any{m("/status", 200), m("/json/source", "<dir>/tampered/knowledge.yaml"), m("/json/project", "signed-handbook")}},
			}},
		{name: "sig-serve-trace-tampered", rules: []string{"KCP-sig-tamper"},
			description: "POST /trace plans as POST /plan does, so a manifest edited after signing is refused there too, 500 naming the manifest (the README: an invalid signature always fails closed before planning); a signed one is traced",
			steps: []map[string]any{
				post("/trace", "signed", m("/status", 200), m("/json/plan/selected/0/id", "deploy-guide")),
				post("/trace", "tampered", refusedWith("tampered", invalid)...),
			}},
		{name: "sig-serve-require", rules: []string{"KCP-sig-require"},
			args:        []string{"--require-signature"},
			description: "serve takes --require-signature (an option serve does not know is refused, exit 2) and the README gives it one meaning, fail unless every manifest verifies: POST /plan and kcp_plan over /mcp refuse an unsigned and an unverifiable manifest, naming the verdict, and plan a verified one",
			steps: []map[string]any{
				post("/plan", "signed", planned(verifiedBy("declared key"))...),
				post("/plan", "unsigned", refusedWith("unsigned", "signature required but unsigned: manifest declares no signature")...),
				post("/plan", "unverifiable", m("/status", 500),
					m("/json/error", map[string]any{"$contains": "<dir>/unverifiable/knowledge.yaml: signature required but unverifiable: cannot load public key: ENOENT"})),
				{"call": "kcp_plan", "arguments": body("unsigned"), "expect": []map[string]any{m("/refused", true),
					m("/text", "<dir>/unsigned/knowledge.yaml: signature required but unsigned: manifest declares no signature")}},
			}},
		{name: "sig-serve-trust-key", rules: []string{"KCP-sig-trust-key"},
			args:        []string{"--trust-key", rawB64(publisherKey)},
			description: "serve --trust-key with the publisher's raw key pins it for every request: a manifest the publisher signed is verified (pinned key); one signed by another key that endorses itself in its envelope and signing block is invalid and refused, 500",
			steps: []map[string]any{
				post("/plan", "signed", planned(verifiedBy("pinned key"))...),
				post("/plan", "stranger", refusedWith("stranger", invalid)...),
			}},
		{name: "sig-serve-no-verify", rules: []string{"KCP-sig-no-verify"},
			args:        []string{"--no-verify"},
			description: "serve --no-verify skips verification for every request: a manifest edited after signing is planned, and the plan tree carries no signature verdict, neither at its root nor in its plan (as plan --follow --no-verify prints it)",
			steps: []map[string]any{
				post("/plan", "tampered", m("/status", 200), m("/json/signature", map[string]any{"$absent": true}),
					m("/json/plan/signature", map[string]any{"$absent": true}), m("/json/plan/selected/0/id", "deploy-guide")),
			}},
	}
}

func TestSignatureServeVectorsAreGenerated(t *testing.T) {
	root := filepath.Join("..", "..", "vectors", "kcp")
	regen := os.Getenv("SIFU_REGEN_SIG_VECTORS") == "1"
	for _, c := range sigServeCases() {
		raw, rel := c.vector()
		file := filepath.Join(root, rel)
		if same, err := CurrentFile(t, file, raw, regen); !same {
			t.Errorf("%s is not what the fixed seeds give (%v); SIFU_REGEN_SIG_VECTORS=1 go test ./suite/kcp -run TestSignatureServeVectorsAreGenerated writes it", file, err)
		}
	}
}
