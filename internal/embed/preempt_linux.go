package embed

import "golang.org/x/sys/unix"

// threadCPU is the CPU time the calling thread has run, in nanoseconds, or
// -1 when the system cannot tell.
func threadCPU() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return -1
	}
	return ts.Nano()
}

// gettid is the calling thread's id.
func gettid() int { return unix.Gettid() }
