package embed

import (
	"bytes"
	"strconv"

	"golang.org/x/sys/unix"
)

// runDelay reads how long a thread has waited on a run queue for a CPU
// (/proc/thread-self/schedstat's second field, nanoseconds): time the
// kernel gave its core to another thread, unlike time blocked in a system
// call. The file is kept open for the thread that read it last.
type runDelay struct {
	tid, fd int
	buf     [96]byte
}

// read returns the calling thread's run-queue wait and id, or -1 when the
// system cannot tell.
func (r *runDelay) read() (ns int64, tid int) {
	tid = unix.Gettid()
	if r.fd <= 0 || r.tid != tid {
		if r.fd > 0 {
			unix.Close(r.fd)
			r.fd = 0
		}
		fd, err := unix.Open("/proc/thread-self/schedstat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, tid
		}
		r.fd, r.tid = fd, tid
	}
	n, err := unix.Pread(r.fd, r.buf[:], 0)
	if err != nil || n <= 0 {
		return -1, tid
	}
	f := bytes.Fields(r.buf[:n])
	if len(f) < 2 {
		return -1, tid
	}
	v, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return -1, tid
	}
	return v, tid
}

// threadRunDelay is the calling thread's run-queue wait and id (runDelay
// with a file opened for the one read), or -1 when the system cannot tell.
func threadRunDelay() (ns int64, tid int) {
	var r runDelay
	ns, tid = r.read()
	if r.fd > 0 {
		unix.Close(r.fd)
	}
	return ns, tid
}
