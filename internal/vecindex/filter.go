package vecindex

import (
	"math/bits"
	"slices"
)

// Filter is a set of document ids, kept as a bitmap: the pre-filter of a
// search. Build one per query (or keep one per scope and reuse it); the zero
// value is an empty set. A Filter is not safe for concurrent modification,
// but any number of searches may read one at the same time.
type Filter struct {
	words []uint64
}

// NewFilter returns an empty filter sized for ids below n, so that adding
// them does not reallocate.
func NewFilter(n int) *Filter {
	return &Filter{words: make([]uint64, 0, (max(n, 0)+63)/64)}
}

// Add puts id in the set.
func (f *Filter) Add(id uint32) {
	w := int(id >> 6)
	if w >= len(f.words) {
		if w < cap(f.words) {
			f.words = f.words[:w+1]
		} else {
			f.words = append(f.words, make([]uint64, w+1-len(f.words))...)
		}
	}
	f.words[w] |= 1 << (id & 63)
}

// Remove takes id out of the set.
func (f *Filter) Remove(id uint32) {
	if w := int(id >> 6); w < len(f.words) {
		f.words[w] &^= 1 << (id & 63)
	}
}

// Has reports whether id is in the set.
func (f *Filter) Has(id uint32) bool {
	w := int(id >> 6)
	return w < len(f.words) && f.words[w]&(1<<(id&63)) != 0
}

// Len returns the number of ids in the set.
func (f *Filter) Len() int {
	n := 0
	for _, w := range f.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// Reset empties the set, keeping its storage for reuse.
func (f *Filter) Reset() {
	clear(f.words)
	f.words = f.words[:0]
}

// word returns the i-th 64-id word of the set.
func (f *Filter) word(i int) uint64 {
	if i < len(f.words) {
		return f.words[i]
	}
	return 0
}

// or returns the union of f and g, a new filter.
func (f *Filter) or(g *Filter) *Filter {
	a, b := f.words, g.words
	if len(a) < len(b) {
		a, b = b, a
	}
	u := &Filter{words: slices.Clone(a)}
	for i, w := range b {
		u.words[i] |= w
	}
	return u
}

// FilterOf returns the set whose i-th word (ids 64·i to 64·i+63, lowest id
// in the lowest bit) is words[i]; the set keeps words.
func FilterOf(words []uint64) *Filter {
	return &Filter{words: words}
}

// sameSet reports whether f and g hold the same ids (nil, every document,
// only equals nil).
func sameSet(f, g *Filter) bool {
	if f == nil || g == nil {
		return f == g
	}
	if f == g {
		return true
	}
	for i := range max(len(f.words), len(g.words)) {
		if f.word(i) != g.word(i) {
			return false
		}
	}
	return true
}
