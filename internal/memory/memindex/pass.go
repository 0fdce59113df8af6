package memindex

import (
	"math"
	"reflect"
	"slices"

	"github.com/infmem/infmem/internal/vecindex"
)

// A store compares the new memory with the stored ones twice: Similar (the
// memories of its scope that read like it) and the update check's Rank
// over the scopes a search there reads. Each reads every vector of the
// index, which at 100k memories is 51 MB of codes and most of the cost of
// a search. SimilarPass answers Similar and, in the same scan, draws the
// vector hits that Rank would draw (a VectorPass), which the Rank then
// takes instead of scanning again.
//
// The pass is taken before the new memory is written, so the Rank after it
// must see the index as it is then: the index logs the slots whose vectors
// changed since (vecLog), and the pass's hits are completed with those
// slots' current scores. That is exact as long as the changed slots are few
// (the store's own insert) and the pass holds enough hits beyond the k the
// Rank wants to cover the changed ones that fell out; otherwise, or for
// another filter, vector, or index, Rank scans as it would without a pass.

// passSlack is how many hits beyond the Rank's a pass draws, and vecLogLen
// how many vector changes the index remembers.
const (
	passSlack = 4
	vecLogLen = 8
)

// VectorPass holds the vector hits of a query drawn ahead of a Rank.
type VectorPass struct {
	vecs   *vecindex.Index
	gen    uint64
	filter Filter
	vector []float32
	k      int // hits asked for; fewer in hits means the filter held fewer
	hits   []vecindex.Hit
}

// noteVecLocked records that slot's vector changed (ix.mu held for writing).
func (ix *Index) noteVecLocked(slot uint32) {
	ix.vecLog[ix.vecGen%vecLogLen] = slot
	ix.vecGen++
}

// SimilarPass is Similar, and, from the same scan of the vectors, a
// VectorPass of v over f for a Rank that wants up to k vector candidates
// (RankQuery.Pass).
func (ix *Index) SimilarPass(v []float32, scope string, threshold float64, k int, f Filter, rankK int) ([]Hit, *VectorPass) {
	if ix.vecs == nil || v == nil {
		return nil, nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.similarPassLocked(v, scope, threshold, k, f, rankK)
}

func (ix *Index) similarPassLocked(v []float32, scope string, threshold float64, k int, f Filter, rankK int) ([]Hit, *VectorPass) {
	c := ix.compileLocked(Filter{Scopes: []string{scope}})
	allowed, _ := ix.allowedLocked(&c)
	cf := ix.compileLocked(f)
	wide, _ := ix.allowedLocked(&cf)
	passK := rankK + passSlack
	res := ix.vecs.SearchEach(v, []vecindex.Request{{K: k, Filter: allowed}, {K: passK, Filter: wide}})
	pass := &VectorPass{vecs: ix.vecs, gen: ix.vecGen, filter: f, vector: v, k: passK, hits: res[1]}
	return ix.similarHits(res[0], threshold), pass
}

// SimilarPassGo runs SimilarPass in a goroutine of its own and returns once
// that holds the index's read lock, so the scan sees the index as it is
// now: a write the caller makes next (the new memory's own) waits for the
// scan to end, and whatever it does before (its database write and sync)
// runs beside the scan. wait returns SimilarPass's answers.
func (ix *Index) SimilarPassGo(v []float32, scope string, threshold float64, k int, f Filter, rankK int) (wait func() ([]Hit, *VectorPass)) {
	if ix.vecs == nil || v == nil {
		return func() ([]Hit, *VectorPass) { return nil, nil }
	}
	var hits []Hit
	var pass *VectorPass
	locked, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		close(locked)
		hits, pass = ix.similarPassLocked(v, scope, threshold, k, f, rankK)
	}()
	<-locked
	return func() ([]Hit, *VectorPass) {
		<-done
		return hits, pass
	}
}

// similarHits turns Similar's vector hits into Hits, keeping those at
// threshold or above.
func (ix *Index) similarHits(hits []vecindex.Hit, threshold float64) []Hit {
	var out []Hit
	for _, h := range hits {
		if score := float64(h.Score); score >= threshold {
			it := &ix.items[h.ID]
			out = append(out, Hit{ID: it.id, Kind: it.kind, Score: math.Round(score*1000) / 1000, TS: it.ts})
		}
	}
	return out
}

// passHitsLocked returns the k best vector hits of q as a scan now would
// find them, from q.Pass, or false when the pass cannot give them exactly.
// allowed is the set q's filter admits now.
func (ix *Index) passHitsLocked(q *RankQuery, allowed *vecindex.Filter) ([]vecindex.Hit, bool) {
	p, k := q.Pass, q.Candidates
	if p == nil || p.vecs != ix.vecs || k <= 0 || k > p.k-passSlack || ix.vecGen-p.gen > vecLogLen ||
		!reflect.DeepEqual(p.filter, q.Filter) || !slices.Equal(p.vector, q.Vector) {
		return nil, false
	}
	var changed []uint32
	for g := p.gen; g < ix.vecGen; g++ {
		changed = append(changed, ix.vecLog[g%vecLogLen])
	}
	hits := slices.DeleteFunc(slices.Clone(p.hits), func(h vecindex.Hit) bool {
		return slices.Contains(changed, h.ID) || !allowed.Has(h.ID)
	})
	// A hit that left (changed, or no longer admitted) may have had one
	// below the pass's last in its place: exact only if enough remain, or
	// the pass held every document the filter admitted.
	if len(hits) < k && len(p.hits) == p.k {
		return nil, false
	}
	var now []uint32
	for _, s := range changed {
		if allowed.Has(s) && ix.vecs.Has(s) && !slices.Contains(now, s) {
			now = append(now, s)
		}
	}
	for i, sc := range ix.vecs.Score(q.Vector, now) {
		hits = append(hits, vecindex.Hit{ID: now[i], Score: sc})
	}
	slices.SortFunc(hits, func(a, b vecindex.Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return int(a.ID) - int(b.ID)
	})
	return hits[:min(k, len(hits))], true
}
