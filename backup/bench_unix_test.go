//go:build unix

package backup

import "syscall"

// cpuSeconds is the user and system CPU time this process has used; the
// embedded engine runs in-process, so it is counted too.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
