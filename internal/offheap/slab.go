package offheap

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// hugePage is the size of a transparent huge page (x86-64, arm64 with 4 KiB
// pages).
const hugePage = 2 << 20

// A Slab is one mapping shared by several owners: Take carves zeroed parts
// of it, each tied to its owner's lifetime, and the mapping is released
// once the slab's creator has called Done and every part's owner is
// unreachable (a part whose owner goes first stays mapped until then). Its
// parts start at a 2 MiB boundary, and on Linux the slab asks for
// transparent huge pages: reads scattered over tens of megabytes (a vector
// rerank reads a few thousand rows of 512 bytes, each on its own 4 KiB
// page) then rarely miss the TLB.
type Slab struct {
	m        mapping
	off, end int // the next part's offset; the end of the room asked for
	refs     atomic.Int64
}

// NewSlab maps a slab with room for size bytes of parts, counted in c (nil:
// not counted), or returns nil where the system cannot map memory (Take on
// a nil slab returns nil; Done does nothing).
func NewSlab(size int, c *Counter) *Slab {
	mem := mapAnon(size + hugePage)
	if mem == nil {
		return nil
	}
	if c != nil {
		c.n.Add(int64(len(mem)))
	}
	s := &Slab{m: mapping{mem, c}}
	s.off = int((hugePage - uintptr(unsafe.Pointer(unsafe.SliceData(mem)))%hugePage) % hugePage)
	s.end = s.off + size
	adviseHuge(mem[s.off:])
	s.refs.Store(1)
	return s
}

// Take returns size zeroed bytes of s, 64-byte aligned, released with
// owner, or nil when s is nil or has not that much room left. Only the
// slab's creator calls it, from one goroutine, before Done.
func Take[T any](s *Slab, owner *T, size int) []byte {
	if s == nil || size <= 0 || s.off+size > s.end {
		return nil
	}
	part := s.m.mem[s.off : s.off+size : s.off+size]
	s.off = min(s.end, (s.off+size+63)&^63)
	s.refs.Add(1)
	runtime.AddCleanup(owner, (*Slab).unref, s)
	return part
}

// Done is the creator's last use of s: the slab is released once every
// part taken is.
func (s *Slab) Done() {
	if s != nil {
		s.unref()
	}
}

func (s *Slab) unref() {
	if s.refs.Add(-1) == 0 {
		release(s.m)
	}
}
