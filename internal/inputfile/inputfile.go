// Package inputfile reads the files sifu is given — statements, results,
// transcripts, expectations, vectors, features, configurations, keys — the
// one way: only a regular file (a symbolic link is followed, and what it
// points to must be a regular file), and at most Limit bytes. A named pipe,
// a device or a directory is refused before anything is read, and opening
// one never blocks, so a FIFO or /dev/zero given as an input is one error
// naming it rather than a process that hangs or fills its memory.
package inputfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Limit is the largest input file sifu reads: generous for real evidence
// (the committed transcripts are a few megabytes), small enough that a
// mistaken input cannot exhaust the memory.
const Limit int64 = 256 << 20

// ErrNotRegular and ErrTooLarge are what Read's errors wrap.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("too large")
)

// Refused reports whether err is Read's refusal of a file that is not a
// regular file or is over Limit: an input sifu will not read at all, which
// is the user's to fix (where a missing file may be what is being checked).
func Refused(err error) bool {
	return errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge)
}

// Read returns the contents of the regular file at path.
func Read(path string) ([]byte, error) {
	// Stat first: it follows a symbolic link and never blocks, where
	// opening a named pipe waits for a writer.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, st); err != nil {
		return nil, err
	}
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(path, f)
}

// ReadFS returns the contents of the regular file name in fsys (a
// directory given as os.DirFS, or the embedded assets).
func ReadFS(fsys fs.FS, name string) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := check(name, st); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(name, f)
}

// read checks the opened file again (it may have changed since the Stat)
// and reads it, never past Limit.
func read(name string, f fs.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := check(name, st); err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(io.LimitReader(f, Limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(raw)) > Limit {
		return nil, tooLarge(name, int64(len(raw)))
	}
	return raw, nil
}

func check(name string, st fs.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, %w: sifu reads its inputs from regular files only", name, kind(st.Mode()), ErrNotRegular)
	}
	if st.Size() > Limit {
		return tooLarge(name, st.Size())
	}
	return nil
}

func tooLarge(name string, size int64) error {
	return fmt.Errorf("%s is %s, %w: sifu reads input files of up to %s", name, bytesLabel(size), ErrTooLarge, bytesLabel(Limit))
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "of mode " + m.Type().String()
	}
}

// bytesLabel says a size in MiB when it is one or more, with the exact
// count of bytes.
func bytesLabel(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// bom is the UTF-8 byte order mark some editors write at the start of a
// text file.
var bom = []byte("\ufeff")

// Text is raw without a leading UTF-8 byte order mark: what a JSON or YAML
// decoder is given, so that a file an editor saved with one reads as the
// same document. Hashes of evidence are taken over raw, never over Text.
func Text(raw []byte) []byte { return bytes.TrimPrefix(raw, bom) }
