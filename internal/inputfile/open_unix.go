//go:build unix

package inputfile

import (
	"os"
	"syscall"
)

// open opens path for reading without waiting: should a named pipe have
// taken the place of the file since it was checked, the open returns at
// once (and the check of the opened file refuses it) instead of blocking
// until a writer comes.
func open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
