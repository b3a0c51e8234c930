package kcp

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// CurrentFile is a generated file against what generates it: with regen
// it writes raw to file (its directory made) and reports it the same;
// otherwise it reports whether file holds exactly raw, or why it could not
// be read.
func CurrentFile(t *testing.T, file string, raw []byte, regen bool) (bool, error) {
	t.Helper()
	if regen {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		return true, nil
	}
	have, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	return bytes.Equal(have, raw), nil
}
