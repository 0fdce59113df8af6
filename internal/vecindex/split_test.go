package vecindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/cores"
)

// splitIndex returns two copies of one index of n clustered vectors (every
// fifth a copy of an earlier one, so coarse scores tie) taking the coarse
// pass from 1,000 candidates and keeping 50 (2·k at least): serial scans
// on one goroutine, split on every core.
func splitIndex(t *testing.T, n, dim int) (serial, split *Index, g *clustered) {
	g = newClustered(5, dim, 12)
	serial, split = withCoarse(dim, 1000, 50), withCoarse(dim, 1000, 50)
	serial.coarseParallelMin, split.coarseParallelMin = 1<<30, 1
	var docs [][]float32
	for i := range n {
		v := g.next()
		if i%5 == 4 {
			v = docs[g.rng.IntN(len(docs))]
		}
		docs = append(docs, v)
		mustPut(t, serial, uint32(i), v)
		mustPut(t, split, uint32(i), v)
	}
	for i := 3; i < n; i += 97 { // some holes
		serial.Remove(uint32(i))
		split.Remove(uint32(i))
	}
	return serial, split, g
}

// splitRequests is a set of request lists that takes every way through a
// coarse scan: one selection, one shared by two requests, two selections
// of their own, and a small request scored exactly beside a large one.
func splitRequests(n int) [][]Request {
	odd, odd2, most, small := NewFilter(n), NewFilter(n), NewFilter(n), NewFilter(n)
	for i := range n {
		if i%2 == 1 {
			odd.Add(uint32(i))
			odd2.Add(uint32(i))
		}
		if i%7 != 0 {
			most.Add(uint32(i))
		}
		if i%16 == 0 {
			small.Add(uint32(i))
		}
	}
	return [][]Request{
		{{K: 10}},
		{{K: 3, Filter: most}},
		{{K: 5, Filter: odd}, {K: 9, Filter: odd2}},
		{{K: 10}, {K: 5, Filter: odd}},
		{{K: 4, Filter: small}, {K: 8, Filter: most}},
	}
}

// TestCoarseSplitMatchesSerial: a coarse scan whose blocks are claimed by
// several goroutines keeps exactly the candidates one goroutine keeps (the
// same ids, int8 dot products and scores, in the same order), whichever
// blocks each goroutine claimed: three parts over a random assignment of
// the blocks (by their union filters), for queries near stored vectors and
// random ones, with ties in the coarse scores. And searches split over
// the cores return what the serial search returns.
func TestCoarseSplitMatchesSerial(t *testing.T) {
	const n, dim = 9000, 96
	serial, split, g := splitIndex(t, n, dim)
	// shared: the same index searched through a sharer (cores.Share) that
	// runs the second part on a goroutine of its own, started at once or
	// late, or not at all.
	shared, _, _ := splitIndex(t, n, dim)
	shared.coarseShareMin, shared.coarseParallelMin = 1000, 1<<30
	var calls atomic.Int64
	prev := cores.Register(func(n int, fn func(i int)) {
		c := calls.Add(1)
		if c%3 == 0 {
			for i := range n {
				fn(i)
			}
			return
		}
		var wg sync.WaitGroup
		for i := 1; i < n; i++ {
			wg.Go(func() {
				if c%3 == 2 {
					time.Sleep(50 * time.Microsecond)
				}
				fn(i)
			})
		}
		fn(0)
		wg.Wait()
	})
	t.Cleanup(func() { cores.Register(prev) })
	r := rand.New(rand.NewPCG(9, 10))
	for qi := range 60 {
		q := g.next()
		if qi%3 == 0 {
			q = randUnit(r, dim)
		}
		for ri, reqs := range splitRequests(n) {
			name := fmt.Sprintf("query %d, requests %d", qi, ri)
			want, got := serial.SearchEach(q, reqs), split.SearchEach(q, reqs)
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%s: split %v, serial %v", name, got, want)
			}
			if got := shared.SearchEach(q, reqs); !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%s: shared %v, serial %v", name, got, want)
			}
			checkParts(t, name, serial, q, reqs, r)
		}
	}
	if calls.Load() == 0 {
		t.Fatal("the searches did not share their coarse pass")
	}
}

// checkParts runs one coarse scan of reqs on one part and on three parts
// that claim a random third of the blocks each, and compares what
// coarseFinishLocked makes of them.
func checkParts(t *testing.T, name string, ix *Index, q []float32, reqs []Request, r *rand.Rand) {
	t.Helper()
	var qq query
	if !ix.prepareInto(q, &qq) {
		t.Fatalf("%s: query refused", name)
	}
	var cq coarseQuery
	ix.prepareCoarseInto(q, &cq)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var scans []scanReq
	var union *Filter
	for i, rq := range reqs {
		c, delta := ix.candidatesLocked(rq.Filter)
		scans = append(scans, scanReq{k: min(rq.K, c), window: 2 * delta, f: rq.Filter, n: c})
		switch {
		case i == 0:
			union = rq.Filter
		case union == nil || rq.Filter == nil:
			union = nil
		default:
			union = union.or(rq.Filter)
		}
	}
	for j := range scans {
		if len(scans) == 1 || sameSet(scans[j].f, union) {
			scans[j].f = nil
		}
	}
	nc, _ := ix.candidatesLocked(union)
	if !ix.useCoarse(nc, scans) {
		t.Fatalf("%s: not a coarse scan", name)
	}
	pl := ix.planCoarse(scans)
	var next atomic.Int64
	one := ix.coarseFinishLocked(&qq, &pl, len(scans), []coarsePart{ix.coarseScanLocked(&qq, &cq, &pl, scans, union, &next)})
	// Three parts: each scans its blocks (a union filter of its own).
	const parts = 3
	var cps []coarsePart
	owner := make([]int, len(ix.blocks))
	for b := range owner {
		owner[b] = r.IntN(parts)
	}
	for p := range parts {
		mine := NewFilter(len(ix.blocks) * blockSize)
		for id := range uint32(len(ix.blocks) * blockSize) {
			if owner[id>>blockShift] == p && (union == nil || union.Has(id)) {
				mine.Add(id)
			}
		}
		var next atomic.Int64
		cps = append(cps, ix.coarseScanLocked(&qq, &cq, &pl, scans, mine, &next))
	}
	three := ix.coarseFinishLocked(&qq, &pl, len(scans), cps)
	for _, s := range pl.sels {
		for _, i := range s.of {
			if !slices.Equal(three[0].cands[i], one[0].cands[i]) {
				t.Fatalf("%s, request %d: three parts kept %d candidates, one part %d, or other ones", name, i, len(three[0].cands[i]), len(one[0].cands[i]))
			}
			for _, p := range three[1:] {
				if len(p.cands[i]) != 0 {
					t.Fatalf("%s, request %d: a selection's candidates outside the first part", name, i)
				}
			}
		}
	}
	for _, i := range pl.exs {
		var all []cand
		for _, p := range three {
			all = append(all, p.cands[i]...)
		}
		h1 := ix.rankLocked(&qq, [][]cand{one[0].cands[i]}, scans[i].k, scans[i].window, new([]Hit))
		h3 := ix.rankLocked(&qq, [][]cand{all}, scans[i].k, scans[i].window, new([]Hit))
		if !slices.Equal(h1, h3) {
			t.Fatalf("%s, exact request %d: three parts %v, one %v", name, i, h3, h1)
		}
	}
	for _, p := range append(three, one...) {
		ix.bufs.Put(p.buf)
	}
}
