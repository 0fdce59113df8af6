//go:build unix

package vecindex

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the test process has used. Benchmarks report
// it per operation next to wall time because the build machines are shared:
// wall time includes waiting for a core, CPU time does not.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
