// Package proc starts the commands sifu drives (implementations, planners,
// gateways) so that they can be ended whole: on Unix in a process group of
// their own, killed together; on Windows the process itself.
package proc
