package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/internal/inputfile"
)

// sifuExit runs sifu in process and returns its exit code and everything it
// printed, the message of its error included.
func sifuExit(t *testing.T, args ...string) (int, string) {
	t.Helper()
	out, err := sifuCLI(t, args...)
	code, msg := exitOf(err)
	return code, out + msg
}

// TestAnInputOverTheLimitIsRefusedUnread: a results file over
// inputfile.Limit (sparse: it costs nothing on the disk) is exit 2 with a
// message naming it, its size and the limit, before a byte is read.
func TestAnInputOverTheLimitIsRefusedUnread(t *testing.T) {
	t.Parallel()
	huge := filepath.Join(t.TempDir(), "results.json")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(inputfile.Limit + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, out := sifuExit(t, "diff", huge, huge)
	if code != exitUsage {
		t.Errorf("sifu diff of a file over the limit: exit %d, want %d\n%s", code, exitUsage, out)
	}
	for _, want := range []string{huge + " is 256.0 MiB (268435457 bytes)", "up to 256.0 MiB (268435456 bytes)"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q does not say %q", out, want)
		}
	}
}

// TestJSONInputsReadWithAByteOrderMark: a vector file and results files
// saved by an editor that starts UTF-8 with a byte order mark read as
// without it (the features already did), rather than as "invalid
// character 'ï'".
func TestJSONInputsReadWithAByteOrderMark(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bom := func(src, dst string) {
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, append([]byte("\ufeff"), raw...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vectors := filepath.Join(dir, "vectors")
	if err := os.Mkdir(vectors, 0o755); err != nil {
		t.Fatal(err)
	}
	bom("../../vectors/kungfu/limits.json", filepath.Join(vectors, "limits.json"))
	code, out := sifuExit(t, "run", "--suite", "kungfu", "--vectors", vectors, "--list")
	if code != exitOK || !strings.Contains(out, "kungfu/limits/") {
		t.Errorf("--vectors with a byte order mark: exit %d\n%s", code, out)
	}
	results := filepath.Join(dir, "results.json")
	bom("../../conformance/kungfu/results.json", results)
	if code, out := sifuExit(t, "diff", results, results); code != exitOK {
		t.Errorf("sifu diff of results with a byte order mark: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "'ï'") {
		t.Errorf("a byte order mark was read as a character: %s", out)
	}
}

// TestVerifyKeyIsAPEMPublicKey: --key naming a file that is no PEM key is
// a usage error (exit 2) naming the file and what it must be; it was a
// failed verification (exit 1).
func TestVerifyKeyIsAPEMPublicKey(t *testing.T) {
	t.Parallel()
	key := filepath.Join(t.TempDir(), "key.txt")
	if err := os.WriteFile(key, []byte("not a key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := sifuExit(t, "verify", "--key", key, "../../conformance/kungfu/conformance.json")
	for _, want := range []string{"--key " + key, "not a PEM public key", "sifu keygen"} {
		if code != exitUsage || !strings.Contains(out, want) {
			t.Errorf("verify --key with a text file: exit %d, want %d saying %q\n%s", code, exitUsage, want, out)
		}
	}
}

// TestVerifyWithoutTheKeyOfASignedStatementIsNotOK: without --key, a
// signed statement is not OK: verify asks for the key (exit 2), and a
// signed file changed is a failure (exit 1); with the key it holds.
func TestVerifyWithoutTheKeyOfASignedStatementIsNotOK(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	statement := filepath.Join(dir, "s")
	keys := filepath.Join(dir, "k")
	for _, args := range [][]string{
		{"run", "-q", "--suite", "kungfu", "--profile", "memory", "--declare", statement},
		{"keygen", "--out", keys},
		{"sign", "--key", keys + ".pem", statement},
		{"verify", "--key", keys + ".pub.pem", filepath.Join(statement, "conformance.json")},
	} {
		if code, out := sifuExit(t, args...); code != exitOK {
			t.Fatalf("sifu %v: exit %d\n%s", args, code, out)
		}
	}
	code, out := sifuExit(t, "verify", filepath.Join(statement, "conformance.json"))
	if code != exitUsage || strings.Contains(out, "OK ") || !strings.Contains(out, "is signed") || !strings.Contains(out, "--key") {
		t.Errorf("verify of a signed statement without --key: exit %d, want %d asking for --key\n%s", code, exitUsage, out)
	}
	junit := filepath.Join(statement, "junit.xml")
	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(junit, append(raw, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out = sifuExit(t, "verify", filepath.Join(statement, "conformance.json"))
	if code != exitFail || !strings.Contains(out, "junit.xml has sha256") {
		t.Errorf("verify of a changed signed statement without --key: exit %d, want %d naming junit.xml\n%s", code, exitFail, out)
	}
}
