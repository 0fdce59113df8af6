package vecindex

import "math"

// worse reports whether a ranks below b: lower score, or equal score and
// higher id.
func worse(a, b Hit) bool {
	return a.Score < b.Score || (a.Score == b.Score && a.ID > b.ID)
}

// compareHits orders by descending score, then ascending id.
func compareHits(a, b Hit) int {
	switch {
	case worse(b, a):
		return -1
	case worse(a, b):
		return 1
	}
	return 0
}

// topK keeps the k best hits offered in a min-heap whose root is the worst
// hit kept.
type topK struct {
	hits  []Hit
	k     int
	floor float32 // the root's score once the heap is full, else -Inf
}

func newTopK(buf []Hit, k int) topK {
	return topK{hits: buf[:0], k: k, floor: float32(math.Inf(-1))}
}

func (h *topK) offer(id uint32, s float32) {
	if s < h.floor {
		return // the common case once the heap is full: one compare
	}
	c := Hit{ID: id, Score: s}
	if len(h.hits) < h.k {
		h.hits = append(h.hits, c)
		h.up(len(h.hits) - 1)
	} else {
		if !worse(h.hits[0], c) {
			return
		}
		h.hits[0] = c
		h.down(0)
	}
	if len(h.hits) == h.k {
		h.floor = h.hits[0].Score
	}
}

func (h *topK) up(i int) {
	hs := h.hits
	for i > 0 {
		p := (i - 1) / 2
		if !worse(hs[i], hs[p]) {
			return
		}
		hs[i], hs[p] = hs[p], hs[i]
		i = p
	}
}

func (h *topK) down(i int) {
	hs := h.hits
	n := len(hs)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && worse(hs[r], hs[l]) {
			m = r
		}
		if !worse(hs[m], hs[i]) {
			return
		}
		hs[i], hs[m] = hs[m], hs[i]
		i = m
	}
}
