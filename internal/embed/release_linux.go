//go:build linux

package embed

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// releasePages tells the kernel the process no longer needs the pages
// wholly inside b, a read-only part of the binary (the embedded weights):
// they leave the process's resident set, and a later read of one faults
// it back in from the file, with the same bytes (the mapping is private
// and was never written). The model reads its weights once, to build its
// panels, and then only the fp16 embedding rows of the tokens it meets:
// without this the whole 14 MB blob stayed resident for the process's
// life. Errors are ignored: the pages then simply stay.
func releasePages(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	end := start + uintptr(len(b))
	lo, hi := (start+page-1)&^(page-1), end&^(page-1)
	if hi <= lo {
		return
	}
	_ = unix.Madvise(b[lo-start:hi-start], unix.MADV_DONTNEED)
}
