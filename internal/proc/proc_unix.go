//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// Isolate makes cmd, once started, the leader of a process group of its
// own, so that whatever it starts (a shell's children) is ended with it and
// no orphan keeps its pipes open.
func Isolate(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Kill ends cmd's process group without warning (SIGKILL).
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
