package vecindex

import (
	"unsafe"

	"github.com/infmem/infmem/internal/offheap"
)

// Block memory outside the Go heap.
//
// A block's codes and refinement bits (576 KiB at dimension 512, 56 MB at
// 100k vectors) hold no pointers and live as long as the block, so the
// garbage collector has nothing to do with them but count them: the heap
// goal is the live heap times 1 + GOGC/100, and the runtime keeps about a
// tenth more than the goal, so every byte of vectors on the heap cost about
// 1.4 bytes of resident memory in the server (GOGC 25). Where the system can
// map anonymous memory (offheap_unix.go), a block of at least offHeapMin
// bytes is mapped for itself instead and unmapped by a cleanup once the
// block is unreachable: the index never hands out its codes or bits (Get
// copies, searches and WriteTo read them under the read lock, and a block
// leaves the index only under the write lock), so nothing can read a
// mapping after it is gone. Elsewhere, and for small blocks, they are
// ordinary slices.
const offHeapMin = 64 << 10

// mapped counts the bytes of every index's blocks mapped outside the heap
// and not yet released.
var mapped offheap.Counter

// arraysSize is the bytes of a block's arrays in one allocation
// (allocArrays).
func arraysSize(n, words, coarse int) int { return (n+7)&^7 + 8*words + coarse }

// allocArrays gives blk zeroed codes of n bytes, bits of words uint64s and
// coarse codes of coarse bytes (none when 0), one allocation outside the
// heap when it is large enough: a part of slab when it has room (the
// blocks of an index read back, blocksSlab), else a mapping of its own.
func allocArrays(slab *offheap.Slab, blk *block, n, words, coarse int) {
	at := (n + 7) &^ 7
	size := arraysSize(n, words, coarse)
	if size >= offHeapMin {
		mem := offheap.Take(slab, blk, size)
		if mem == nil {
			mem = offheap.Alloc(blk, size, &mapped)
		}
		if mem != nil {
			blk.codes = unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(mem))), n)
			blk.signs = []uint64{}
			if words > 0 {
				blk.signs = unsafe.Slice((*uint64)(unsafe.Pointer(&mem[at])), words)
			}
			if coarse > 0 {
				blk.coarse = mem[at+8*words : size : size]
			}
			return
		}
	}
	blk.codes = make([]int8, n)
	blk.signs = make([]uint64, words)
	if coarse > 0 {
		blk.coarse = make([]byte, coarse)
	}
}

// blocksSlab maps one slab for count blocks of this index (nil when they
// would be small or the system cannot map memory): an index read back
// takes its blocks' arrays from it, contiguous and in huge pages where the
// system gives them, which makes the coarse pass's stream and above all the
// rerank's scattered rows cheaper (offheap.Slab; BenchmarkRerankPages).
func (ix *Index) blocksSlab(count int) *offheap.Slab {
	size := arraysSize(blockSize*ix.dim, blockSize*ix.signWords, ix.coarseBytes())
	if size < offHeapMin || count*size < 4<<20 {
		return nil
	}
	return offheap.NewSlab(count*((size+63)&^63), &mapped)
}
