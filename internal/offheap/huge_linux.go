package offheap

import "golang.org/x/sys/unix"

// adviseHuge asks for transparent huge pages in mem (a request: the
// kernel's setting decides).
func adviseHuge(mem []byte) { _ = unix.Madvise(mem, unix.MADV_HUGEPAGE) }
