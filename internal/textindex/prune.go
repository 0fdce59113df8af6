package textindex

import (
	"slices"
)

// A store's update check searches with the new memory's whole text as the
// query (SearchPending): a dozen or more terms, a few of them in a large
// share of the collection, for the best nine documents. Walking every
// posting of those common terms is most of the search (about 400k postings
// a text at 100k memories), while their weight is small: once the rare
// terms are walked, the ninth best partial score is usually more than all
// the common terms together could add to a document. pruneWalkLocked walks
// the terms from the shortest posting list up and stops there (a term-at-a-
// time MaxScore); the documents that can still reach the top are then
// scored exactly from their forward lists, term by term in the query's
// order as walkLocked sums, so scores keep their bits and ties their order.

// pruneMargin widens the bound of what unwalked terms can add, so that the
// rounding of a sum of bounds never makes it smaller than a sum of the
// contributions it bounds.
const pruneMargin = 1 + 1e-9

// pruneWalkLocked adds up postings in buf.acc as walkLocked does, the
// shortest lists first and perhaps not the longest, then gives the
// admitted documents that may still be among the k best an exact score
// (in buf.acc). extra, when extraScore is above zero, is a document no
// posting holds yet and extraScore its exact score (SearchPending's own
// document). It returns those documents, a superset of the k best
// admitted ones (extra left out), n, the number of documents touched
// (buf.touched[:n], to be cleared), and whether postings were left
// unwalked. admits runs under the read lock.
func (ix *Index) pruneWalkLocked(sc *scorer, buf *searchBuf, k int, admits func(DocID) bool, extra DocID, extraScore float64) (cands []uint32, n int, pruned bool) {
	if k <= 0 {
		n = ix.walkLocked(sc, buf)
		return buf.touched[:n], n, false
	}
	// The terms by posting list length, and the most each can add.
	order := make([]int, 0, len(sc.ids))
	total := 0
	for i, tid := range sc.ids {
		if tid != noTerm {
			order = append(order, i)
			total += len(ix.terms[tid].postings)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return len(ix.terms[sc.ids[a]].postings) - len(ix.terms[sc.ids[b]].postings)
	})
	// rest[j]: the most the terms order[j:] can add to one document. A
	// contribution w*t/(t+c1+c2*dl) grows with t and shrinks with dl >= 0.
	rest := make([]float64, len(order)+1)
	for j := len(order) - 1; j >= 0; j-- {
		i := order[j]
		t := float64(ix.terms[sc.ids[i]].maxTF)
		rest[j] = rest[j+1] + sc.weights[i]*t/(t+sc.c1)
	}
	for j := range rest {
		rest[j] *= pruneMargin
	}

	acc, docLen := buf.acc, ix.docLen
	touched := buf.touched[:cap(buf.touched)]
	walked := 0
	var heap []Hit
	// theta: the k-th best admitted partial score (partial scores only
	// grow; extra's is final), lowered by the rounding a sum in another
	// order may have; -1 while fewer than k are admitted.
	kth := func() float64 {
		heap = topK(heap, touched[:n], acc, k, admits)
		if extraScore > 0 && admits(extra) {
			e := Hit{ID: extra, Score: extraScore}
			at, _ := slices.BinarySearchFunc(heap, e, compareHits)
			heap = slices.Insert(heap, at, e)
			heap = heap[:min(len(heap), k)]
		}
		if len(heap) < k {
			return -1
		}
		return heap[k-1].Score / pruneMargin
	}
	cut := len(order)
	theta := -1.0
	for j, i := range order {
		tid := sc.ids[i]
		w := sc.weights[i]
		postings := ix.terms[tid].postings
		if need := min(n+len(postings), len(docLen)+1); need > len(touched) {
			touched = slices.Grow(touched[:n], need-n+need/4)
			touched = touched[:cap(touched)]
		}
		for _, p := range postings {
			d := p & docMask
			s := sc.contribution(w, p>>docBits, docLen[d])
			touched[n] = d
			if acc[d] == 0 {
				n++
			}
			acc[d] += s
		}
		walked += len(postings)
		if j+1 == len(order) || total-walked <= n {
			continue // the rest costs less to walk than a check
		}
		if theta = kth(); theta > rest[j+1] {
			cut = j + 1
			break
		}
	}
	buf.touched = touched
	if cut == len(order) {
		theta = kth() // every term walked, in another order than the query's
	}
	// A document not touched scores at most rest[cut] < theta, a touched
	// one at most its partial score plus rest[cut]. Those that may reach
	// theta are scored again, term by term in the query's order, as
	// walkLocked sums (so the sums keep their bits).
	r := rest[cut]
	cands = make([]uint32, 0, 2*k)
	for _, d := range touched[:n] {
		if acc[d]+r < theta || !admits(d) {
			continue
		}
		fwd, dl := ix.fwd[d], docLen[d]
		var sum float64
		for i, tid := range sc.ids {
			lo, found := slices.BinarySearch(fwd, tid)
			if !found {
				continue
			}
			hi := lo + 1
			for hi < len(fwd) && fwd[hi] == tid {
				hi++
			}
			sum += sc.contribution(sc.weights[i], uint32(min(hi-lo, maxTF)), dl)
		}
		acc[d] = sum
		cands = append(cands, d)
	}
	return cands, n, cut < len(order)
}
