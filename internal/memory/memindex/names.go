package memindex

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/textindex"
)

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

// roleNames are speakers that are roles or labels, not people ("user",
// "assistant"; speakerPrefix reads "Note: …" as said by "Note").
var roleNames = map[string]bool{
	"user": true, "assistant": true, "system": true, "human": true, "ai": true, "bot": true,
	"claude": true, "me": true, "you": true, "tool": true, "note": true, "notes": true,
	"update": true, "summary": true, "reminder": true, "todo": true, "important": true,
	"question": true, "answer": true, "tip": true, "warning": true, "fyi": true,
}

// NamesAbsent reports whether words (a query's words, textindex.Words)
// name someone the index knows as a speaker (who said any memory, in any
// scope) while none of ids was said by anyone they name and none holds a
// word of those names: the query is about people these memories are not
// about ("what did Tim say…" over a conversation Tim is not in).
func (ix *Index) NamesAbsent(words []string, ids []bson.ObjectID) bool {
	if len(words) == 0 || len(ids) == 0 {
		return false
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	named := map[uint32]bool{}
	var look []string
	for sp, name := range ix.speakers.names {
		nws := nameWords(name)
		if sp == 0 || len(nws) == 0 || roleNames[nws[0]] {
			continue
		}
		for i, n := range nws {
			if i > 0 && len(n) < 4 || ix.text.Analyze(n).Empty() {
				continue // a short surname, or a name that is a stopword ("May")
			}
			for _, w := range words {
				if nameWordsMatch(w, n) {
					named[uint32(sp)] = true
					look = append(look, n, w)
				}
			}
		}
	}
	if len(named) == 0 {
		return false
	}
	slots := make([]uint32, 0, len(ids))
	for _, id := range ids {
		if s, ok := ix.byID[id]; ok {
			if named[ix.items[s].speaker] {
				return false
			}
			slots = append(slots, s)
		}
	}
	if len(slots) == 0 {
		return false
	}
	for _, score := range ix.text.ScoreQuery(ix.text.Analyze(strings.Join(look, " ")), slots) {
		if score > 0 {
			return false
		}
	}
	return true
}
