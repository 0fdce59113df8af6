package textindex

import (
	"cmp"
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

// rescoreCost is what scoring one document from its forward list costs
// (a merge of the query's terms with it), in postings walked.
func rescoreCost(terms int) int { return 32 + 4*terms }

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
	walked, checked := 0, 0
	var heap []Hit
	var may []uint32 // the documents that may still reach theta
	// theta: the k-th best admitted partial score (partial scores only
	// grow; extra's is final), lowered by the rounding a sum in another
	// order may have; -1 while fewer than k are admitted.
	kth := func(touched []uint32) float64 {
		heap = topK(heap, touched, acc, k, admits)
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
		postings := ix.terms[sc.ids[i]].postings
		touched, n = addPostings(sc, sc.weights[i], postings, acc, docLen, touched, n)
		walked += len(postings)
		left := total - walked
		if j+1 == len(order) || left <= n || walked < 2*checked {
			continue // the rest costs less to walk than a check (or checks stopped)
		}
		checked = walked
		if theta = kth(touched[:n]); theta < 0 {
			// Fewer than k admitted (a narrow filter): checks would
			// cost more than they may save.
			checked = total
			continue
		}
		if theta <= rest[j+1] {
			continue
		}
		// Stop when scoring the documents that may still reach theta
		// costs less than walking the rest.
		low, most := theta-rest[j+1], left/rescoreCost(len(sc.ids))
		may = may[:0]
		for _, d := range touched[:n] {
			if acc[d] >= low {
				if may = append(may, d); len(may) > most {
					break
				}
			}
		}
		if len(may) <= most {
			cut = j + 1
			break
		}
	}
	buf.touched = touched
	if cut == len(order) {
		// Every term walked, in another order than the query's.
		theta = kth(touched[:n])
		may = may[:0]
		for _, d := range touched[:n] {
			if acc[d] >= theta {
				may = append(may, d)
			}
		}
	}
	// A document not touched scores at most rest[cut] < theta, a touched
	// one at most its partial score plus rest[cut]: those in may can
	// still reach theta. They are scored again, term by term in the
	// query's order, as walkLocked sums (so the sums keep their bits):
	// the query's terms by id merged with the document's forward list.
	byID := make([]int, 0, len(sc.ids))
	for i, tid := range sc.ids {
		if tid != noTerm {
			byID = append(byID, i)
		}
	}
	slices.SortFunc(byID, func(a, b int) int { return cmp.Compare(sc.ids[a], sc.ids[b]) })
	tfs := make([]uint32, len(sc.ids))
	cands = make([]uint32, 0, 2*k)
	for _, d := range may {
		if !admits(d) {
			continue
		}
		fwd := ix.fwd[d]
		x := 0
		for _, i := range byID {
			tid := sc.ids[i]
			for x < len(fwd) && fwd[x] < tid {
				x++
			}
			c := 0
			for x < len(fwd) && fwd[x] == tid {
				x++
				c++
			}
			tfs[i] = uint32(min(c, maxTF))
		}
		dl := docLen[d]
		var sum float64
		for i, tf := range tfs {
			if tf > 0 {
				sum += sc.contribution(sc.weights[i], tf, dl)
			}
		}
		acc[d] = sum
		cands = append(cands, d)
	}
	return cands, n, cut < len(order)
}
