package recall

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// TestLendingsOfAllocatesItsArraysOnce: a retrieve's pool is a few hundred
// candidates and the server runs its collector often (GOGC 25), so the
// evidence list is sized once instead of grown by append (which allocated
// twice its final size on the way).
func TestLendingsOfAllocatesItsArraysOnce(t *testing.T) {
	pool := make([]memindex.Candidate, 300)
	for i := range pool {
		pool[i].ID = bson.NewObjectID()
		pool[i].Score = 1
	}
	lent := make([][2]float64, len(pool))
	allocs := testing.AllocsPerRun(20, func() { _ = lendingsOf(pool, lent) })
	t.Logf("%.0f allocations", allocs)
	if allocs > 10 {
		t.Errorf("lendingsOf made %.0f allocations for 300 candidates, want its map and arrays once (<= 10)", allocs)
	}
}

// TestRankScratchReuse: a retrieval's scores and foldings are computed in
// arrays a retrieval before used (rankScratch); on a scratch left full of
// another pool's values, score and lendingsInto give what they give on
// arrays of their own.
func TestRankScratchReuse(t *testing.T) {
	ro := Options{}.WithDefaults()
	if ro.FoldShare <= 0 {
		t.Fatal("folding is off by default: lent is not computed")
	}
	mk := func(n int, seed float64) []memindex.Candidate {
		pool := make([]memindex.Candidate, n)
		for i := range pool {
			c := &pool[i]
			c.ID = bson.NewObjectID()
			c.Cos, c.Coverage = float64((i*7)%11)/11*seed, float64((i*5)%13)/13
			c.NeighborCos, c.NeighborCoverage = c.Cos/2, c.Coverage/2
			c.TS, c.Conv, c.Length = int64(1000*i), uint32(i/4+1), 10+i%30
			c.Neighbors = [2]int32{int32(i - 1), int32(i + 1)}
			if i%4 == 0 {
				c.Neighbors[0] = -1
			}
			if i%4 == 3 || i == n-1 {
				c.Neighbors[1] = -1
			}
			if i%9 == 0 {
				c.Alone, c.Neighbors = true, [2]int32{-1, -1}
			}
		}
		return pool
	}
	// A dirty scratch: a larger pool scored and folded in it, every turn
	// with both neighbours (so that every share it lends is set).
	sc := &rankScratch{}
	big := mk(300, 3)
	for i := range big {
		big[i].Alone, big[i].Neighbors = false, [2]int32{int32(max(i-1, 0)), int32(min(i+1, len(big)-1))}
	}
	qb := query{scratch: sc}
	lendingsInto(sc, big, score(big, &qb, &ro, barsFor(true, true)))
	for _, n := range []int{120, 300, 40} {
		fresh, reused := mk(n, 1), mk(n, 1)
		for i := range reused {
			reused[i].ID = fresh[i].ID
		}
		want := lendingsOf(fresh, score(fresh, &query{}, &ro, barsFor(true, true)))
		qr := query{scratch: sc}
		got := lendingsInto(sc, reused, score(reused, &qr, &ro, barsFor(true, true)))
		for i := range fresh {
			if fresh[i].Score != reused[i].Score {
				t.Fatalf("pool of %d: candidate %d scored %v on the reused scratch, %v on its own", n, i, reused[i].Score, fresh[i].Score)
			}
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("pool of %d: lendings on the reused scratch differ from their own", n)
		}
		// The next round reuses what this one filled.
	}
}
