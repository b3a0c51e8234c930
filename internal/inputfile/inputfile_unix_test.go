//go:build unix

package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestANamedPipeIsRefusedWithoutBlocking: no one writes to the pipe, so
// an open that waited would never return (and the test would hang).
func TestANamedPipeIsRefusedWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(fifo)
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), fifo+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("Read(a FIFO) = %v", err)
	}
	_, err = ReadFS(os.DirFS(dir), "x.json")
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "x.json is a named pipe") {
		t.Errorf("ReadFS(a FIFO) = %v", err)
	}
}

// TestALinkToADeviceIsRefused: /dev/zero never ends; read, it would fill
// the memory.
func TestALinkToADeviceIsRefused(t *testing.T) {
	link := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	_, err := Read(link)
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), link+" is a character device, not a regular file") {
		t.Errorf("Read(a link to /dev/zero) = %v", err)
	}
}
