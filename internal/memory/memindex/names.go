package memindex

import "github.com/infmem/infmem/internal/textindex"

// Names in chat are spelt several ways ("Muhammad" / "Muhhamed",
// "Carolline" / "Caroline") and people are named by first name or full
// name. A query names a person when one of its words matches a word of the
// person's name closely enough.

// nameWordsMatch reports whether query word q may stand for name word n
// (both folded, unstemmed): the same word; for words of five letters or
// more, one edit apart (two from eight letters), or with the same
// consonant skeleton (vowels and doubled letters dropped, at least three
// consonants).
func nameWordsMatch(q, n string) bool {
	if q == n {
		return true
	}
	lq, ln := len([]rune(q)), len([]rune(n))
	if lq < 5 || ln < 5 {
		return false
	}
	limit := 1
	if min(lq, ln) >= 8 {
		limit = 2
	}
	if abs(lq-ln) <= limit && editDistance(q, n, limit) <= limit {
		return true
	}
	sq, sn := skeleton(q), skeleton(n)
	return len(sq) >= 3 && sq == sn && q[0] == n[0]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// skeleton is a word's consonants without h, a letter repeated after a
// vowel or itself counted once ("muhhamed" and "muhammad" are both "mmd").
func skeleton(w string) string {
	out := make([]rune, 0, len(w))
	var last rune
	for _, r := range w {
		switch r {
		case 'a', 'e', 'i', 'o', 'u', 'y', 'h':
			last = r
			continue
		}
		if r != last {
			out = append(out, r)
		}
		last = r
	}
	return string(out)
}

// editDistance is the optimal-string-alignment distance of a and b (an
// adjacent swap counts one), or limit+1 once it must exceed limit.
func editDistance(a, b string, limit int) int {
	x, y := []rune(a), []rune(b)
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}

// nameWords are the words of a person's name as nameWordsMatch compares them.
func nameWords(name string) []string { return textindex.Words(name) }
