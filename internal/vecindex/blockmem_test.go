package vecindex

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/infmem/infmem/internal/offheap"
)

// TestBlocksOutsideHeap checks that a large index's codes are mapped outside
// the Go heap (where the system allows it), that searches, Get and a
// persisted copy read them as before, and that a block's mapping is
// released once the block has left the index.
func TestBlocksOutsideHeap(t *testing.T) {
	if !offheap.Available() {
		t.Skip("no anonymous mappings on this system: blocks stay on the heap")
	}
	const dim = 512
	r := rand.New(rand.NewPCG(3, 4))
	vecs := make([][]float32, 2*blockSize+10) // three blocks
	for i := range vecs {
		vecs[i] = randUnit(r, dim)
	}
	// Indexes of earlier tests (or of this one's earlier run under
	// -count) may still be waiting for the collector's cleanup to unmap
	// their blocks; let that finish, or it lands inside this test's count.
	settleMapped()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	base := mapped.Load()
	ix := New(dim)
	for i := range vecs {
		mustPut(t, ix, uint32(i), vecs[i])
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	perBlock := int64(blockSize*dim + 8*blockSize*ix.signWords)
	if ix.coarseDots != nil {
		perBlock += int64(blockSize * coarseStride(dim))
	}
	if got := mapped.Load() - base; got < 3*perBlock {
		t.Fatalf("mapped %d bytes for 3 blocks, want at least %d", got, 3*perBlock)
	}
	// The heap holds the block headers (scales, bitmaps: 8 KiB each), not
	// their 576 KiB of codes and bits.
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > perBlock {
		t.Fatalf("heap grew by %d bytes for 3 blocks, want under %d (one block's codes)", grew, perBlock)
	}
	for i := range 20 {
		q := vecs[i*97%len(vecs)]
		want := sortedScores(ix, q, allIDs(len(vecs)), nil)[:10]
		if got := ix.Search(q, 10, nil); !slices.Equal(got, want) {
			t.Fatalf("query %d: search %v, full sort %v", i, got, want)
		}
	}
	if g, ok := ix.Get(uint32(blockSize + 5)); !ok || exactCosine(g, vecs[blockSize+5]) < 0.999 {
		t.Fatalf("Get of a mapped slot: ok %v", ok)
	}
	// Emptying the middle block drops it from the index; the collector
	// then runs its cleanup, which unmaps it.
	for i := blockSize; i < 2*blockSize; i++ {
		ix.Remove(uint32(i))
	}
	for range 100 {
		if mapped.Load()-base <= 2*perBlock+2*4096 {
			break
		}
		runtime.GC()
		runtime.Gosched()
	}
	if got := mapped.Load() - base; got > 2*perBlock+2*4096 {
		t.Fatalf("after emptying a block, %d bytes still mapped, want 2 blocks' (%d)", got, 2*perBlock)
	}
	q := vecs[3]
	ids := append(allIDs(blockSize), allIDs(2*blockSize + 10)[2*blockSize:]...)
	if got, want := ix.Search(q, 10, nil), sortedScores(ix, q, ids, nil)[:10]; !slices.Equal(got, want) {
		t.Fatalf("after the removal: search %v, full sort %v", got, want)
	}
	runtime.KeepAlive(ix)
}

// TestReadBlocksFromOneSlab checks that an index read back takes its
// blocks' arrays from one slab (each block's right after the previous
// one's), answers as the index it was written from, and that the slab is
// released once the read index is unreachable.
func TestReadBlocksFromOneSlab(t *testing.T) {
	if !offheap.Available() {
		t.Skip("no anonymous mappings on this system: blocks stay on the heap")
	}
	const dim = 512
	r := rand.New(rand.NewPCG(5, 6))
	vecs := make([][]float32, 8*blockSize+3) // nine blocks
	ix := New(dim)
	for i := range vecs {
		vecs[i] = randUnit(r, dim)
		mustPut(t, ix, uint32(i), vecs[i])
	}
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	settleMapped()
	base := mapped.Load()
	got, err := Read(bytes.NewReader(buf.Bytes()), dim)
	if err != nil {
		t.Fatal(err)
	}
	size := arraysSize(blockSize*dim, blockSize*got.signWords, got.coarseBytes())
	if grew := mapped.Load() - base; grew < int64(9*size) || grew > int64(9*size)+4<<20 {
		t.Fatalf("read index mapped %d bytes, want one slab of 9 blocks (%d) and its alignment", grew, 9*size)
	}
	for b := 1; b < len(got.blocks); b++ {
		prev, cur := unsafe.SliceData(got.blocks[b-1].codes), unsafe.SliceData(got.blocks[b].codes)
		if d := uintptr(unsafe.Pointer(cur)) - uintptr(unsafe.Pointer(prev)); d != uintptr((size+63)&^63) {
			t.Fatalf("block %d's arrays %d bytes after block %d's, want %d (one slab)", b, int(d), b-1, size)
		}
	}
	for i := range 30 {
		q := vecs[i*301%len(vecs)]
		if a, b := ix.Search(q, 10, nil), got.Search(q, 10, nil); !slices.Equal(a, b) {
			t.Fatalf("query %d: read index %v, written one %v", i, b, a)
		}
	}
	// A block added after the read has a mapping of its own.
	for i := len(vecs); i < len(vecs)+blockSize; i++ {
		mustPut(t, got, uint32(i), randUnit(r, dim))
	}
	runtime.KeepAlive(got)
	got = nil
	for i := 0; i < 200 && mapped.Load() > base; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if left := mapped.Load() - base; left > 0 {
		t.Fatalf("%d bytes still mapped after the read index became unreachable", left)
	}
}

// settleMapped runs the collector until the mapped byte count has not
// changed for a few rounds: the cleanups of unreachable blocks (they run
// on their own goroutine after a collection) have all unmapped.
func settleMapped() {
	last, still := mapped.Load(), 0
	for i := 0; i < 400 && still < 5; i++ {
		runtime.GC()
		time.Sleep(200 * time.Microsecond)
		if cur := mapped.Load(); cur == last {
			still++
		} else {
			last, still = cur, 0
		}
	}
}
