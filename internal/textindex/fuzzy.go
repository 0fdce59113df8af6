package textindex

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// Typos: a query word no document holds ("meetng", "therapuetic") finds
// the words one or two letters away that documents do hold.

// fuzzyMax is how many alternatives an unknown query term gets.
const fuzzyMax = 3

// Fuzzy returns q with, for each of its terms that no document holds and
// that is long enough to be a misspelt word (five letters or more, not a
// number), up to three terms of the index as its alternatives
// (WithAlternatives): those one edit away (two from eight letters; a swap
// of neighbouring letters is one), or of which it is the stem with at
// most two more letters ("meetng" and "meet"). Closest first, then the
// most frequent. The first letter must agree: people rarely mistype it,
// and it keeps the scan short.
func (ix *Index) Fuzzy(q Query) Query {
	out := q
	for i, t := range q.terms {
		if q.alt != nil && q.alt[i] > 0 {
			continue
		}
		n := utf8.RuneCountInString(t)
		if n < 5 || isDigits(t) {
			continue
		}
		limit := 1
		if n >= 8 {
			limit = 2
		}
		ix.mu.RLock()
		if _, ok := ix.dict[t]; ok {
			ix.mu.RUnlock()
			continue
		}
		var found []fuzzyCand
		tm := byteMask(t)
		for d := -3; d <= limit; d++ {
			if len(t)+d <= 0 {
				continue
			}
			// A term within limit edits differs from t in at most
			// 2·limit bits of the byte masks; a stem of t has no byte t
			// lacks (shapeList). Only those are read.
			edits := d >= -limit
			stem := d < 0 && len(t)+d >= max(4, 2-d)
			if len(t)+d >= 255 { // one bucket for every longer length
				edits, stem = true, d < 0
			}
			if !edits && !stem {
				continue
			}
			sl := ix.byShape[shape(t[0], len(t)+d)]
			for j, m := range sl.masks {
				if !(edits && bits.OnesCount32(m^tm) <= 2*limit || stem && m&^tm == 0) {
					continue
				}
				id := sl.ids[j]
				s := ix.terms[id].name
				dist := editDistance(t, s, limit)
				if dist > limit && d < 0 && len(s) >= max(4, 2-d) && t[:len(s)] == s {
					dist = limit // "meetng" holds the stem "meet", "adoptoin" "adopt"
				}
				if dist <= limit {
					found = append(found, fuzzyCand{s, dist, len(ix.terms[id].postings)})
				}
			}
		}
		ix.mu.RUnlock()
		if len(found) == 0 {
			continue
		}
		out = out.WithAlternatives(t, fuzzyAlternatives(found))
	}
	return out
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// editDistance is the optimal-string-alignment distance of a and b by
// bytes (an adjacent swap counts one), or limit+1 once it must exceed
// limit.
func editDistance(a, b string, limit int) int {
	if abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	var buf [3][40]int
	if len(b)+1 > len(buf[0]) {
		return limit + 1
	}
	prev2, prev, cur := buf[0][:len(b)+1], buf[1][:len(b)+1], buf[2][:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// shape is a term's bucket in byShape: its first byte and its length.
func shape(first byte, n int) uint16 { return uint16(first)<<8 | uint16(min(n, 255)) }

// shapeList is one bucket of byShape: term IDs and each term's byteMask.
// byteMask(a) and byteMask(b) differ in at most 2·e bits when a and b are
// e edits apart (a substitution drops one byte and brings one; an insert
// or a delete one; a swap none), and a prefix's mask has no bit the whole
// word's lacks: Fuzzy reads a term's name only when its mask allows it.
type shapeList struct {
	ids   []uint32
	masks []uint32
}

// byteMask has bit b-'a' for each letter a–z of s, and one of the six bits
// above for any other byte.
func byteMask(s string) uint32 {
	var m uint32
	for i := 0; i < len(s); i++ {
		if b := s[i]; b >= 'a' && b <= 'z' {
			m |= 1 << (b - 'a')
		} else {
			m |= 1 << (26 + b%6)
		}
	}
	return m
}

func (ix *Index) shapeAddLocked(id uint32, name string) {
	if ix.byShape == nil {
		ix.byShape = map[uint16]shapeList{}
	}
	k := shape(name[0], len(name))
	sl := ix.byShape[k]
	sl.ids = append(sl.ids, id)
	sl.masks = append(sl.masks, byteMask(name))
	ix.byShape[k] = sl
}

func (ix *Index) shapeRemoveLocked(id uint32, name string) {
	k := shape(name[0], len(name))
	sl := ix.byShape[k]
	if i := slices.Index(sl.ids, id); i >= 0 {
		last := len(sl.ids) - 1
		sl.ids[i], sl.masks[i] = sl.ids[last], sl.masks[last]
		sl.ids, sl.masks = sl.ids[:last], sl.masks[:last]
		ix.byShape[k] = sl
	}
}

// DocFreq is how many documents hold the term word analyses to (its first
// term, stemmed as the index stems; 0 when it has none): how common a word
// is in this index.
func (ix *Index) DocFreq(word string) int {
	q := ix.Analyze(word)
	if q.Empty() {
		return 0
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if id, ok := ix.dict[q.terms[0]]; ok {
		return len(ix.terms[id].postings)
	}
	return 0
}

// Unknown is the share of the query's ideal score (IdealScore) that
// falls to terms no document holds and that found no alternative: words
// the index has never seen ("what is my cousin Rachel's number?" in a
// memory that names no Rachel). 0 for an empty query.
func (ix *Index) Unknown(q Query) float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n, _, counted := ix.collectionLocked()
	var unknown, total float64
	for i, t := range q.terms {
		if q.alt != nil && q.alt[i] > 0 {
			continue
		}
		df := 0.0
		if id, ok := ix.dict[t]; ok {
			df = ix.dfLocked(id, counted)
		}
		w := float64(q.counts[i]) * math.Log(1+(n-df+0.5)/(df+0.5))
		total += w
		if df == 0 && !ix.knownAlternativeLocked(q, i, counted) {
			unknown += w
		}
	}
	if total == 0 {
		return 0
	}
	return unknown / total
}

// knownAlternativeLocked reports whether the term at i has an
// alternative that is not a synonym and that some document holds: a
// variant no memory holds either ("mam" for an unknown "mother") leaves
// the word unknown.
func (ix *Index) knownAlternativeLocked(q Query, i int, counted bool) bool {
	for j, a := range q.alt {
		if a == i+1 && q.scaleOf(j) == 0 {
			if id, ok := ix.dict[q.terms[j]]; ok && ix.dfLocked(id, counted) > 0 {
				return true
			}
		}
	}
	return false
}

// fuzzyCand is a known term close to an unknown word: its edit distance
// and its document frequency.
type fuzzyCand struct {
	term string
	dist int
	df   int
}

// fuzzyAlternatives is the unknown word's alternatives among found: the
// closest first, then the most frequent, then by spelling, at most
// fuzzyMax of them.
func fuzzyAlternatives(found []fuzzyCand) Query {
	slices.SortFunc(found, func(a, b fuzzyCand) int {
		if c := cmp.Compare(a.dist, b.dist); c != 0 {
			return c
		}
		if c := cmp.Compare(b.df, a.df); c != 0 {
			return c
		}
		return cmp.Compare(a.term, b.term)
	})
	var alts Query
	for _, c := range found[:min(len(found), fuzzyMax)] {
		alts.terms = append(alts.terms, c.term)
		alts.counts = append(alts.counts, 1)
	}
	return alts
}
