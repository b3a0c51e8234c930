// Package proc starts the commands sifu drives (implementations, planners,
// gateways) so that they can be ended whole: on Unix in a process group of
// their own, killed together; on Windows the process itself.
package proc

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Ended says how a process ended, from what cmd.Wait (or cmd.Run)
// returned, as the end of a sentence whose subject is the process:
// "exited with status 0", "exited with status 3", "was killed by a signal
// (segmentation fault)". Any other error (the process could not be waited
// for) is said as it is.
func Ended(err error) string {
	var exit *exec.ExitError
	switch {
	case err == nil:
		return "exited with status 0"
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return fmt.Sprintf("exited with status %d", exit.ExitCode())
	case errors.As(err, &exit):
		return fmt.Sprintf("was killed by a signal (%s)", strings.TrimPrefix(exit.String(), "signal: "))
	}
	return fmt.Sprintf("ended, and waiting for it failed: %v", err)
}
