//go:build !linux

package embed

// threadCPU is the CPU time the calling thread has run, or -1 when the
// system cannot tell (here).
func threadCPU() int64 { return -1 }

// gettid is the calling thread's id, or 0 (here).
func gettid() int { return 0 }
