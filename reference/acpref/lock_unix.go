//go:build unix

package acpref

import (
	"os"
	"syscall"
)

// lockFolder takes an exclusive advisory lock on the folder itself, so no
// lock file ever appears among the protocol files. It returns the unlock.
func lockFolder(folder string) (func(), error) {
	d, err := os.Open(folder)
	if err != nil {
		return nil, refuse("cannot open %s: %v", folder, err)
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		d.Close()
		return nil, refuse("cannot lock %s: %v", folder, err)
	}
	return func() {
		_ = syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
		d.Close()
	}, nil
}
