// Package offheap maps memory outside the Go heap for pointer-free arrays
// that live exactly as long as the object owning them (the vector index's
// blocks, the keyword index's lists).
//
// Pointer-free data on the heap costs more than its size in resident
// memory: the heap goal is the live heap times 1 + GOGC/100, and the runtime
// keeps some more beyond it, so at the server's GOGC 25 every byte of
// vectors or postings held about 1.4 bytes. A mapping costs its size.
//
// The rule that keeps it safe is the owner's: the bytes are unmapped by a
// cleanup once the owner is unreachable, so the owner must never hand them
// out beyond its own lifetime (read and write them only through the owner,
// e.g. under its lock, and use the owner after).
package offheap

import (
	"runtime"
	"sync/atomic"
)

// Counter counts the bytes of mappings made with it and not yet released.
type Counter struct{ n atomic.Int64 }

// Load returns the bytes mapped and not yet released.
func (c *Counter) Load() int64 { return c.n.Load() }

// Available reports whether this system maps memory outside the heap.
func Available() bool {
	mem := mapAnon(1)
	if mem == nil {
		return false
	}
	unmapAnon(mem)
	return true
}

type mapping struct {
	mem []byte
	c   *Counter
}

func release(m mapping) {
	unmapAnon(m.mem)
	if m.c != nil {
		m.c.n.Add(-int64(len(m.mem)))
	}
}

// Alloc maps size zeroed bytes outside the heap that are released once
// owner is unreachable, counted in c (nil: not counted). It returns nil
// where the system cannot map memory; the caller then allocates on the
// heap.
func Alloc[T any](owner *T, size int, c *Counter) []byte {
	mem := mapAnon(size)
	if mem == nil {
		return nil
	}
	if c != nil {
		c.n.Add(int64(len(mem)))
	}
	runtime.AddCleanup(owner, release, mapping{mem, c})
	return mem
}
