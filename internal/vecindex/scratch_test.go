package vecindex

import (
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
)

// TestSearchReusesScratch: a search keeps its quantised query, its
// candidates and their scores in scratch reused from search to search (a
// retrieve at 100k allocated ~150 KB in them, which the collector then had
// to chase), so what a warm search allocates is its answer and a few small
// headers, whatever the number of candidates it scores. Exact and coarse
// scans, one goroutine and two.
func TestSearchReusesScratch(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops entries at random under the race detector")
	}
	const dim, n = 512, 6000
	r := rand.New(rand.NewPCG(3, 4))
	coarse, exact := withCoarse(dim, 1000, 400), New(dim)
	exact.coarseDots = nil
	for i := range n {
		v := randUnit(r, dim)
		mustPut(t, coarse, uint32(i), v)
		mustPut(t, exact, uint32(i), v)
	}
	queries := make([][]float32, 20)
	for i := range queries {
		queries[i] = randUnit(r, dim)
	}
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a collection empties the pools
	for _, workers := range []int{1, 2} {
		for name, ix := range map[string]*Index{"coarse": coarse, "exact": exact} {
			ix.parallelMin = 2 * n / workers // workers() gives min(GOMAXPROCS, 2)
			ix.coarseParallelMin = ix.parallelMin
			if workers == 2 && runtime.GOMAXPROCS(0) < 2 {
				continue
			}
			search := func() {
				for _, q := range queries {
					if hits := ix.Search(q, 10, nil); len(hits) != 10 {
						t.Fatalf("%s: %d hits", name, len(hits))
					}
				}
			}
			search() // warm: the pools fill (a pool's first entries may
			search() // go with a collection already under way)
			// The fewest bytes of three rounds: with two goroutines a
			// round can run the helper on a P whose pool is still empty
			// (seen once in three runs on a loaded machine); a search
			// that allocates on every round still fails.
			per := uint64(math.MaxUint64)
			for range 3 {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				search()
				runtime.ReadMemStats(&after)
				per = min(per, (after.TotalAlloc-before.TotalAlloc)/uint64(len(queries)))
			}
			t.Logf("%s, %d goroutines: %d bytes a search", name, workers, per)
			if per > 2048 {
				t.Errorf("%s, %d goroutines: a warm search allocates %d bytes, want <= 2048", name, workers, per)
			}
		}
	}
}

// TestLiveIDs checks a block's live, admitted slots against a slot-by-slot
// reading of the bitmaps, with full words (copied whole), empty, sparse
// and mixed ones, without and with a filter.
func TestLiveIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		var blk block
		for w := range blk.live {
			switch r.IntN(4) {
			case 0:
				blk.live[w] = ^uint64(0)
			case 1:
				blk.live[w] = 0
			default:
				blk.live[w] = r.Uint64()
			}
		}
		b := trial % 3
		var union *Filter
		if trial%2 == 1 {
			union = NewFilter((b + 1) * blockSize)
			for s := range (b + 1) * blockSize {
				if r.IntN(8) != 0 || s%128 < 64 {
					union.Add(uint32(s))
				}
			}
		}
		var want []uint32
		for s := range uint32(blockSize) {
			if blk.live[s/64]>>(s%64)&1 == 1 && (union == nil || union.Has(uint32(b)<<blockShift|s)) {
				want = append(want, s)
			}
		}
		if got := blk.liveIDs(b, union, nil); !slices.Equal(got, want) {
			t.Fatalf("trial %d: %d slots, want %d", trial, len(got), len(want))
		}
	}
}
