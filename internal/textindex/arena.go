package textindex

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Arena memory for a read index's lists.
//
// An index read back (Read) holds every document's forward list and every
// term's postings in one array of uint32 instead of an allocation per list
// (2.6M postings and as many forward entries at 100k memories, in 240k
// lists): no size-class rounding, and, where the system can map anonymous
// memory (offheap_unix.go), outside the Go heap, where pointer-free data
// costs its size instead of about 1.4 times it in resident memory (the
// server's GC target is 25 %; see internal/vecindex's blockmem.go).
//
// Each list is a full slice expression of its own part of the arena
// (len == cap), so an append to it (Add giving a term a new posting)
// reallocates on the heap instead of writing into a neighbour's part, and a
// list that shrinks (swap-delete) only ever writes inside its own part. The
// arena is released by a cleanup once the Index is unreachable: the index
// never hands out a list (every method reads and writes them under ix.mu
// and uses ix after, to unlock), so nothing can read the mapping after it
// is gone. Lists that later grow or are replaced leave their old part
// unused until then.
const arenaMin = 64 << 10 // bytes: smaller arenas stay on the heap

// mappedArenas counts the bytes of every index's arenas mapped outside the
// heap and not yet released.
var mappedArenas atomic.Int64

func releaseArena(mem []byte) {
	unmapAnon(mem)
	mappedArenas.Add(-int64(len(mem)))
}

// allocWords returns n zeroed uint32s that live as long as ix.
func (ix *Index) allocWords(n int) []uint32 {
	if n*4 >= arenaMin {
		if mem := mapAnon(n * 4); mem != nil {
			mappedArenas.Add(int64(len(mem)))
			ix.mapped += int64(len(mem))
			runtime.AddCleanup(ix, releaseArena, mem)
			return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(mem))), n)
		}
	}
	return make([]uint32, n)
}

// packLocked moves every forward list and posting list into one arena,
// each cut to its length. Empty lists are left as they are.
func (ix *Index) packLocked() {
	total := 0
	for _, f := range ix.fwd {
		total += len(f)
	}
	for i := range ix.terms {
		total += len(ix.terms[i].postings)
	}
	if total == 0 {
		return
	}
	arena := ix.allocWords(total)
	at := 0
	move := func(s []uint32) []uint32 {
		if len(s) == 0 {
			return s
		}
		d := arena[at : at+len(s) : at+len(s)]
		copy(d, s)
		at += len(s)
		return d
	}
	for id, f := range ix.fwd {
		ix.fwd[id] = move(f)
	}
	for i := range ix.terms {
		ix.terms[i].postings = move(ix.terms[i].postings)
	}
}
