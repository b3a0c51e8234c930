package declaration

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/sifu-dev/sifu/internal/inputfile"
)

// The signed form of a statement: an in-toto attestation, that is a DSSE
// envelope over an in-toto Statement whose subjects are the statement's
// files (by SHA-256) and whose predicate is conformance.json.
const (
	// AttestationFile is where Sign writes the envelope, beside the statement.
	AttestationFile = "conformance.intoto.json"
	// PredicateType names sifu's conformance statement as a predicate.
	PredicateType = "https://sifu.dev/conformance/v1"
	// PayloadType is the DSSE payload type of an in-toto Statement.
	PayloadType = "application/vnd.in-toto+json"
)

// attested are the files of a statement directory an attestation covers,
// when present.
var attested = []string{"conformance.json", "conformance.md", "results.json", "transcript.jsonl", "junit.xml", "cucumber.json", "sifu.expect.yaml"}

// GenerateKey makes an ed25519 key pair as PEM: the private key as PKCS #8,
// the public key as PKIX, the forms openssl and securesystemslib read.
func GenerateKey() (private, public []byte, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	p8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, err
	}
	pkix, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}), nil
}

// signerVerifier loads an ed25519 key (private or public) in PEM.
func signerVerifier(keyPEM []byte) (*signerverifier.ED25519SignerVerifier, error) {
	key, err := signerverifier.LoadKey(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("read the key: %w (give an ed25519 key in PEM, as `sifu keygen` or `openssl genpkey -algorithm ed25519` writes it)", err)
	}
	if key.KeyType != signerverifier.ED25519KeyType {
		return nil, fmt.Errorf("the key is %s; sifu signs with ed25519 keys", key.KeyType)
	}
	return signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
}

// Sign writes the attestation of the statement in dir, signed with the
// ed25519 private key in PEM. It returns the key's ID.
func Sign(ctx context.Context, dir string, privatePEM []byte) (string, error) {
	sv, err := signerVerifier(privatePEM)
	if err != nil {
		return "", err
	}
	raw, err := inputfile.Read(filepath.Join(dir, "conformance.json"))
	if err != nil {
		return "", err
	}
	predicate := &structpb.Struct{}
	if err := protojson.Unmarshal(inputfile.Text(raw), predicate); err != nil {
		return "", fmt.Errorf("conformance.json as a predicate: %w", err)
	}
	st := &intoto.Statement{Type: intoto.StatementTypeUri, PredicateType: PredicateType, Predicate: predicate}
	for _, name := range attested {
		b, err := inputfile.Read(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		st.Subject = append(st.Subject, &intoto.ResourceDescriptor{Name: name, Digest: map[string]string{"sha256": Sum(b)}})
	}
	if err := st.Validate(); err != nil {
		return "", fmt.Errorf("the in-toto statement: %w", err)
	}
	payload, err := protojson.Marshal(st)
	if err != nil {
		return "", err
	}
	signer, err := dsse.NewEnvelopeSigner(sv)
	if err != nil {
		return "", err
	}
	env, err := signer.SignPayload(ctx, PayloadType, payload)
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	out, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, AttestationFile), append(out, '\n'), 0o644); err != nil {
		return "", err
	}
	return sv.KeyID()
}

// attestation is what checkAttestation found beside a statement.
type attestation struct {
	// Signed is set when the statement carries an attestation.
	Signed bool
	// KeyIDs are the IDs of the keys its signatures name (unchecked
	// without a key: the envelope carries no key to check them with).
	KeyIDs []string
	// Problems are what does not hold.
	Problems []string
}

// checkAttestation checks the attestation beside a statement: an in-toto
// Statement of sifu's predicate, whose subjects are the files as they are
// now (every attested file present is a subject) and whose predicate is
// conformance.json, signed by the key publicPEM. Without a key
// (publicPEM nil) it checks all of that but the signature, which only the
// signer's public key can check: a DSSE envelope names its keys by ID and
// carries none. A statement without an attestation is unsigned and has
// no problem, unless a key was given. An attestation file sifu will not
// read (inputfile.Refused) is the error.
func checkAttestation(ctx context.Context, dir string, publicPEM []byte) (attestation, error) {
	path := filepath.Join(dir, AttestationFile)
	var a attestation
	fail := func(format string, args ...any) (attestation, error) {
		a.Problems = append(a.Problems, fmt.Sprintf("%s: ", AttestationFile)+fmt.Sprintf(format, args...))
		return a, nil
	}
	var sv *signerverifier.ED25519SignerVerifier
	if publicPEM != nil {
		var err error
		if sv, err = signerVerifier(publicPEM); err != nil {
			return fail("%v", err)
		}
	}
	raw, err := inputfile.Read(path)
	switch {
	case inputfile.Refused(err):
		return a, err
	case errors.Is(err, os.ErrNotExist) && sv == nil:
		return a, nil // unsigned, and no key asks for a signature
	case err != nil:
		return fail("%v (sign the statement with `sifu sign --key KEY`)", err)
	}
	a.Signed = true
	var env dsse.Envelope
	if err := json.Unmarshal(inputfile.Text(raw), &env); err != nil {
		return fail("not a DSSE envelope: %v", err)
	}
	for _, sig := range env.Signatures {
		a.KeyIDs = append(a.KeyIDs, sig.KeyID)
	}
	if len(env.Signatures) == 0 {
		return fail("the envelope holds no signature")
	}
	if sv != nil {
		verifier, err := dsse.NewEnvelopeVerifier(sv)
		if err != nil {
			return fail("%v", err)
		}
		if _, err := verifier.Verify(ctx, &env); err != nil {
			return fail("the signature does not verify with this public key: %v", err)
		}
	}
	if env.PayloadType != PayloadType {
		return fail("payload type %s, not %q", clip(env.PayloadType), PayloadType)
	}
	payload, err := env.DecodeB64Payload()
	if err != nil {
		return fail("payload: %v", err)
	}
	var st intoto.Statement
	if err := protojson.Unmarshal(payload, &st); err != nil {
		return fail("the payload is not an in-toto Statement: %v", err)
	}
	if err := st.Validate(); err != nil {
		return fail("the in-toto Statement: %v", err)
	}
	if st.PredicateType != PredicateType {
		return fail("predicate type %s, not %q", clip(st.PredicateType), PredicateType)
	}
	var problems []string
	subjects := map[string]string{}
	for _, s := range st.Subject {
		subjects[s.Name] = s.Digest["sha256"]
	}
	for _, name := range attested {
		b, err := inputfile.Read(filepath.Join(dir, name))
		want, signed := subjects[name]
		switch {
		case inputfile.Refused(err):
			return a, err
		case errors.Is(err, os.ErrNotExist) && signed:
			problems = append(problems, fmt.Sprintf("%s: subject %s was signed but is missing", AttestationFile, name))
		case err != nil && !errors.Is(err, os.ErrNotExist):
			problems = append(problems, fmt.Sprintf("%s: %v", AttestationFile, err))
		case err == nil && !signed:
			problems = append(problems, fmt.Sprintf("%s: %s is beside the statement but was not signed", AttestationFile, name))
		case err == nil && Sum(b) != want:
			problems = append(problems, fmt.Sprintf("%s: %s has sha256 %s, the signed statement says %s", AttestationFile, name, short(Sum(b)), short(want)))
		}
	}
	js, err := inputfile.Read(filepath.Join(dir, "conformance.json"))
	if err == nil {
		var onDisk, signed any
		pj, _ := protojson.Marshal(st.Predicate)
		if json.Unmarshal(inputfile.Text(js), &onDisk) != nil || json.Unmarshal(pj, &signed) != nil || !reflect.DeepEqual(onDisk, signed) {
			problems = append(problems, fmt.Sprintf("%s: the signed predicate is not conformance.json", AttestationFile))
		}
	}
	a.Problems = append(a.Problems, problems...)
	return a, nil
}

// KeyNeededError is a signed statement verified without a key: all but
// its signature holds, and the signature can only be checked with the
// signer's public key.
type KeyNeededError struct {
	Path   string
	KeyIDs []string
}

func (e *KeyNeededError) Error() string {
	ids := make([]string, len(e.KeyIDs))
	for i, id := range e.KeyIDs {
		ids[i] = short(id)
	}
	return fmt.Sprintf("%s is signed (%s, key ID %s), and a signature can only be checked with the signer's public key, which the statement does not carry: pass it with --key PUBLIC.pem (the NAME.pub.pem `sifu keygen` wrote); the rest of the statement holds",
		e.Path, AttestationFile, strings.Join(ids, ", "))
}

// CheckPublicKey reports whether publicPEM is an ed25519 key in PEM that
// verify can check a signature with.
func CheckPublicKey(publicPEM []byte) error {
	const want = "verify needs the ed25519 public key in PEM that `sifu keygen --out NAME` writes as NAME.pub.pem (or `openssl pkey -pubout` of an ed25519 key)"
	if block, _ := pem.Decode(publicPEM); block == nil {
		return errors.New("not a PEM public key (no PEM block in it); " + want)
	}
	if _, err := signerVerifier(publicPEM); err != nil {
		return fmt.Errorf("not a public key verify can use: %v; %s", err, want)
	}
	return nil
}

// ReadPublicKey reads the public key in file (verify --key) and checks
// it (CheckPublicKey).
func ReadPublicKey(file string) ([]byte, error) {
	key, err := inputfile.Read(file)
	if err != nil {
		return nil, fmt.Errorf("--key: %w", err)
	}
	if err := CheckPublicKey(key); err != nil {
		return nil, fmt.Errorf("--key %s: %w", file, err)
	}
	return key, nil
}

// WriteKeyPair makes an ed25519 key pair and writes it to prefix.pem
// (private, readable by its owner only) and prefix.pub.pem, making their
// folder; it never overwrites a key.
func WriteKeyPair(prefix string) (privPath, pubPath string, err error) {
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		return "", "", fmt.Errorf("--out %s: %w", prefix, err)
	}
	priv, pub, err := GenerateKey()
	if err != nil {
		return "", "", err
	}
	privPath, pubPath = prefix+".pem", prefix+".pub.pem"
	for _, p := range []string{privPath, pubPath} {
		if _, err := os.Stat(p); err == nil {
			return "", "", fmt.Errorf("%s exists; keygen never overwrites a key", p)
		}
	}
	if err := os.WriteFile(privPath, priv, 0o600); err != nil {
		return "", "", err
	}
	return privPath, pubPath, os.WriteFile(pubPath, pub, 0o644)
}

// SignFile signs the statement in dir with the private key in keyFile
// (Sign), once it has checked that dir holds a statement.
func SignFile(ctx context.Context, dir, keyFile string) (string, error) {
	key, err := inputfile.Read(keyFile)
	if err != nil {
		return "", fmt.Errorf("--key: %w", err)
	}
	if _, err := Read(filepath.Join(dir, "conformance.json")); err != nil {
		return "", err
	}
	return Sign(ctx, dir, key)
}
