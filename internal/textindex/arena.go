package textindex

import (
	"unsafe"

	"github.com/infmem/infmem/internal/offheap"
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
// Each list is a full slice expression of its own part of the arena, so
// an append beyond its capacity (Add giving a term a new posting)
// reallocates on the heap instead of writing into a neighbour's part, and a
// list that shrinks (swap-delete) only ever writes inside its own part. A
// term's postings get a quarter of their length as room to grow in the
// arena (forward lists never grow: Add replaces them): a common term's
// list, the largest, stays in its part until the collection has grown by
// about a quarter, instead of moving to the heap on the first new memory
// that holds it and leaving its part unused (300 stores at 100k moved
// 8 MB of postings to the heap without the room). The
// arena is released by a cleanup once the Index is unreachable: the index
// never hands out a list (every method reads and writes them under ix.mu
// and uses ix after, to unlock), so nothing can read the mapping after it
// is gone. Lists that later grow or are replaced leave their old part
// unused until then.
const arenaMin = 64 << 10 // bytes: smaller arenas stay on the heap

// mappedArenas counts the bytes of every index's arenas mapped outside the
// heap and not yet released.
var mappedArenas offheap.Counter

// allocWords returns n zeroed uint32s that live as long as ix.
func (ix *Index) allocWords(n int) []uint32 {
	if n*4 >= arenaMin {
		if mem := offheap.Alloc(ix, n*4, &mappedArenas); mem != nil {
			ix.mapped += int64(len(mem))
			return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(mem))), n)
		}
	}
	return make([]uint32, n)
}

// Pack moves every list into one arena, as Read does, for an index built
// by Add: the memory engine's load from the database, whose posting lists
// grew by appending (up to twice their length, each its own allocation on
// the heap: at 100k memories 23 MB of heap, against the 22 MB arena a
// start from the snapshot maps). Call it once, when the index is built; a
// later call copies the lists again and leaves the earlier arena mapped as
// long as the index, so it does nothing once an arena is mapped.
func (ix *Index) Pack() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.mapped > 0 {
		return
	}
	ix.packLocked()
}

// packLocked moves every forward list and posting list into one arena,
// each cut to its length. Empty lists are left as they are.
func (ix *Index) packLocked() {
	total := 0
	for _, f := range ix.fwd {
		total += len(f)
	}
	for i := range ix.terms {
		total += postingsRoom(len(ix.terms[i].postings))
	}
	if total == 0 {
		return
	}
	arena := ix.allocWords(total)
	at := 0
	move := func(s []uint32, room int) []uint32 {
		if len(s) == 0 {
			return s
		}
		d := arena[at : at+len(s) : at+room]
		copy(d, s)
		at += room
		return d
	}
	for id, f := range ix.fwd {
		ix.fwd[id] = move(f, len(f))
	}
	for i := range ix.terms {
		p := ix.terms[i].postings
		ix.terms[i].postings = move(p, postingsRoom(len(p)))
	}
}

// postingsRoom is the arena capacity of a term's n postings.
func postingsRoom(n int) int { return n + n/4 }
