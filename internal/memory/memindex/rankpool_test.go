package memindex

import (
	"context"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"
)

// TestRankReusesItsPool: the candidate pool of a Rank (a few hundred
// Candidates of ~150 bytes at each retrieve) is taken from scratch kept
// between Ranks, not allocated anew for a collector that runs at GOGC 25;
// the pool is only read by the score callback, never kept.
func TestRankReusesItsPool(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops entries at random under the race detector")
	}
	r := rand.New(rand.NewPCG(3, 9))
	const dim = 16
	ix, _ := passIndex(t, r, 600, dim)
	qs := make([]RankQuery, 10)
	for i := range qs {
		qs[i] = RankQuery{Vector: randVec(r, dim), Candidates: 300, K: 10, DuplicateOverlap: 1}
	}
	pool := 0
	rank := func() {
		for _, q := range qs {
			if _, err := ix.Rank(context.Background(), q, func(p []Candidate) { pool = len(p) }); err != nil {
				t.Fatal(err)
			}
		}
	}
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	rank()
	rank()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rank()
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / uint64(len(qs))
	poolBytes := uint64(pool) * uint64(unsafe.Sizeof(Candidate{}))
	t.Logf("%d bytes a Rank; its pool of %d candidates is %d bytes", per, pool, poolBytes)
	if per > poolBytes {
		t.Errorf("a Rank allocates %d bytes, more than its pool of %d candidates (%d bytes): the pool is not reused", per, pool, poolBytes)
	}
}
