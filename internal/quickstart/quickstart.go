// Package quickstart spares every sifu process a subprocess at start-up.
//
// godog's internal builder package runs `go env GOTOOLDIR` while packages
// initialise, in any program that links godog (36–38 ms on the reference
// machine), for `godog build`, which sifu never calls; when `go` cannot be
// started, it falls back to go/build's tool directory. Go initialises, of
// all packages whose imports are initialised, the one whose import path
// sorts first. This package imports only os, so it is initialised before
// os/exec and go/build, and so before godog's builder: its init hides
// PATH, the builder's `go` is not found at once, and [Restore], called
// from the main package's init (which runs after every imported package),
// puts PATH back exactly as it was before main starts.
//
// The order is the language's (the Go spec, "Package initialization": of
// the packages whose imports are initialised, the one whose import path
// sorts first goes next): this package's path sorts before os/exec's, on
// which godog's builder waits, and after nothing it needs but os. Only
// cmd/sifu imports this package; cmd/sifu's TestStartUpRunsNoGo starts the
// built binary with a fake go first on PATH and fails when the binary runs
// it (and shows, with a program that links godog alone, that the fake go
// would see the call).
package quickstart

import "os"

var savedPath, hadPath = os.LookupEnv("PATH")

func init() {
	if hadPath {
		os.Unsetenv("PATH")
	}
}

// Restore puts PATH back as the process received it. Call it from the main
// package's init.
func Restore() {
	if hadPath {
		os.Setenv("PATH", savedPath)
	}
}
