package kcpref

import (
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

// TestVerifySignature pins the verdicts kcp-agent 0.27.0 gives for signed
// manifests (each case was run through both command lines and printed the
// same signature block): statuses, details and key ids.
func TestVerifySignature(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	spki, _ := x509.MarshalPKIXPublicKey(pub)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki}))
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sign := func(text string) []byte { return ed25519.Sign(priv, []byte(text)) }
	b64 := base64.StdEncoding.EncodeToString
	write("key.pem", pemKey)
	const text = "project: p\nunits: []\n"
	source := filepath.Join(dir, "knowledge.yaml")
	write("good.sig", b64(sign(text)))
	envelope, _ := json.Marshal(map[string]string{"algorithm": "Ed25519", "public_key": b64(spki), "signature": b64(sign(text)), "key_id": "env-k"})
	write("env.json", string(envelope))
	write("bad.sig", hex.EncodeToString(sign(text+"x")))
	write("short.sig", "QUJD")
	tests := []struct {
		name    string
		text    string
		signing *Signing
		status  string
		detail  string
		keyID   string
	}{
		{"unsigned", text, nil, SignatureUnsigned, "manifest declares no signature", ""},
		{"inline raw key", text, &Signing{Scheme: "ed25519", PublicKey: b64(pub), Signature: "good.sig", KeyID: Str("k1")}, SignatureVerified, "ed25519 signature verified (declared key)", "k1"},
		{"PEM key file", text, &Signing{PublicKey: "key.pem", Signature: "good.sig"}, SignatureVerified, "ed25519 signature verified (declared key)", ""},
		{"envelope key", text, &Signing{Signature: "env.json"}, SignatureVerified, "ed25519 signature verified (envelope key)", "env-k"},
		{"declared key missing, envelope's used", text, &Signing{Signature: "env.json", PublicKey: "missing.pem"}, SignatureVerified, "ed25519 signature verified (declared key)", "env-k"},
		{"trailing newlines made one", text + "\n\n", &Signing{PublicKey: "key.pem", Signature: "good.sig"}, SignatureVerified, "ed25519 signature verified (declared key)", ""},
		{"other bytes", text, &Signing{PublicKey: "key.pem", Signature: "bad.sig"}, SignatureInvalid, "ed25519 signature does not match manifest bytes", ""},
		{"short signature", text, &Signing{PublicKey: "key.pem", Signature: "short.sig", KeyID: Str("k7")}, SignatureInvalid, "signature is not 64 ed25519 signature bytes", "k7"},
		{"no location", text, &Signing{Scheme: "ed25519", KeyID: Str("k4")}, SignatureUnverifiable, "manifest declares a signing block but no signature location — treating as unverified", "k4"},
		{"other scheme", text, &Signing{Scheme: "rsa", Signature: "x.sig"}, SignatureUnverifiable, "unsupported signing scheme 'rsa'", ""},
		{"missing signature file", text, &Signing{Signature: "nope.sig", KeyID: Str("k6")}, SignatureUnverifiable, "cannot load signature: ENOENT: no such file or directory, open '" + filepath.Join(dir, "nope.sig") + "'", ""},
		{"no key", text, &Signing{Signature: "good.sig"}, SignatureUnverifiable, "no public key available", ""},
		{"missing key file", text, &Signing{Signature: "good.sig", PublicKey: "!!!"}, SignatureUnverifiable, "cannot load public key: ENOENT: no such file or directory, open '" + filepath.Join(dir, "!!!") + "'", ""},
	}
	for _, tt := range tests {
		got := VerifySignature([]byte(tt.text), tt.signing, source, os.ReadFile)
		keyID := ""
		if got.KeyID != nil {
			keyID = *got.KeyID
		}
		if got.Status != tt.status || got.Detail != tt.detail || keyID != tt.keyID {
			t.Errorf("%s: got %s %q key %q, want %s %q key %q", tt.name, got.Status, got.Detail, keyID, tt.status, tt.detail, tt.keyID)
		}
	}
	if got := VerifySignature([]byte(text), &Signing{Signature: "https://example.com/k.sig"}, source, os.ReadFile); got.Status != SignatureUnverifiable || !strings.HasPrefix(got.Detail, "cannot load signature: ") {
		t.Errorf("a remote signature is not fetched: %+v", got)
	}
}
