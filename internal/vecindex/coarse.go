package vecindex

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
)

// # The coarse pass
//
// A scan of every int8 code reads dim bytes per document (51 MB at 100k ×
// 512) and is bound by memory bandwidth. Large searches therefore start
// with a coarse pass over 2-bit codes (a quarter of the bytes), keep the
// best coarseKeep (at least 20·k and n/50) documents by the coarse score, and score
// only those by their int8 codes and refinement bits as before. The 2-bit
// codes are a Lloyd–Max quantiser for a Gaussian component: thresholds 0
// and ±0.98σ of the vector's int8 codes, levels ±0.5σ and ±1.5σ (σ the
// codes' root mean square). They are derived data, computed from the int8
// codes by Put and when a persisted index is read, never persisted.
//
// The coarse pass is approximate: the result is the exact top k whenever
// the exact top k (and every document within the refinement window of its
// k-th score) is among the coarse best coarseKeep. On the real 100k seed
// with 200 LoCoMo questions the exact top 50 was always inside the coarse
// best 670 (median 169; 4-bit codes: 109; 1-bit signs: 8,360), so
// coarseKeep = 2,000 leaves a margin of three; BENCHMARKS.md has the recall
// set at 100k it was checked on. That depth grows with the collection, so
// a search keeps at least one candidate in coarseShare as well (2,000 at
// 100k, 20,000 at 1M: untested beyond 100k). Below coarseMin candidates,
// for k above coarseMaxK, and where the CPU has no coarse kernel, searches
// stay exact. Each goroutine of a search keeps that many of its own.
// Several requests in one scan (a store's Similar and update-check passes)
// take it too (useCoarse): requests over one set share a selection, a
// small request beside a large one is scored exactly inside the scan; the
// store's pair was checked against the exact scan on the 100k seed
// (BENCHMARKS.md, seventh round).
const (
	coarseMin   = 30000
	coarseKeep  = 2000
	coarsePerK  = 20
	coarseShare = 50
	coarseMaxK  = 100
)

// coarseFunc computes, for each j, out[j] = Σ_i q[i]·u_i over the 2-bit
// codes u of row ids[j] of plane (stride bytes per row, stride/64 chunks of
// 256 dimensions); len(q) is 4·stride.
type coarseFunc func(q []int8, plane []byte, stride int, ids []uint32, out []int32)

// coarseStride is the bytes of one row of 2-bit codes: dim rounded up to
// whole chunks of 256 dimensions, 64 bytes each.
func coarseStride(dim int) int { return (dim + 255) / 256 * 64 }

// encodeCoarse writes the 2-bit codes of one row of int8 codes into out
// (coarseStride(len(codes)) bytes; dimension i of chunk i/256 at byte
// 64·(i/256) + i%64, bits 2·((i%256)/64)) and returns the scale of their
// levels in code units: component i ≈ (2u_i - 3)·scale. A zero row gets
// scale 0.
func encodeCoarse(codes []int8, out []byte) float32 {
	clear(out)
	var ss int64
	for _, c := range codes {
		ss += int64(c) * int64(c)
	}
	if ss == 0 {
		return 0
	}
	sigma := math.Sqrt(float64(ss) / float64(len(codes)))
	t := 0.98 * sigma
	// The level of every code value, then one lookup per component: a
	// snapshot's 100k vectors are encoded at every start. For an integer
	// c, c < -t ⟺ c <= -(⌊t⌋+1) and c >= t ⟺ c >= ⌈t⌉.
	var lut [256]byte
	lo, hi := -(int(math.Floor(t)) + 1), int(math.Ceil(t))
	for c := -128; c < 128; c++ {
		var u byte
		switch {
		case c <= lo:
			u = 0
		case c < 0:
			u = 1
		case c < hi:
			u = 2
		default:
			u = 3
		}
		lut[uint8(c)] = u
	}
	ch := 0
	for ; (ch+1)*256 <= len(codes); ch++ {
		row := codes[ch*256 : ch*256+256 : ch*256+256]
		o := out[ch*64 : ch*64+64 : ch*64+64]
		for b := range o {
			o[b] = lut[uint8(row[b])] | lut[uint8(row[64+b])]<<2 | lut[uint8(row[128+b])]<<4 | lut[uint8(row[192+b])]<<6
		}
	}
	for i := ch * 256; i < len(codes); i++ { // a last, partial chunk
		r := i % 256
		out[ch*64+r%64] |= lut[uint8(codes[i])] << (2 * (r / 64))
	}
	return float32(0.5 * sigma)
}

// coarseDotsGo is the portable coarse kernel and the reference the
// assembly is tested against.
func coarseDotsGo(q []int8, plane []byte, stride int, ids []uint32, out []int32) {
	out = out[:len(ids)]
	for j, id := range ids {
		row := plane[int(id)*stride : int(id)*stride+stride]
		var s0, s1, s2, s3 int32
		for t := 0; t < stride/64; t++ {
			qq := q[t*256 : t*256+256 : t*256+256]
			rr := row[t*64 : t*64+64 : t*64+64]
			for b, v := range rr {
				s0 += int32(v&3) * int32(qq[b])
				s1 += int32(v>>2&3) * int32(qq[64+b])
				s2 += int32(v>>4&3) * int32(qq[128+b])
				s3 += int32(v>>6) * int32(qq[192+b])
			}
		}
		out[j] = s0 + s1 + s2 + s3
	}
}

// coarsePickGo computes the coarse score p = float32(2·dots[j] - sum3)·cw[ids[j]]
// of each row j (sum3 = 3·Σ query codes: the levels are 2u - 3; ids are
// slots of a block, below blockSize) and writes
// the slot and score of every row with p >= cut (not p < cut) to outIDs and
// outP, in order; it returns how many, m. The assembly may also write
// outIDs[m:len(ids)] and outP[m:len(ids)] (scratch), never past them. It is
// the reference the assembly is tested against.
func coarsePickGo(dots []int32, ids []uint32, cw []float32, sum3 int32, cut float32, outIDs []uint32, outP []float32) int {
	m := 0
	for j, s := range ids {
		p := float32(2*dots[j]-sum3) * cw[s]
		if p < cut {
			continue
		}
		outIDs[m], outP[m] = s, p
		m++
	}
	return m
}

// checkPick panics unless coarsePick's arguments are in bounds: the
// assembly cannot check them itself. ids are slots of a block: it reads
// cw at id mod blockSize.
func checkPick(dots []int32, ids []uint32, cw []float32, outIDs []uint32, outP []float32) {
	n := len(ids)
	_, _, _, _ = dots[:n], outIDs[:n], outP[:n], cw[:blockSize]
}

// checkCoarse panics unless every row the kernel will read lies inside
// plane and q covers the row: the assembly cannot check bounds itself.
func checkCoarse(q []int8, plane []byte, stride int, ids []uint32, out []int32) {
	_ = out[:len(ids)]
	if stride <= 0 || stride%64 != 0 || len(q) != 4*stride {
		panic("vecindex: coarse kernel called with a bad stride or query")
	}
	_ = plane[int(maxID(ids))*stride+stride-1]
}

// maxID returns the largest of ids (0 for none), four at a time: the
// coarse pass checks every block's ids before the assembly reads them.
func maxID(ids []uint32) uint32 {
	var h0, h1, h2, h3 uint32
	i := 0
	for ; i+4 <= len(ids); i += 4 {
		h0, h1, h2, h3 = max(h0, ids[i]), max(h1, ids[i+1]), max(h2, ids[i+2]), max(h3, ids[i+3])
	}
	for ; i < len(ids); i++ {
		h0 = max(h0, ids[i])
	}
	return max(h0, h1, h2, h3)
}

// coarseQuery is a query's codes for the coarse pass: int8, padded with
// zeros to whole chunks, and their sum.
type coarseQuery struct {
	codes []int8
	sum   int32
}

// prepareCoarseInto quantises q (finite and nonzero: prepare accepted it)
// to int8 for the coarse pass, into cq, reusing its codes.
func (ix *Index) prepareCoarseInto(q []float32, cq *coarseQuery) {
	m, _ := maxAbs(q)
	n := 4 * coarseStride(ix.dim)
	cq.codes = slices.Grow(cq.codes[:0], n)[:n]
	clear(cq.codes)
	cq.sum = 0
	for i, x := range q {
		c := int8(math.Round(float64(x) * 127 / m))
		cq.codes[i] = c
		cq.sum += int32(c)
	}
}

// setCoarseLocked computes slot s's coarse codes and weight from its int8
// codes. The caller holds the write lock (or owns blk).
func (ix *Index) setCoarseLocked(blk *block, s int) {
	if ix.coarseDots == nil {
		return
	}
	cs := coarseStride(ix.dim)
	scale := encodeCoarse(blk.codes[s*ix.dim:(s+1)*ix.dim], blk.coarse[s*cs:(s+1)*cs])
	blk.cw[s] = scale * blk.scales[s]
}

// useCoarse reports whether a search over n candidates with these requests
// takes the coarse pass: at least one request would alone (k <= coarseMaxK
// over coarseMin candidates or more), and those that would not read, by
// their int8 codes, at most half as many documents as the scan (a store in
// a scope of its own beside a search set of several: coarseScanLocked).
func (ix *Index) useCoarse(n int, scans []scanReq) bool {
	if ix.coarseDots == nil || n < ix.coarseMin {
		return false
	}
	coarse, exact := 0, 0
	for _, sr := range scans {
		switch {
		case !ix.exactIn(sr):
			coarse++
		case sr.f == nil:
			return false // it reads every document the scan does
		default:
			exact += sr.n
		}
	}
	return coarse > 0 && exact <= n/2
}

// exactIn reports whether request sr of a coarse scan is scored by the
// int8 codes of every document it admits, as the exact scan does.
func (ix *Index) exactIn(sr scanReq) bool {
	return sr.k > coarseMaxK || sr.n < ix.coarseMin
}

// coarseKeepFor is how many coarse candidates a request of k among n
// keeps.
func (ix *Index) coarseKeepFor(k, n int) int {
	return max(ix.coarseKeep, ix.coarsePerK*k, n/coarseShare)
}

// coarsePlan is how a coarse scan serves its requests: selections by
// coarse score, each for the requests in of, and the requests scored
// exactly inside the scan (exactIn), by their index.
type coarsePlan struct {
	sels []coarseSel
	exs  []int
}

// coarseSel is one selection by coarse score: it keeps at least the best
// keep documents f admits (nil: every one scanned), for the requests of.
type coarseSel struct {
	keep int
	f    *Filter
	of   []int
}

// planCoarse groups a coarse scan's requests. Requests that read the same
// documents (no filter of their own: a store's two passes over one scope)
// share one selection, keeping what the most demanding of them keeps: more
// kept can only bring a result closer to exact.
func (ix *Index) planCoarse(reqs []scanReq) coarsePlan {
	var pl coarsePlan
	shared := -1
	for i, r := range reqs {
		if ix.exactIn(r) {
			pl.exs = append(pl.exs, i)
			continue
		}
		keep := ix.coarseKeepFor(r.k, r.n)
		if r.f == nil && shared >= 0 {
			pl.sels[shared].keep = max(pl.sels[shared].keep, keep)
			pl.sels[shared].of = append(pl.sels[shared].of, i)
			continue
		}
		if r.f == nil {
			shared = len(pl.sels)
		}
		pl.sels = append(pl.sels, coarseSel{keep: keep, f: r.f, of: []int{i}})
	}
	return pl
}

// coarsePart is what one goroutine of a coarse scan found: for each
// selection of the plan, a superset of the best keep documents of the
// blocks it claimed by coarse score (ascending ids, coarse score in p),
// and for each exactly scored request its candidates as scanLocked finds
// them; they may live in buf.
type coarsePart struct {
	sels  [][]cand
	exact [][]cand
	buf   *scanBuf
}

// coarseScanLocked ranks the documents of union in the blocks it claims
// from next by their coarse score and keeps for each selection of pl at
// least the best keep it admits among them. A request that would not take
// the coarse pass alone (exactIn) is scored by the int8 codes of the
// documents it admits, as scanLocked scores them. coarseFinishLocked then
// selects, from what the goroutines of a search kept, exactly what one
// goroutine would have kept. The caller holds the read lock.
func (ix *Index) coarseScanLocked(q *query, cq *coarseQuery, pl *coarsePlan, reqs []scanReq, union *Filter, next *atomic.Int64) coarsePart {
	buf := ix.getBuf()
	// A selection's state: its running cut, and its candidates' ids and
	// coarse scores (in p).
	type selection struct {
		keep  int
		cut   float32
		f     *Filter
		cands []cand
	}
	// An exactly scored request (scanLocked's state).
	type exactReq struct {
		h     topK
		cands []cand
		limit int
		at    int
	}
	sels := make([]selection, len(pl.sels))
	for i, s := range pl.sels {
		sels[i] = selection{keep: s.keep, cut: float32(math.Inf(-1)), f: s.f}
	}
	exs := make([]exactReq, len(pl.exs))
	for i, at := range pl.exs {
		exs[i] = exactReq{h: newTopK(nil, reqs[at].k), limit: 4*reqs[at].k + 256, at: at}
	}
	if len(sels) == 1 {
		sels[0].cands = buf.cands[:0]
	}
	cs := coarseStride(ix.dim)
	for {
		b, blk, ids, ok := ix.claimBlock(next, union, buf.ids[:0])
		if !ok {
			break
		}
		if len(ids) == 0 {
			continue
		}
		dots := buf.dots[:len(ids)]
		ix.coarseDots(cq.codes, blk.coarse, cs, ids, dots)
		base := uint32(b) << blockShift
		for i := range sels {
			t := &sels[i]
			m := coarsePick(dots, ids, blk.cw[:], 3*cq.sum, t.cut, buf.pickIDs[:], buf.pickP[:])
			for j, s := range buf.pickIDs[:m] {
				if t.f != nil && !t.f.Has(base|s) {
					continue
				}
				t.cands = append(t.cands, cand{id: base | s, p: buf.pickP[j]})
			}
			if len(t.cands) >= 4*t.keep {
				t.cands, t.cut = keepBest(t.cands, t.keep, true, &buf.sel)
			}
		}
		for i := range exs {
			e, r := &exs[i], &reqs[exs[i].at]
			sub := buf.sub[:0]
			for _, s := range ids {
				if r.f.Has(base | s) {
					sub = append(sub, s)
				}
			}
			if len(sub) == 0 {
				continue
			}
			sd := buf.subDots[:len(sub)]
			ix.dots(q.codes, blk.codes, ix.dim, sub, sd)
			cut := e.h.floor - r.window
			for j, s := range sub {
				p := score(sd[j], blk.scales[s], q.scale)
				if p < cut {
					continue
				}
				e.cands = append(e.cands, cand{id: base | s, dot: sd[j], p: p})
				e.h.offer(base|s, p)
				cut = e.h.floor - r.window
				if len(e.cands) > e.limit {
					e.cands = pruneCands(e.cands, cut)
					e.limit = 2*len(e.cands) + 256
				}
			}
		}
	}
	part := coarsePart{sels: make([][]cand, len(sels)), exact: make([][]cand, len(exs)), buf: buf}
	for i := range sels {
		part.sels[i] = sels[i].cands
	}
	for i, e := range exs {
		part.exact[i] = pruneCands(e.cands, e.h.floor-reqs[e.at].window)
	}
	return part
}

// coarseFinishLocked completes a coarse scan from what its goroutines
// found (parts): each selection keeps exactly the best keep documents of
// all (every document scoring at least the keep-th best coarse score, the
// same whichever goroutine met it: each part holds every one of its
// documents above its own keep-th best, so the parts together hold the
// search's best keep), those are scored by their int8 codes, and the
// search's scanParts are returned, for each request its candidates (a
// selection's in the first part, an exactly scored request's in every
// part). The caller holds the read lock.
func (ix *Index) coarseFinishLocked(q *query, pl *coarsePlan, nreqs int, parts []coarsePart) []scanPart {
	buf := parts[0].buf
	out := make([]scanPart, len(parts))
	for i, p := range parts {
		out[i] = scanPart{cands: make([][]cand, nreqs), buf: p.buf}
		for j, at := range pl.exs {
			out[i].cands[at] = p.exact[j]
		}
	}
	chosen := make([][]cand, len(pl.sels))
	for i, s := range pl.sels {
		c := parts[0].sels[i]
		if len(parts) > 1 {
			lists := make([][]cand, len(parts))
			for j, p := range parts {
				lists[j] = p.sels[i]
			}
			if len(pl.sels) == 1 {
				c = mergeParts(buf.merged[:0], lists)
				buf.merged = c
			} else {
				c = mergeParts(nil, lists)
			}
		}
		chosen[i], _ = keepBest(c, s.keep, false, &buf.sel)
	}
	if len(pl.sels) == 1 {
		exact := ix.exactLocked(q, chosen[0], buf)
		for _, i := range pl.sels[0].of {
			out[0].cands[i] = exact
		}
		for _, p := range parts {
			p.buf.cands = p.sels[0] // keep the grown scratch
		}
	} else if len(pl.sels) > 1 {
		// The selections mostly keep the same documents: each is scored
		// once.
		all := ix.exactLocked(q, mergeIDs(chosen), buf)
		for i := range pl.sels {
			picked := pickIDs(all, chosen[i])
			for _, j := range pl.sels[i].of {
				out[0].cands[j] = picked
			}
		}
	}
	return out
}

// mergeParts appends to dst the candidates of lists (each in ascending id
// order, no id in two lists: the blocks of a scan's goroutines) in
// ascending id order, and returns it.
func mergeParts(dst []cand, lists [][]cand) []cand {
	pos := make([]int, len(lists))
	for {
		best := -1
		for i, l := range lists {
			if pos[i] < len(l) && (best < 0 || l[pos[i]].id < lists[best][pos[best]].id) {
				best = i
			}
		}
		if best < 0 {
			return dst
		}
		// The run of best's list below every other list's next id.
		l := lists[best]
		end := pos[best] + 1
		for end < len(l) {
			lower := true
			for i, o := range lists {
				if i != best && pos[i] < len(o) && o[pos[i]].id < l[end].id {
					lower = false
					break
				}
			}
			if !lower {
				break
			}
			end++
		}
		dst = append(dst, l[pos[best]:end]...)
		pos[best] = end
	}
}

// mergeIDs returns the candidates of lists (each in ascending id order, as
// one goroutine's scan meets them) in ascending id order, each id once.
func mergeIDs(lists [][]cand) []cand {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	out := make([]cand, 0, n)
	pos := make([]int, len(lists))
	for {
		next, any := uint32(0), false
		for i, l := range lists {
			if pos[i] < len(l) && (!any || l[pos[i]].id < next) {
				next, any = l[pos[i]].id, true
			}
		}
		if !any {
			return out
		}
		out = append(out, cand{id: next})
		for i, l := range lists {
			if pos[i] < len(l) && l[pos[i]].id == next {
				pos[i]++
			}
		}
	}
}

// pickIDs returns the members of all (ascending ids) whose ids are those
// of want (ascending, a subset).
func pickIDs(all, want []cand) []cand {
	out := make([]cand, 0, len(want))
	j := 0
	for _, w := range want {
		for all[j].id != w.id {
			j++
		}
		out = append(out, all[j])
	}
	return out
}

// keepBest drops, in place and keeping their order, the candidates below
// the keep-th best coarse score (none when there are at most keep), and
// returns the rest and that score. With bound, it may keep more: it cuts at
// a score at most the keep-th best (the lower edge of the histogram bucket
// that holds it), which is all a cut during the scan needs: every cut stays
// at most the final keep-th best, so the final, exact cut keeps the same.
func keepBest(cs []cand, keep int, bound bool, sc *selScratch) ([]cand, float32) {
	if len(cs) <= keep {
		return cs, float32(math.Inf(-1))
	}
	keys := sc.keys[:0]
	nan := false
	for _, c := range cs {
		keys = append(keys, floatKey(c.p))
		nan = nan || c.p != c.p
	}
	sc.keys = keys
	var cut float32
	if nan { // no order to select by: as before
		sel := sc.floats[:0]
		for _, c := range cs {
			sel = append(sel, c.p)
		}
		sc.floats = sel
		cut = kthLargest(sel, keep)
	} else {
		cut = keyFloat(kthLargestKey(keys, keep, bound, &sc.hist))
	}
	return pruneCands(cs, cut), cut
}

// selScratch is a goroutine's scratch for keepBest.
type selScratch struct {
	keys   []uint32
	floats []float32
	hist   [1 << selBits]int32
}

// selBits is the bits of the key range kthLargestKey's histograms tell
// apart in one pass.
const selBits = 11

// floatKey maps a float32 (not NaN) to a uint32 in the same order (-0 just
// below +0); keyFloat is its inverse.
func floatKey(x float32) uint32 {
	b := math.Float32bits(x)
	return b ^ (uint32(int32(b)>>31) | 1<<31)
}

func keyFloat(k uint32) float32 {
	if k&(1<<31) != 0 {
		return math.Float32frombits(k &^ (1 << 31))
	}
	return math.Float32frombits(^k)
}

// kthLargestKey returns the k-th largest of keys (1 <= k <= len(keys)),
// overwriting keys, by histograms: one pass counts the keys into 2^selBits
// buckets of equal width between the least and the greatest, the bucket
// holding the k-th is found from the top, and the keys in it are selected
// from the same way, until a bucket holds one value. Unlike quickselect it
// has no branch on the keys' order, which on the coarse scores (in the order
// the scan meets them) mispredicts about every other comparison: ~8 ns a
// score against ~2 here. With bound it returns after the first pass the
// bucket's least possible key, at most the k-th largest.
func kthLargestKey(keys []uint32, k int, bound bool, hist *[1 << selBits]int32) uint32 {
	lo, hi := keys[0], keys[0]
	for _, x := range keys {
		lo, hi = min(lo, x), max(hi, x)
	}
	want := int32(k)
	for lo < hi {
		shift := max(bits.Len32(hi-lo)-selBits, 0)
		clear(hist[:])
		for _, x := range keys {
			hist[((x-lo)>>shift)&(1<<selBits-1)]++
		}
		b := (hi - lo) >> shift
		for want > hist[b] {
			want -= hist[b]
			b--
		}
		bLo := lo + b<<shift
		if shift == 0 || bound {
			return bLo
		}
		bHi := hi
		if w := uint32(1)<<shift - 1; hi-bLo > w {
			bHi = bLo + w
		}
		// The keys in that bucket, to the front (branch-free).
		n := 0
		for _, x := range keys {
			keys[n] = x
			if x-bLo <= bHi-bLo {
				n++
			}
		}
		keys = keys[:n]
		lo, hi = bLo, bHi
	}
	return lo
}

// kthLargest returns the k-th largest of xs (1 <= k <= len(xs)),
// reordering xs.
func kthLargest(xs []float32, k int) float32 {
	lo, hi, want := 0, len(xs)-1, k-1 // want: index in descending order
	for lo < hi {
		// Median of three as the pivot, then a Hoare partition into
		// [lo, j] >= pivot >= [j+1, hi].
		mid := lo + (hi-lo)/2
		a, b, c := xs[lo], xs[mid], xs[hi]
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := lo-1, hi+1
		for {
			for i++; xs[i] > pivot; i++ {
			}
			for j--; xs[j] < pivot; j-- {
			}
			if i >= j {
				break
			}
			xs[i], xs[j] = xs[j], xs[i]
		}
		if want <= j {
			hi = j
		} else {
			lo = j + 1
		}
	}
	return xs[want]
}

// exactLocked scores by their int8 codes, as the exact scan does, the
// coarse candidates cs (in the order the scan met them, so a block's are
// together), overwriting them, and returns them. It uses buf's block
// arrays, free once the scan is over. The caller holds the read lock.
func (ix *Index) exactLocked(q *query, cs []cand, buf *scanBuf) []cand {
	local, dots := &buf.ids, &buf.dots
	for i := 0; i < len(cs); {
		b := cs[i].id >> blockShift
		n := 0
		for j := i; j < len(cs) && cs[j].id>>blockShift == b && n < blockSize; j++ {
			local[n] = cs[j].id & (blockSize - 1)
			n++
		}
		blk := ix.blocks[b]
		ix.dots(q.codes, blk.codes, ix.dim, local[:n], dots[:n])
		for j := range n {
			s := local[j]
			cs[i+j] = cand{id: b<<blockShift | s, dot: dots[j], p: score(dots[j], blk.scales[s], q.scale)}
		}
		i += n
	}
	return cs
}
