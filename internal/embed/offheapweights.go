package embed

import (
	"unsafe"

	"github.com/infmem/infmem/internal/offheap"
)

// weightsU16 returns n zeroed uint16 values for m's weights, taken from
// slab when it has room (nil: none), else mapped outside the Go heap where
// the system allows (released once m is unreachable),
// else on the heap. The model's packed weights (~9 MB) are pointer-free
// and live as long as the model: on the heap they cost about 1.4 times
// their size in the server's resident memory (offheap's package doc,
// issue 24's RSS bound), mapped they cost their size. m must own the
// slice alone and never hand it out beyond its own lifetime.
func weightsU16(m *matrix, n int, slab *offheap.Slab) []uint16 {
	if n == 0 {
		return nil
	}
	if slab != nil {
		if mem := offheap.Take(slab, m, 2*n); mem != nil {
			return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(mem))), n)
		}
	}
	if mem := offheap.Alloc(m, 2*n, nil); mem != nil {
		return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(mem))), n)
	}
	return make([]uint16, n)
}
