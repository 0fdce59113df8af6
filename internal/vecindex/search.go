package vecindex

import (
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/infmem/infmem/internal/cores"
)

// Hit is one search result: a document id and its cosine similarity to the
// query, in [-1, 1] up to quantisation error.
type Hit struct {
	ID    uint32
	Score float32
}

// Number of candidates from which a search is split over goroutines, with
// the assembly and with the portable kernel. Splitting costs 15–25 µs; the
// assembly scans an L3-resident row in about 14 ns, so below ~16k candidates
// (0.2 ms) the split does not pay, while the Go kernel takes about 380 ns
// per row and halves its latency from 2k candidates up. See BENCHMARKS.md.
const (
	asmParallelMin = 16384
	goParallelMin  = 2048
)

// coarseParallelMin is the number of candidates from which a coarse pass
// (coarse.go) is split over goroutines. On the 2-vCPU build VM two coarse
// goroutines cost more CPU than they save wall time at 100k (a 100k search
// on one goroutine: p50 0.98 ms, 1.02 ms CPU; on two: p50 1.09–1.17 ms,
// 1.26–1.35 ms CPU; BENCHMARKS.md, tenth round): each pays for its own
// scratch, selections and best coarseKeep, and a helper waits in the run
// queue on a busy machine. One core's coarse pass takes about 1.4 ms per
// 100k candidates in the daemon, so the split waits until it would exceed
// ~4 ms. (Split or not, a coarse pass keeps the same candidates:
// coarseFinishLocked.) Below it, from coarseShareMin, the pass is shared
// with a worker already awake instead.
const coarseParallelMin = 300_000

// coarseShareMin is the number of candidates from which a coarse pass
// below coarseParallelMin is shared with the process's polling workers
// (cores.Share: the embedding's, awake right after the query's embedding):
// the caller and a worker claim the blocks as they go, and the caller
// scans them all when no worker is free (a loaded machine, another
// request's embedding). Whoever scans which blocks, coarseFinishLocked
// keeps exactly the candidates one goroutine keeps.
const coarseShareMin = 50_000

// query is a quantised query.
type query struct {
	codes []int16
	scale float32 // makes codes a unit vector
	sum   int64   // Σ codes, for the refinement
	// nibbles[16·p + m] is the sum of the codes 4p..4p+3 selected by the
	// bits of m: one lookup per four refinement bits instead of a branch
	// per bit (about 60 ns per document instead of 500 at dimension 512).
	nibbles []int32
}

// cand is a document that survived the int8 scan.
type cand struct {
	id  uint32
	dot int32   // int8 codes · query codes
	p   float32 // int8 score
}

// scanBuf is one goroutine's scratch space for a search.
type scanBuf struct {
	ids   [blockSize]uint32
	dots  [blockSize]int32
	heap  []Hit
	cands []cand
	sel   selScratch // the coarse pass's selections (keepBest)
	// merged holds a coarse selection's candidates from every goroutine
	// of a search (coarseFinishLocked).
	merged []cand
	// A request scored exactly inside a coarse scan: its slots of a block
	// and their int8 dot products.
	sub     [blockSize]uint32
	subDots [blockSize]int32
	// The rows of a block a coarse selection keeps: slots and scores.
	pickIDs [blockSize]uint32
	pickP   [blockSize]float32
}

// prepare quantises q. ok is false for a zero query, which has no direction
// to be similar to, and for one with a NaN or infinite component. It panics
// if q has the wrong length, a programming error.
func (ix *Index) prepare(q []float32) (query, bool) {
	var qq query
	ok := ix.prepareInto(q, &qq)
	return qq, ok
}

// prepareInto is prepare writing into qq, reusing its arrays (a search
// takes qq from the index's pool).
func (ix *Index) prepareInto(q []float32, qq *query) bool {
	if len(q) != ix.dim {
		panic(fmt.Sprintf("vecindex: query has %d dimensions, the index %d", len(q), ix.dim))
	}
	codes := slices.Grow(qq.codes[:0], ix.dim)[:ix.dim]
	qq.codes = codes
	scale, err := quantizeQuery(q, codes, ix.qmax)
	if err != nil || scale == 0 {
		return false
	}
	var sum int64
	for _, c := range codes {
		sum += int64(c)
	}
	nib := slices.Grow(qq.nibbles[:0], 16*ix.signWords*16)[:16*ix.signWords*16]
	for p := range len(nib) / 16 {
		t := nib[16*p : 16*p+16]
		t[0] = 0
		for m := 1; m < 16; m++ {
			i := 4*p + bits.TrailingZeros(uint(m))
			var c int32
			if i < len(codes) {
				c = int32(codes[i])
			}
			t[m] = t[m&(m-1)] + c
		}
	}
	qq.scale, qq.sum, qq.nibbles = scale, sum, nib
	return true
}

// queryBuf is a search's quantised query, kept in a pool between searches.
type queryBuf struct {
	q  query
	cq coarseQuery
}

// Search returns the k documents most similar to q (k <= 0: every candidate)
// by descending cosine similarity, ties broken by ascending id. Only
// documents in f are candidates; a nil f admits every document. q need not be
// unit length. A zero query or one with a NaN or infinite component matches
// nothing. Search panics if len(q) != Dim().
//
// The scan ranks every candidate by its int8 codes, then rescores with the
// refined codes every document that could still reach the top k: the int8
// and refined scores of a document differ by at most its bound delta, so a
// document whose int8 score is more than twice the largest bound below the
// k-th best cannot. The result is exactly the top k by refined score, the
// score Score reports.
func (ix *Index) Search(q []float32, k int, f *Filter) []Hit {
	return ix.SearchEach(q, []Request{{K: k, Filter: f}})[0]
}

// Request is one search of SearchEach: the K best (K <= 0: every candidate)
// among the documents Filter admits (nil: every document).
type Request struct {
	K      int
	Filter *Filter
}

// SearchEach runs several searches for the same query in one scan of the
// codes: out[i] is exactly what Search(q, reqs[i].K, reqs[i].Filter) would
// return. A scan of a large index is bound by reading its codes, so two
// searches cost little more than one.
func (ix *Index) SearchEach(q []float32, reqs []Request) [][]Hit {
	out := make([][]Hit, len(reqs))
	qb, _ := ix.qbufs.Get().(*queryBuf)
	if qb == nil {
		qb = new(queryBuf)
	}
	defer ix.qbufs.Put(qb)
	qq := &qb.q
	if !ix.prepareInto(q, qq) || len(reqs) == 0 {
		return out
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	// The scan reads the union of the filters; each request takes from it
	// what its own filter admits, with its own k and window.
	var union *Filter
	scans := make([]scanReq, 0, len(reqs))
	at := make([]int, 0, len(reqs)) // scans[j] answers reqs[at[j]]
	for i, r := range reqs {
		n, delta := ix.candidatesLocked(r.Filter)
		if n == 0 {
			continue
		}
		k := r.K
		if k <= 0 || k > n {
			k = n
		}
		scans = append(scans, scanReq{k: k, window: 2 * delta, f: r.Filter, n: n})
		at = append(at, i)
		switch {
		case len(scans) == 1:
			union = r.Filter
		case union == nil || r.Filter == nil:
			union = nil
		default:
			union = union.or(r.Filter)
		}
	}
	if len(scans) == 0 {
		return out
	}
	for j := range scans {
		if len(scans) == 1 || sameSet(scans[j].f, union) {
			scans[j].f = nil // the union is its filter: no second check
		}
	}
	n, _ := ix.candidatesLocked(union)
	var next atomic.Int64
	var parts []scanPart
	if ix.useCoarse(n, scans) {
		cq := &qb.cq
		ix.prepareCoarseInto(q, cq)
		pl := ix.planCoarse(scans)
		scan := func() coarsePart { return ix.coarseScanLocked(qq, cq, &pl, scans, union, &next) }
		var cparts []coarsePart
		if n >= ix.coarseShareMin && n < ix.coarseParallelMin {
			var two [2]coarsePart
			if cores.Share(2, func(i int) { two[i] = scan() }) {
				cparts = two[:]
			}
		}
		if cparts == nil {
			cparts = runWorkers(workers(n, ix.coarseParallelMin), scan)
		}
		parts = ix.coarseFinishLocked(qq, &pl, len(scans), cparts)
	} else {
		parts = runWorkers(workers(n, ix.parallelMin), func() scanPart { return ix.scanLocked(qq, scans, union, &next) })
	}
	lists := make([][]cand, len(parts))
	for j, sr := range scans {
		for i, p := range parts {
			lists[i] = p.cands[j]
		}
		out[at[j]] = ix.rankLocked(qq, lists, sr.k, sr.window, &parts[0].buf.heap)
	}
	// The candidates lived in the goroutines' scratch: it is free only now.
	for _, p := range parts {
		ix.bufs.Put(p.buf)
	}
	return out
}

// scanPart is what one goroutine of a scan found: for each request its
// candidates, which may live in buf, the scratch it took from the index's
// pool; the search returns buf to the pool once it has ranked them.
type scanPart struct {
	cands [][]cand
	buf   *scanBuf
}

// getBuf takes a goroutine's scratch from the pool.
func (ix *Index) getBuf() *scanBuf {
	if buf, _ := ix.bufs.Get().(*scanBuf); buf != nil {
		return buf
	}
	return new(scanBuf)
}

// SearchFunc is Search with the pre-filter given as a predicate (nil admits
// every document). allow is called once for each live document, from the
// calling goroutine, before the scan and without the index lock held, so it
// may call back into the index. The calls cost about 2 ns per document
// (0.2 ms at 100k on the build VM): Search with a Filter is faster when the
// caller can build the set without visiting every document, or reuses it
// across queries.
func (ix *Index) SearchFunc(q []float32, k int, allow func(id uint32) bool) []Hit {
	if len(q) != ix.dim {
		panic(fmt.Sprintf("vecindex: query has %d dimensions, the index %d", len(q), ix.dim))
	}
	if allow == nil {
		return ix.Search(q, k, nil)
	}
	f := ix.liveFilter()
	for i, w := range f.words {
		for rest := w; rest != 0; rest &= rest - 1 {
			id := uint32(i*64 + bits.TrailingZeros64(rest))
			if !allow(id) {
				w &^= 1 << (id & 63)
			}
		}
		f.words[i] = w
	}
	return ix.Search(q, k, f)
}

// runWorkers runs scan on this goroutine and workers-1 others (which share
// the blocks to claim) and returns what each that ran returned. Helpers
// that have not started by the time this goroutine has claimed every block
// are abandoned rather than waited for: on a busy machine a helper can sit
// in the run queue for a scheduler tick, and it would find nothing left to
// do.
func runWorkers[T any](workers int, scan func() T) []T {
	if workers <= 1 {
		return []T{scan()}
	}
	const (
		pending int32 = iota
		running
		abandoned
	)
	state := make([]atomic.Int32, workers)
	results := make(chan T, workers)
	for w := 1; w < workers; w++ {
		go func() {
			if state[w].CompareAndSwap(pending, running) {
				results <- scan()
			}
		}()
	}
	parts := []T{scan()}
	for w := 1; w < workers; w++ {
		if !state[w].CompareAndSwap(pending, abandoned) {
			parts = append(parts, <-results)
		}
	}
	return parts
}

// scanReq is one request of a scan: its k, its refinement window, its
// filter when the scan reads a wider set (nil: every document scanned),
// and the number of candidates its own filter admits.
type scanReq struct {
	k      int
	window float32
	f      *Filter
	n      int
}

// scanLocked scores with the int8 codes the documents of union (every live
// one when nil) in the blocks it claims from next (shared by the goroutines
// of one search), and returns for each request every document it admits
// within its window of its k-th best int8 score (in the part's scratch).
// The caller holds the read lock.
func (ix *Index) scanLocked(q *query, reqs []scanReq, union *Filter, next *atomic.Int64) scanPart {
	buf := ix.getBuf()
	type state struct {
		h     topK
		cands []cand
		limit int
	}
	st := make([]state, len(reqs))
	for i, r := range reqs {
		st[i] = state{h: newTopK(nil, r.k), limit: 4*r.k + 256} // compact cands when they outgrow limit
	}
	if len(reqs) == 1 {
		st[0].h, st[0].cands = newTopK(buf.heap, reqs[0].k), buf.cands[:0]
	}
	dim := ix.dim
	for {
		b, blk, ids, ok := ix.claimBlock(next, union, buf.ids[:0])
		if !ok {
			break
		}
		if len(ids) == 0 {
			continue
		}
		dots := buf.dots[:len(ids)]
		ix.dots(q.codes, blk.codes, dim, ids, dots)
		base := uint32(b) << blockShift
		for i := range st {
			r, t := &reqs[i], &st[i]
			cut := t.h.floor - r.window
			for j, s := range ids {
				p := score(dots[j], blk.scales[s], q.scale)
				if p < cut {
					continue // the common case once the heap is full
				}
				if r.f != nil && !r.f.Has(base|s) {
					continue
				}
				t.cands = append(t.cands, cand{id: base | s, dot: dots[j], p: p})
				t.h.offer(base|s, p)
				cut = t.h.floor - r.window
				if len(t.cands) > t.limit {
					t.cands = pruneCands(t.cands, cut)
					t.limit = 2*len(t.cands) + 256
				}
			}
		}
	}
	out := make([][]cand, len(reqs))
	for i := range st {
		out[i] = pruneCands(st[i].cands, st[i].h.floor-reqs[i].window)
	}
	if len(reqs) == 1 {
		buf.heap, buf.cands = st[0].h.hits, st[0].cands
	}
	return scanPart{cands: out, buf: buf}
}

// pruneCands drops, in place and keeping their order, the candidates
// scoring below cut. Each candidate is copied down and the write position
// advanced by the comparison, without a branch: the coarse pass cuts a few
// thousand scores where about three in four go, which a branch on each
// mispredicts (8,000 candidates: 20.6 µs by slices.DeleteFunc, 8.1 µs so).
func pruneCands(cs []cand, cut float32) []cand {
	w := 0
	for _, c := range cs {
		cs[w] = c
		if !(c.p < cut) { // as the filter it replaced: NaN stays
			w++
		}
	}
	return cs[:w]
}

// rankLocked rescores with the refined codes the candidates (the lists of
// a search's goroutines) that can still reach the top k, and returns the
// best k. scratch holds the heap and the rescored window between searches.
// The caller holds the read lock.
func (ix *Index) rankLocked(q *query, lists [][]cand, k int, window float32, scratch *[]Hit) []Hit {
	h := newTopK(*scratch, k)
	for _, cands := range lists {
		for _, c := range cands {
			h.offer(c.id, c.p)
		}
	}
	cut := h.floor - window
	hits := h.hits[:0] // the heap is done with
	for _, cands := range lists {
		for _, c := range cands {
			if c.p >= cut {
				blk := ix.blocks[c.id>>blockShift]
				hits = append(hits, Hit{ID: c.id, Score: ix.refinedLocked(q, blk, c.id&(blockSize-1), c.dot)})
			}
		}
	}
	*scratch = hits
	slices.SortFunc(hits, compareHits)
	out := make([]Hit, min(k, len(hits)))
	copy(out, hits)
	return out
}

// score turns an int8 dot product into a cosine.
func score(dot int32, docScale, queryScale float32) float32 {
	return float32(dot) * docScale * queryScale
}

// refinedLocked returns the cosine of q to slot s of blk by the refined codes
// (by the int8 codes when the slot has no refinement), given the int8 dot
// product: Σ q·(4c + 2b - 1) = 4·dot + 2·Σ_{b=1} q - Σ q.
func (ix *Index) refinedLocked(q *query, blk *block, s uint32, dot int32) float32 {
	fine := blk.fine[s]
	if fine == 0 {
		return score(dot, blk.scales[s], q.scale)
	}
	var set int64
	row := int(s) * ix.signWords
	for w, word := range blk.signs[row : row+ix.signWords] {
		t := q.nibbles[256*w : 256*w+256]
		var s0, s1 int32
		for k := 0; k < 64; k += 8 {
			s0 += t[(k/4)*16+int(word>>k&15)]
			s1 += t[(k/4+1)*16+int(word>>(k+4)&15)]
		}
		set += int64(s0) + int64(s1)
	}
	return float32(4*int64(dot)+2*set-q.sum) * fine * q.scale
}

// Score returns the cosine similarity of q to each document in ids, 0 for ids
// not in the index (and for a zero query), exactly as Search computes it, so
// hybrid ranking can fuse keyword candidates with vector hits. Score panics
// if len(q) != Dim().
func (ix *Index) Score(q []float32, ids []uint32) []float32 {
	out := make([]float32, len(ids))
	// The quantised query (9 KB at 512 dimensions) from the searches'
	// pool: a retrieval scores its few hundred candidates once.
	qb, _ := ix.qbufs.Get().(*queryBuf)
	if qb == nil {
		qb = new(queryBuf)
	}
	defer ix.qbufs.Put(qb)
	qq := &qb.q
	if !ix.prepareInto(q, qq) {
		return out
	}
	var one [1]uint32
	var dot [1]int32
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for i, id := range ids {
		blk, ok := ix.slotLocked(id)
		if !ok {
			continue
		}
		one[0] = id & (blockSize - 1)
		ix.dots(qq.codes, blk.codes, ix.dim, one[:], dot[:])
		out[i] = ix.refinedLocked(qq, blk, one[0], dot[0])
	}
	return out
}

// claimBlock takes the next block no other scanner has claimed (next
// counts the claims) and returns its number, the block and, appended to
// ids, its slots that hold a live vector union admits (nil: every one);
// ok is false once every block is claimed. An empty block gives no ids.
func (ix *Index) claimBlock(next *atomic.Int64, union *Filter, ids []uint32) (b int, blk *block, out []uint32, ok bool) {
	b = int(next.Add(1) - 1)
	if b >= len(ix.blocks) {
		return b, nil, ids, false
	}
	if blk = ix.blocks[b]; blk == nil {
		return b, nil, ids, true
	}
	return b, blk, blk.liveIDs(b, union, ids), true
}

// liveIDs appends to ids the slots of blk (block number b) that hold a
// live vector and that union admits (nil: every one). A full word (every
// slot of a block seldom written to since) is copied from slotNumbers.
func (blk *block) liveIDs(b int, union *Filter, ids []uint32) []uint32 {
	for w, live := range blk.live {
		if union != nil {
			live &= union.word(b*blockWords + w)
		}
		if live == ^uint64(0) {
			ids = append(ids, slotNumbers[w*64:w*64+64]...)
			continue
		}
		for ; live != 0; live &= live - 1 {
			ids = append(ids, uint32(w*64+bits.TrailingZeros64(live)))
		}
	}
	return ids
}

// slotNumbers holds 0, 1, …, blockSize-1.
var slotNumbers = func() (s [blockSize]uint32) {
	for i := range s {
		s[i] = uint32(i)
	}
	return s
}()
