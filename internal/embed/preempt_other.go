//go:build !linux

package embed

// runDelay reads how long a thread has waited for a CPU; not here.
type runDelay struct{}

// read returns -1: the system cannot tell.
func (r *runDelay) read() (ns int64, tid int) { return -1, 0 }

// threadRunDelay returns -1: the system cannot tell.
func threadRunDelay() (ns int64, tid int) { return -1, 0 }
