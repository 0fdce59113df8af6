package memindex

import (
	"context"
	"math/rand/v2"
	"reflect"
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

// TestRankMapsReuse: a Rank's maps and arrays (rankMaps) come from the
// Rank before; what a Rank returns and the pool it scores are those of a
// Rank on maps of its own.
func TestRankMapsReuse(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops entries at random under the race detector")
	}
	r := rand.New(rand.NewPCG(5, 8))
	const dim = 16
	ix, _ := passIndex(t, r, 600, dim)
	drain := func() {
		for rankMapsPool.Get() != nil {
		}
	}
	type ranked struct {
		best []Candidate
		pool []Candidate
	}
	rank := func(q RankQuery) ranked {
		var out ranked
		best, err := ix.Rank(context.Background(), q, func(p []Candidate) {
			for i := range p {
				p[i].Score = p[i].Cos + float64(i%7)/100
			}
			out.pool = append([]Candidate(nil), p...)
		})
		if err != nil {
			t.Fatal(err)
		}
		out.best = best
		return out
	}
	reused := 0
	for i := 0; i < 20; i++ {
		q := RankQuery{Vector: randVec(r, dim), Candidates: 50 + 20*i, K: 10, DuplicateOverlap: 1, Neighbors: i%2 == 0}
		other := RankQuery{Vector: randVec(r, dim), Candidates: 300, K: 10, DuplicateOverlap: 1, Neighbors: true}
		drain()
		want := rank(q)
		drain()
		rank(other) // leaves its maps for the next
		if rm, ok := rankMapsPool.Get().(*rankMaps); ok {
			reused++
			rankMapsPool.Put(rm)
		}
		got := rank(q)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("query %d: Rank on the maps of another Rank differs from Rank on maps of its own", i)
		}
	}
	if reused == 0 {
		t.Fatal("no Rank left its maps for the next: the test tests nothing")
	}
}
