package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadsARegularFileAndAFileThroughALink(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.json")
	if err := os.WriteFile(file, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(file, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, p := range []string{file, link} {
		raw, err := Read(p)
		if err != nil || string(raw) != `{"a":1}` {
			t.Errorf("Read(%s) = %q, %v", p, raw, err)
		}
	}
	if _, err := Read(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want one that is os.ErrNotExist", err)
	}
}

func TestADirectoryIsNotAnInput(t *testing.T) {
	dir := t.TempDir()
	_, err := Read(dir)
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), dir+" is a directory, not a regular file") {
		t.Errorf("Read(a directory) = %v", err)
	}
	_, err = ReadFS(fstest.MapFS{"d/x.json": {Data: []byte("{}")}}, "d")
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "d is a directory") {
		t.Errorf("ReadFS(a directory) = %v", err)
	}
}

// TestAFileOverTheLimitIsRefusedUnread: a sparse file a byte over the
// limit costs nothing on the disk and is refused by its size.
func TestAFileOverTheLimitIsRefusedUnread(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(Limit + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Read(p)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Read(over the limit) = %v", err)
	}
	for _, want := range []string{p, "256.0 MiB (268435457 bytes)", "up to 256.0 MiB (268435456 bytes)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if _, err := ReadFS(os.DirFS(filepath.Dir(p)), "huge.jsonl"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "huge.jsonl") {
		t.Errorf("ReadFS(over the limit) = %v", err)
	}
}

func TestTextDropsAByteOrderMark(t *testing.T) {
	if got := string(Text([]byte("\ufeff{}"))); got != "{}" {
		t.Errorf("Text = %q", got)
	}
	if got := string(Text([]byte("{}\ufeff"))); got != "{}\ufeff" {
		t.Errorf("Text changed what is not a leading mark: %q", got)
	}
}
