//go:build windows

package proc

import "os/exec"

// Isolate does nothing on Windows, which has no process groups to kill.
func Isolate(cmd *exec.Cmd) {}

// Kill ends the process.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
