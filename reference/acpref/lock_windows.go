//go:build windows

package acpref

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// lockFolder takes an exclusive lock on the folder, so no lock file ever
// appears among the protocol files: Windows cannot lock a directory, so
// the lock is a named mutex of the folder's absolute path, which every
// process of the session that locks the folder shares.
func lockFolder(folder string) (func(), error) {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return nil, refuse("cannot lock %s: %v", folder, err)
	}
	sum := sha256.Sum256([]byte(strings.ToLower(filepath.Clean(abs))))
	name, err := windows.UTF16PtrFromString(`Local\sifu-acp-` + hex.EncodeToString(sum[:16]))
	if err != nil {
		return nil, refuse("cannot lock %s: %v", folder, err)
	}
	h, err := windows.CreateMutex(nil, false, name)
	if err != nil && h == 0 {
		return nil, refuse("cannot lock %s: %v", folder, err)
	}
	if ev, err := windows.WaitForSingleObject(h, windows.INFINITE); err != nil || (ev != windows.WAIT_OBJECT_0 && ev != windows.WAIT_ABANDONED) {
		windows.CloseHandle(h)
		return nil, refuse("cannot lock %s: %v", folder, err)
	}
	return func() {
		_ = windows.ReleaseMutex(h)
		_ = windows.CloseHandle(h)
	}, nil
}
