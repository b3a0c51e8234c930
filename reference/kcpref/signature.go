package kcpref

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// SignatureResult is the verdict on a manifest's signature, as the plan
// JSON shows it.
type SignatureResult struct {
	// Status is "verified", "invalid", "unverifiable" or "unsigned".
	Status string
	Detail string
	KeyID  *string
}

// Signature statuses.
const (
	SignatureVerified     = "verified"
	SignatureInvalid      = "invalid"
	SignatureUnverifiable = "unverifiable"
	SignatureUnsigned     = "unsigned"
)

// ReadFunc reads a signature or key file named by a manifest; callers
// usually pass os.ReadFile.
type ReadFunc func(path string) ([]byte, error)

// VerifySignature checks a manifest's ed25519 signature the way kcp-agent
// does, for material that is inline or in local files (read is given the
// location resolved against source): no signing block is unsigned; a
// block with no signature, another scheme, or material that cannot be
// read or imported is unverifiable; signature bytes that are not 64 long,
// or do not match the manifest text (as is, or with its trailing newlines
// made one), are invalid. The key is the block's public_key, else the one
// in a JSON signature envelope (also the fallback when the declared key
// cannot be read). Locations over http(s) are not fetched: unverifiable.
func VerifySignature(text []byte, s *Signing, source string, read ReadFunc) SignatureResult {
	return VerifySignatureWith(text, s, source, VerifyOptions{Read: read})
}

// VerifyOptions are how a signature is checked: Read reads a local
// signature or key file; TrustedKey (--trust-key: material, or a path
// taken from the working directory) is the only key tried when set, with
// no fallback to the envelope's; Faults are the planted faults.
type VerifyOptions struct {
	Read       ReadFunc
	TrustedKey string
	Faults     []Fault
}

// VerifySignatureWith is VerifySignature with a pinned key (see
// VerifyOptions).
func VerifySignatureWith(text []byte, s *Signing, source string, o VerifyOptions) SignatureResult {
	read := o.Read
	if hasFault(o.Faults, FaultTrustKeyIgnored) {
		o.TrustedKey = ""
	}
	if s == nil {
		return SignatureResult{Status: SignatureUnsigned, Detail: "manifest declares no signature"}
	}
	keyID := s.KeyID
	if s.Signature == "" {
		return SignatureResult{Status: SignatureUnverifiable, Detail: "manifest declares a signing block but no signature location — treating as unverified", KeyID: keyID}
	}
	if s.Scheme != "" && !isEd25519Name(s.Scheme) {
		return SignatureResult{Status: SignatureUnverifiable, Detail: "unsupported signing scheme '" + s.Scheme + "'", KeyID: keyID}
	}
	load := func(loc, base string) (string, error) {
		if looksInline(loc) {
			return loc, nil
		}
		return readText(resolveLocation(base, loc), read)
	}
	raw, err := load(s.Signature, source)
	if err != nil {
		return SignatureResult{Status: SignatureUnverifiable, Detail: "cannot load signature: " + err.Error()}
	}
	material, embedded := raw, (*string)(nil)
	var envelope any
	if json.Unmarshal([]byte(raw), &envelope) == nil && envelope != nil {
		// A JSON signature file: an object names the signature, and
		// maybe a key, a key id and an algorithm; any other JSON value
		// has none of them.
		obj, _ := envelope.(map[string]any)
		material = ""
		if v, ok := obj["signature"]; ok && v != nil {
			material = jsonValueString(v)
		}
		if v, ok := obj["public_key"]; ok && !hasFault(o.Faults, FaultEnvelopeKeyIgnored) {
			k := jsonValueString(v)
			embedded = &k
		}
		if v, ok := obj["key_id"]; ok {
			k := jsonValueString(v)
			keyID = &k
		}
		if v, ok := obj["algorithm"]; ok {
			if alg := jsonValueString(v); alg != "" && !isEd25519Name(alg) {
				return SignatureResult{Status: SignatureUnverifiable, Detail: "unsupported signature algorithm '" + alg + "'", KeyID: keyID}
			}
		}
	}
	sig, ok := decodeKeyBytes(material)
	if hasFault(o.Faults, FaultHexSignatureUnread) && ok && onlyIn(jsTrim(material), "0123456789abcdefABCDEF") {
		sig, ok = lenientBase64(stripSpace(jsTrim(material))), true // hex read as base64
	}
	if !ok || len(sig) != ed25519.SignatureSize {
		return SignatureResult{Status: SignatureInvalid, Detail: "signature is not 64 ed25519 signature bytes", KeyID: keyID}
	}
	var keyMaterial, via string
	switch {
	case o.TrustedKey != "":
		via = "pinned key"
		km, err := load(o.TrustedKey, "")
		if err != nil {
			return SignatureResult{Status: SignatureUnverifiable, Detail: "cannot load public key: " + err.Error(), KeyID: keyID}
		}
		keyMaterial = km
	case s.PublicKey != "":
		via = "declared key"
		km, err := load(s.PublicKey, source)
		switch {
		case err == nil:
			keyMaterial = km
		case embedded != nil && *embedded != "":
			keyMaterial = *embedded // the declared key is unreachable: the envelope's
		default:
			return SignatureResult{Status: SignatureUnverifiable, Detail: "cannot load public key: " + err.Error(), KeyID: keyID}
		}
	case embedded != nil && *embedded != "":
		keyMaterial, via = *embedded, "envelope key"
	default:
		return SignatureResult{Status: SignatureUnverifiable, Detail: "no public key available", KeyID: keyID}
	}
	key, err := importEd25519Key(keyMaterial)
	if err != nil {
		return SignatureResult{Status: SignatureUnverifiable, Detail: "cannot import public key: " + err.Error(), KeyID: keyID}
	}
	manifest := toValidText(text)
	candidates := []string{manifest, strings.TrimRight(manifest, "\n") + "\n"}
	if hasFault(o.Faults, FaultNewlineStrict) {
		candidates = candidates[:1]
	}
	for _, candidate := range candidates {
		if ed25519.Verify(key, []byte(candidate), sig) {
			return SignatureResult{Status: SignatureVerified, Detail: "ed25519 signature verified (" + via + ")", KeyID: keyID}
		}
	}
	return SignatureResult{Status: SignatureInvalid, Detail: "ed25519 signature does not match manifest bytes", KeyID: keyID}
}

func isEd25519Name(s string) bool {
	return strings.EqualFold(s, "ed25519") || strings.EqualFold(s, "eddsa")
}

// resolveLocation resolves a signature or key location against the
// manifest's source: a URL stays, a relative path is taken from the
// manifest's directory.
func resolveLocation(base, loc string) string {
	if IsRemote(loc) {
		return loc
	}
	if IsRemote(base) {
		if b, err := url.Parse(base); err == nil {
			if r, err := b.Parse(loc); err == nil {
				return r.String()
			}
		}
		return loc
	}
	if filepath.IsAbs(loc) || base == "" {
		return loc
	}
	return filepath.Join(filepath.Dir(base), loc)
}

// ResolveLocation resolves a location a manifest names (a federation
// ref, a signature, a key) against the manifest's source: a URL stays, a
// relative reference under a URL is resolved as a link is, a relative path
// is taken from the manifest's directory.
func ResolveLocation(base, loc string) string { return resolveLocation(base, loc) }

// readText reads a location as UTF-8 text, failing with Node's messages
// for the common errors of a local file.
func readText(loc string, read ReadFunc) (string, error) {
	b, err := read(loc)
	switch {
	case err == nil:
		return toValidText(b), nil
	case IsRemote(loc):
		return "", err // the guard's or the server's reason
	case errors.Is(err, fs.ErrNotExist):
		return "", errors.New("ENOENT: no such file or directory, open '" + loc + "'")
	case errors.Is(err, fs.ErrPermission):
		return "", errors.New("EACCES: permission denied, open '" + loc + "'")
	case strings.Contains(err.Error(), "is a directory"):
		return "", errors.New("EISDIR: illegal operation on a directory, read")
	}
	return "", err
}

// toValidText decodes bytes as UTF-8 the way Node does, each invalid byte
// becoming U+FFFD.
func toValidText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var out strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		out.WriteRune(r) // RuneError for an invalid byte
		b = b[size:]
	}
	return out.String()
}

var pemBlock = lazyRegexp(`-----BEGIN [^-]+-----([\s\S]*?)-----END [^-]+-----`)

// decodeKeyBytes decodes key or signature material: a PEM block, hex (at
// least 64 digits), or base64 (read leniently, as Node's Buffer does).
func decodeKeyBytes(material string) ([]byte, bool) {
	s := jsTrim(material)
	if m := pemBlock().FindStringSubmatch(s); m != nil {
		return lenientBase64(stripSpace(m[1])), true
	}
	bare := stripSpace(s)
	if s != "" && onlyIn(s, "0123456789abcdefABCDEF") && len(bare)%2 == 0 && len(bare) >= 64 {
		b, _ := hex.DecodeString(bare)
		return b, true
	}
	if s != "" && onlyIn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") {
		return lenientBase64(bare), true
	}
	return nil, false
}

// onlyIn reports whether every character of s is in set or is white space.
func onlyIn(s, set string) bool {
	for _, r := range s {
		if !strings.ContainsRune(set, r) && !isJSWhitespace(r) {
			return false
		}
	}
	return true
}

func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if isJSWhitespace(r) {
			return -1
		}
		return r
	}, s)
}

// lenientBase64 decodes up to the first '=', dropping a last incomplete
// character, as Node's Buffer.from(s, "base64") does.
func lenientBase64(s string) []byte {
	if i := strings.IndexByte(s, '='); i >= 0 {
		s = s[:i]
	}
	if len(s)%4 == 1 {
		s = s[:len(s)-1]
	}
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

// looksInline reports material written into the manifest itself rather
// than a location: a PEM block, or 32, 44 or 64 bytes of key or
// signature.
func looksInline(v string) bool {
	if hasHTTPScheme(v) {
		return false
	}
	if strings.Contains(v, "-----BEGIN") {
		return true
	}
	b, ok := decodeKeyBytes(v)
	return ok && slices.Contains([]int{32, 44, 64}, len(b))
}

// importEd25519Key reads a raw 32-byte key or a DER SPKI.
func importEd25519Key(material string) (ed25519.PublicKey, error) {
	b, ok := decodeKeyBytes(material)
	if !ok {
		return nil, errors.New("unrecognized public key encoding")
	}
	if len(b) == ed25519.PublicKeySize {
		return ed25519.PublicKey(b), nil
	}
	if k, err := x509.ParsePKIXPublicKey(b); err == nil {
		if ek, ok := k.(ed25519.PublicKey); ok {
			return ek, nil
		}
	}
	return nil, errors.New("Invalid keyData")
}

// jsonValueString is String() of a value JSON.parse returned.
func jsonValueString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return formatJSNumber(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if e != nil {
				parts[i] = jsonValueString(e)
			}
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

// SignaturePolicy is what a plan asks of a manifest's signature: the
// --no-verify, --require-signature and --trust-key flags.
type SignaturePolicy struct {
	NoVerify, Require bool
	TrustedKey        string
	Faults            []Fault
}

// CheckSignature verifies a manifest before it is planned, as kcp-agent
// does for every manifest it plans: with NoVerify nothing is checked (no
// verdict); an invalid signature always refuses the manifest, and with
// Require so does any verdict but verified. refusal is the reason,
// "signature invalid: …" or "signature required but <status>: …", and ""
// when the manifest may be planned.
func CheckSignature(text []byte, m Manifest, p SignaturePolicy, read ReadFunc) (sig *SignatureResult, refusal string) {
	if p.NoVerify && !hasFault(p.Faults, FaultNoVerifyIgnored) {
		return nil, ""
	}
	v := VerifySignatureWith(text, m.Signing, m.Source, VerifyOptions{Read: read, TrustedKey: p.TrustedKey, Faults: p.Faults})
	switch {
	case v.Status == SignatureInvalid && !hasFault(p.Faults, FaultTamperAccepted):
		return &v, "signature invalid: " + v.Detail
	case v.Status == SignatureUnverifiable && hasFault(p.Faults, FaultUnverifiableRefused):
		return &v, "signature invalid: " + v.Detail
	case p.Require && v.Status != SignatureVerified && !(v.Status == SignatureUnsigned && hasFault(p.Faults, FaultUnsignedSatisfiesRequire)):
		return &v, "signature required but " + v.Status + ": " + v.Detail
	}
	return &v, ""
}
