package textindex

import (
	"math"
	"slices"
)

// SearchPending returns what SearchQuery(q, k, allow') would return once
// the index also held doc under id (Add(id, text) with doc = Analyze(text)),
// where allow' admits id when admit says so and asks allow about the
// others: the same hits, with the same scores, in the same order. It lets
// a caller rank against a document it is about to add while the add must
// wait (the update check of a store ranks the memory's own text among the
// others while the memory is written to the database). ok is false, and
// nothing is searched, when id is already in the index or k <= 0.
//
// The scores are SearchQuery's to the bit: every term weighs what it will
// weigh with doc counted (one more document, doc's length in the total,
// one more for each of doc's terms, a term of doc alone included), and
// doc's own score is summed term by term in the query's order, as the
// posting walk sums it. allow runs under the index's read lock: it must not call into the index.
func (ix *Index) SearchPending(q Query, k int, allow func(DocID) bool, id DocID, doc Query, admit bool) (hits []Hit, ok bool) {
	if k <= 0 || id > MaxDocID {
		return nil, false
	}
	dl := 0
	for _, c := range doc.counts {
		dl += c
	}
	ix.mu.RLock()
	if ix.isLive(id) {
		ix.mu.RUnlock()
		return nil, false
	}
	// The collection once doc is in it (collectionLocked after the Add):
	// doc is counted, so nothing is set aside that is not.
	n := float64(ix.nDocs + 1 - ix.nAside)
	total := ix.totalLen + uint64(dl) - ix.asideLen
	var sc scorer
	var own []int // by position in sc: doc's frequency of the term, 0: none
	idfs := q.idfs(n, func(t string) float64 {
		df := 0
		if tid, ok := ix.dict[t]; ok {
			df = len(ix.terms[tid].postings) - int(ix.asideDF[tid])
		}
		if slices.Contains(doc.terms, t) {
			df++
		}
		return float64(df)
	})
	for i, t := range q.terms {
		tid, indexed := ix.dict[t]
		tf := 0
		if j := slices.Index(doc.terms, t); j >= 0 {
			tf = doc.counts[j]
		}
		if !indexed && tf == 0 {
			continue
		}
		if !indexed {
			tid = noTerm
		}
		sc.ids = append(sc.ids, tid)
		sc.weights = append(sc.weights, float64(q.counts[i])*idfs[i]*(ix.opts.K1+1))
		own = append(own, tf)
	}
	if len(sc.ids) == 0 {
		ix.mu.RUnlock()
		return nil, true
	}
	avgdl := float64(total) / n
	sc.c1 = ix.opts.K1 * (1 - ix.opts.B)
	if avgdl > 0 {
		sc.c2 = ix.opts.K1 * ix.opts.B / avgdl
	}
	var mine float64
	for j, tf := range own {
		if tf > 0 {
			mine += sc.contribution(sc.weights[j], uint32(min(tf, maxTF)), uint32(dl))
		}
	}
	admits := func(d DocID) bool {
		if d == id {
			return admit
		}
		return allow == nil || allow(d)
	}
	buf := ix.getBuf(max(len(ix.docLen), int(id)+1))
	cands, n2, _ := ix.pruneWalkLocked(&sc, buf, k, admits, id, mine)
	ix.mu.RUnlock()

	if mine > 0 {
		buf.acc[id] = mine
		cands = append(cands, id)
	}
	hits = topK(buf.hits, cands, buf.acc, k, admits)
	touched := buf.touched[:n2]
	if mine > 0 {
		touched = append(touched, id)
	}
	buf.touched = touched
	out := slices.Clone(hits)
	buf.hits = hits
	ix.putBuf(buf)
	return out, true
}

// noTerm stands in a scorer for a term no posting holds yet.
const noTerm = math.MaxUint32

// Equal reports whether q and o are the same analysed query.
func (q Query) Equal(o Query) bool {
	return slices.Equal(q.terms, o.terms) && slices.Equal(q.counts, o.counts) && slices.Equal(q.alt, o.alt) && slices.Equal(q.scale, o.scale)
}
