package textindex

import (
	"math"
	"slices"
)

// worse reports whether a ranks below b: lower score, or equal score and
// higher ID.
func worse(a, b Hit) bool {
	return a.Score < b.Score || (a.Score == b.Score && a.ID > b.ID)
}

// topK selects the k best allowed documents among touched, scored by acc,
// using h as storage, and returns them best first. It keeps a min-heap whose
// root is the worst hit kept so far; a candidate that cannot beat the root is
// dropped before allow is consulted, so a costly filter runs only for
// documents that would make the cut.
func topK(h []Hit, touched []uint32, acc []float64, k int, allow func(DocID) bool) []Hit {
	h = h[:0]
	floor := math.Inf(-1) // score of the heap's root once the heap is full
	for _, d := range touched {
		s := acc[d]
		if s < floor {
			continue // the common case once the heap has filled: one compare
		}
		c := Hit{ID: d, Score: s}
		full := len(h) == k
		if full && !worse(h[0], c) {
			continue
		}
		if allow != nil && !allow(d) {
			continue
		}
		if !full {
			h = append(h, c)
			siftUp(h, len(h)-1)
		} else {
			h[0] = c
			siftDown(h, 0)
		}
		if len(h) == k {
			floor = h[0].Score
		}
	}
	slices.SortFunc(h, compareHits)
	return h
}

func siftUp(h []Hit, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !worse(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func siftDown(h []Hit, i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && worse(h[r], h[l]) {
			m = r
		}
		if !worse(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
