package textindex

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/infmem/infmem/internal/offheap"
)

// arenaIndex builds an index of n random documents from DocID first (lists
// enough for an arena outside the heap from n = 3000), writes it and reads
// it back. It returns both.
func arenaIndex(t *testing.T, first DocID, n int, seed uint64) (built, read *Index) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	built = New(DefaultOptions())
	for i := range n {
		built.Add(first+DocID(i), randomText(rng, 4+rng.IntN(20))+fmt.Sprintf(" w%d", rng.IntN(n/4)))
	}
	var buf bytes.Buffer
	if _, err := built.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	read, err := Read(bytes.NewReader(buf.Bytes()), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return built, read
}

// A read index's lists share one arena: edits (new postings appended to a
// term's list, swap-deletes, replaced and removed documents) must leave
// every other list alone, so the read index answers exactly as the index it
// was written from after the same edits. With lists that could grow into
// their neighbour's part of the arena, searches differ after the first
// edits.
func TestReadIndexEditsMatchBuilt(t *testing.T) {
	built, read := arenaIndex(t, 0, 3000, 7)
	if offheap.Available() && read.mapped < arenaMin {
		t.Fatalf("read index mapped %d bytes outside the heap", read.mapped)
	}
	editsMatch(t, built, read)
}

// listHeapBytes is the bytes of ix's lists on the heap (their capacities),
// the lists in its arena left out.
func listHeapBytes(ix *Index) int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.mapped > 0 {
		return 0
	}
	var b int64
	for _, f := range ix.fwd {
		b += int64(cap(f)) * 4
	}
	for _, t := range ix.terms {
		b += int64(cap(t.postings)) * 4
	}
	return b
}

func liveHeap() int64 {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// An index built by Add and packed (the memory engine's load from the
// database) holds its lists in an arena as a read index does: the heap
// they held is let go, a second Pack changes nothing, and it answers as the
// unpacked index does, before and after the same edits.
func TestPackedIndexEditsMatchBuilt(t *testing.T) {
	build := func() *Index {
		rng := rand.New(rand.NewPCG(7, 1))
		ix := New(DefaultOptions())
		for i := range 3000 {
			ix.Add(DocID(i), randomText(rng, 4+rng.IntN(20))+fmt.Sprintf(" w%d", rng.IntN(750)))
		}
		return ix
	}
	built, packed := build(), build()
	lists := listHeapBytes(packed)
	heapBefore := liveHeap()
	packed.Pack()
	heapAfter := liveHeap()
	if offheap.Available() {
		if packed.mapped < arenaMin || packed.Stats().Mapped != packed.mapped {
			t.Fatalf("packed index mapped %d bytes outside the heap (stats %d)", packed.mapped, packed.Stats().Mapped)
		}
		// The lists' heap goes (less the forward lists' slice headers,
		// which stay where they are).
		if freed := heapBefore - heapAfter; freed < lists*3/4 {
			t.Fatalf("Pack let go of %d bytes of heap; its lists held %d", freed, lists)
		}
		t.Logf("lists on the heap %d bytes; Pack freed %d and mapped %d", lists, heapBefore-heapAfter, packed.mapped)
		mapped := packed.mapped
		packed.Pack()
		if packed.mapped != mapped {
			t.Fatalf("a second Pack mapped %d more bytes", packed.mapped-mapped)
		}
	}
	if built.mapped != 0 {
		t.Fatal("an index built by Add mapped an arena before Pack")
	}
	editsMatch(t, built, packed)
}

// editsMatch checks that read answers as built does, before and after
// rounds of the same random edits made to both.
func editsMatch(t *testing.T, built, read *Index) {
	t.Helper()
	rng := rand.New(rand.NewPCG(8, 9))
	queries := make([]string, 40)
	for i := range queries {
		queries[i] = randomText(rng, 1+rng.IntN(4)) + fmt.Sprintf(" w%d", rng.IntN(750))
	}
	check := func(round int) {
		t.Helper()
		if built.Len() != read.Len() || built.Stats().Postings != read.Stats().Postings {
			t.Fatalf("round %d: len %d/%d postings %d/%d", round, built.Len(), read.Len(), built.Stats().Postings, read.Stats().Postings)
		}
		ids := []DocID{0, 1, 2, 17, 100, 999, 1500, 2999, 3100}
		for _, q := range queries {
			a, b := built.Search(q, 0, nil), read.Search(q, 0, nil)
			if !slices.Equal(a, b) {
				t.Fatalf("round %d: %q: %d hits vs %d", round, q, len(a), len(b))
			}
			if sa, sb := built.ScoreDocs(q, ids), read.ScoreDocs(q, ids); !slices.Equal(sa, sb) {
				t.Fatalf("round %d: %q: scores %v vs %v", round, q, sa, sb)
			}
			qa := built.Analyze(q)
			if ma, mb := built.MatchAll(qa, nil), read.MatchAll(qa, nil); !slices.Equal(ma, mb) {
				t.Fatalf("round %d: %q: match all %v vs %v", round, q, ma, mb)
			}
		}
		for range 50 {
			a, b := DocID(rng.IntN(3200)), DocID(rng.IntN(3200))
			if built.Overlap(a, b) != read.Overlap(a, b) || built.Distinct(a) != read.Distinct(a) {
				t.Fatalf("round %d: overlap of %d and %d differs", round, a, b)
			}
		}
	}
	check(0)
	for round := 1; round <= 6; round++ {
		for range 300 {
			id := DocID(rng.IntN(3200))
			switch rng.IntN(3) {
			case 0:
				built.Remove(id)
				read.Remove(id)
			default:
				text := randomText(rng, 1+rng.IntN(25)) + fmt.Sprintf(" w%d", rng.IntN(750))
				built.Add(id, text)
				read.Add(id, text)
			}
		}
		check(round)
	}
}

// A read index's arena is released once the index is unreachable.
func TestReadIndexArenaReleased(t *testing.T) {
	if !offheap.Available() {
		t.Skip("no anonymous mappings here: arenas live on the heap")
	}
	settle := func() {
		for range 20 {
			runtime.GC()
			runtime.Gosched()
		}
	}
	settle() // other tests' indexes released first
	before := mappedArenas.Load()
	_, read := arenaIndex(t, 0, 3000, 3)
	if hits := read.Search("coffee", 1, nil); len(hits) != 1 {
		t.Fatalf("hits %v", hits)
	}
	if read.mapped == 0 || mappedArenas.Load() < before+read.mapped {
		t.Fatalf("mapped %d, counted %d", read.mapped, mappedArenas.Load()-before)
	}
	read = nil
	for i := 0; i < 200 && mappedArenas.Load() > before; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if got := mappedArenas.Load(); got > before {
		t.Fatalf("%d bytes still mapped after the index became unreachable", got-before)
	}
}

// Concurrent searches and edits on a read index (run under -race).
func TestConcurrentReadersAndWritersReadIndex(t *testing.T) {
	ix := New(DefaultOptions())
	for i := range stable {
		ix.Add(DocID(i), fmt.Sprintf("stable anchor document %d", i))
	}
	_, filler := arenaIndex(t, 1000, 3000, 5)
	var buf bytes.Buffer
	filler.mu.RLock()
	for id := range filler.fwd {
		if filler.isLive(DocID(id)) {
			// Filler documents share the writers' vocabulary, so their
			// postings (in the arena) are appended to and swap-deleted.
			ix.Add(DocID(id), randomText(rand.New(rand.NewPCG(uint64(id), 2)), 10))
		}
	}
	filler.mu.RUnlock()
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	read, err := Read(bytes.NewReader(buf.Bytes()), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	concurrentReadersAndWriters(t, read)
}
