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
// best coarseKeep (at least 20·k) documents by the coarse score, and score
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
// set at 100k it was checked on. Below coarseMin candidates, for k above
// coarseMaxK, and where the CPU has no coarse kernel, searches stay exact.
const (
	coarseMin  = 20000
	coarseKeep = 2000
	coarsePerK = 20
	coarseMaxK = 100
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
	for i, c := range codes {
		x := float64(c)
		var u byte
		switch {
		case x < -t:
			u = 0
		case x < 0:
			u = 1
		case x < t:
			u = 2
		default:
			u = 3
		}
		r := i % 256
		out[i/256*64+r%64] |= u << (2 * (r / 64))
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

// checkCoarse panics unless every row the kernel will read lies inside
// plane and q covers the row: the assembly cannot check bounds itself.
func checkCoarse(q []int8, plane []byte, stride int, ids []uint32, out []int32) {
	_ = out[:len(ids)]
	if stride <= 0 || stride%64 != 0 || len(q) != 4*stride {
		panic("vecindex: coarse kernel called with a bad stride or query")
	}
	var hi uint32
	for _, id := range ids {
		hi = max(hi, id)
	}
	_ = plane[int(hi)*stride+stride-1]
}

// coarseQuery is a query's codes for the coarse pass: int8, padded with
// zeros to whole chunks, and their sum.
type coarseQuery struct {
	codes []int8
	sum   int32
}

// prepareCoarse quantises q (finite and nonzero: prepare accepted it) to
// int8 for the coarse pass.
func (ix *Index) prepareCoarse(q []float32) coarseQuery {
	m, _ := maxAbs(q)
	cq := coarseQuery{codes: make([]int8, 4*coarseStride(ix.dim))}
	for i, x := range q {
		c := int8(math.Round(float64(x) * 127 / m))
		cq.codes[i] = c
		cq.sum += int32(c)
	}
	return cq
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
// takes the coarse pass.
func (ix *Index) useCoarse(n int, scans []scanReq) bool {
	if ix.coarseDots == nil || n < ix.coarseMin {
		return false
	}
	for _, sr := range scans {
		if sr.k > coarseMaxK || sr.n < ix.coarseMin {
			return false
		}
	}
	return true
}

// coarseKeepFor is how many coarse candidates a request of k keeps.
func (ix *Index) coarseKeepFor(k int) int { return max(ix.coarseKeep, ix.coarsePerK*k) }

// coarseScanLocked ranks the documents of union in the blocks it claims
// from next by their coarse score, and returns for each request the best
// coarseKeepFor(k) it admits. The caller holds the read lock.
func (ix *Index) coarseScanLocked(cq *coarseQuery, reqs []scanReq, union *Filter, next *atomic.Int64) [][]Hit {
	buf, _ := ix.bufs.Get().(*scanBuf)
	if buf == nil {
		buf = new(scanBuf)
	}
	hs := make([]topK, len(reqs))
	for i, r := range reqs {
		keep := ix.coarseKeepFor(r.k)
		hs[i] = newTopK(make([]Hit, 0, keep), keep)
	}
	cs := coarseStride(ix.dim)
	for {
		b := int(next.Add(1) - 1)
		if b >= len(ix.blocks) {
			break
		}
		blk := ix.blocks[b]
		if blk == nil {
			continue
		}
		ids := buf.ids[:0]
		for w, live := range blk.live {
			if union != nil {
				live &= union.word(b*blockWords + w)
			}
			for ; live != 0; live &= live - 1 {
				ids = append(ids, uint32(w*64+bits.TrailingZeros64(live)))
			}
		}
		if len(ids) == 0 {
			continue
		}
		dots := buf.dots[:len(ids)]
		ix.coarseDots(cq.codes, blk.coarse, cs, ids, dots)
		base := uint32(b) << blockShift
		for i := range hs {
			r, h := &reqs[i], &hs[i]
			for j, s := range ids {
				p := float32(2*dots[j]-3*cq.sum) * blk.cw[s]
				if p < h.floor {
					continue
				}
				if r.f != nil && !r.f.Has(base|s) {
					continue
				}
				h.offer(base|s, p)
			}
		}
	}
	ix.bufs.Put(buf)
	out := make([][]Hit, len(reqs))
	for i := range hs {
		out[i] = hs[i].hits
	}
	return out
}

// exactLocked scores the documents of hits (coarse candidates) by their
// int8 codes, as the exact scan does. The caller holds the read lock.
func (ix *Index) exactLocked(q *query, hits []Hit) []cand {
	ids := make([]uint32, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	slices.Sort(ids)
	out := make([]cand, 0, len(ids))
	local := make([]uint32, 0, blockSize)
	dots := make([]int32, blockSize)
	for i := 0; i < len(ids); {
		b := ids[i] >> blockShift
		local = local[:0]
		for ; i < len(ids) && ids[i]>>blockShift == b; i++ {
			local = append(local, ids[i]&(blockSize-1))
		}
		blk := ix.blocks[b]
		ix.dots(q.codes, blk.codes, ix.dim, local, dots[:len(local)])
		for j, s := range local {
			out = append(out, cand{id: b<<blockShift | s, dot: dots[j], p: score(dots[j], blk.scales[s], q.scale)})
		}
	}
	return out
}

// mergeCoarse returns the best keep of the workers' coarse candidates.
func mergeCoarse(parts [][]Hit, keep int) []Hit {
	var all []Hit
	for _, p := range parts {
		all = append(all, p...)
	}
	if len(all) <= keep {
		return all
	}
	slices.SortFunc(all, compareHits)
	return all[:keep]
}
