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

// labelNames are labels a note starts with ("Lesson: …", the form of a
// lesson; "Idea: …", "Plan: …"), which speakerPrefix reads as speakers.
// The ranking still lifts such notes for a query with the word (a
// question about ideas, the "Idea: …" notes), but the word names no one:
// "when is Leo's swimming lesson?" read as naming the speaker "Lesson"
// raised the relevance bar to 0.9 (recall's namesAbsentBar) over every
// result without the word.
var labelNames = map[string]bool{
	"lesson": true, "lessons": true, "idea": true, "ideas": true, "plan": true, "plans": true,
	"goal": true, "goals": true, "decision": true, "preference": true, "fact": true, "task": true,
}

// Grades of nameMatch.
const (
	nameOther = iota // another word
	nameClose        // a typo away ("jhon" for "john", "tim" for "tem")
	nameSame         // the name as written, but for doubled letters or a possessive "s"
)

// nameMatch grades how closely query word q stands for name word n (both
// folded, unstemmed). What nameWordsMatch accepts is close; for the name
// of a person (not a role such as "user"), typed chat adds: letters
// doubled or not count once ("jonn" and "jon", "joohn" and "john" are the
// same name); a possessive without its apostrophe ("melanies", "nates")
// is the name; and, the first letter agreeing, a word of four letters one
// edit from a name of five ("maia" for "maria"), or a word of three or
// four letters a swap of neighbouring letters ("jhon") or one vowel for
// another ("tim" for "tem") from the name, are close. Close matches
// between short words are also common words ("note" and "nate"):
// wordNamesLocked checks those against the memories.
func nameMatch(q, n string, role bool) int {
	if q == n {
		return nameSame
	}
	if role {
		if nameWordsMatch(q, n) {
			return nameClose
		}
		return nameOther
	}
	if len(q) > len(n) && len(n) >= 3 && strings.HasSuffix(q, "s") && !strings.HasSuffix(n, "s") {
		if g := nameMatch(q[:len(q)-1], n, false); g != nameOther {
			return g
		}
	}
	a, b := []rune(undouble(q)), []rune(undouble(n))
	if len(a) < 3 || len(b) < 3 {
		return nameOther
	}
	if string(a) == string(b) {
		return nameSame
	}
	if nameWordsMatch(q, n) || nameWordsMatch(string(a), string(b)) {
		return nameClose
	}
	if a[0] != b[0] {
		return nameOther
	}
	switch la, lb := len(a), len(b); {
	case la == lb && la <= 4:
		// One vowel for another, or two neighbours swapped.
		diff := -1
		for i := range a {
			if a[i] != b[i] {
				if diff >= 0 {
					if i == diff+1 && a[diff] == b[i] && a[i] == b[diff] && string(a[i+1:]) == string(b[i+1:]) {
						return nameClose
					}
					return nameOther
				}
				diff = i
			}
		}
		if diff > 0 && isVowel(a[diff]) && isVowel(b[diff]) {
			return nameClose
		}
	case abs(la-lb) == 1 && min(la, lb) == 4:
		if editDistance(string(a), string(b), 1) <= 1 {
			return nameClose
		}
	}
	return nameOther
}

// shortName reports whether a close nameMatch of q and n rests on a word
// of fewer than five letters (one that is common words' length).
func shortName(q, n string) bool {
	return min(len([]rune(undouble(q))), len([]rune(undouble(n)))) < 5
}

func isVowel(r rune) bool { return strings.ContainsRune("aeiouy", r) }

// undouble is w with each run of one letter written once ("joohn" is
// "john", "joannna" "joana").
func undouble(w string) string {
	out := make([]rune, 0, len(w))
	for _, r := range w {
		if len(out) == 0 || out[len(out)-1] != r {
			out = append(out, r)
		}
	}
	return string(out)
}

// commonWordShare: a short query word that as many memories hold as this
// share of those that name a person or were said by them is a word of its
// own, not that name misspelt ("note" beside "Nate"): a misspelt name is
// rare in the memories, a word people write is not.
const commonWordShare = 0.005

// wordNamesLocked returns the speakers query word w names and the name
// words it matched: those whose names it matches best (nameMatch). A word
// only close to two different names, or to a short name while the
// memories use it as a word of its own (commonWordShare), names no one.
// people leaves out roles ("user") and names that are stopwords ("May");
// otherwise roles are matched as nameWordsMatch matches them. people
// also leaves out labels (labelNames).
func (ix *Index) wordNamesLocked(w string, people bool) (ids []uint32, names []string) {
	best, dfw := nameOther, -1
	for sp, name := range ix.speakers.names {
		nws := nameWords(name)
		if sp == 0 || len(nws) == 0 {
			continue
		}
		role := roleNames[nws[0]]
		if people && (role || labelNames[nws[0]]) {
			continue
		}
		for i, n := range nws {
			if i > 0 && len(n) < 4 || people && ix.text.Analyze(n).Empty() {
				continue // a short surname, or a name that is a stopword
			}
			g := nameMatch(w, n, role)
			if g < best || g == nameOther {
				continue
			}
			if g == nameClose && shortName(w, n) {
				if dfw < 0 {
					dfw = ix.text.DocFreq(w)
				}
				said := 0
				if sp < len(ix.tally.perSpeaker) {
					said = ix.tally.perSpeaker[sp]
				}
				if float64(dfw) >= commonWordShare*float64(said+ix.text.DocFreq(n)) {
					continue
				}
			}
			if g > best {
				best, ids, names = g, ids[:0], names[:0]
			}
			ids, names = append(ids, uint32(sp)), append(names, n)
		}
	}
	if best == nameClose {
		for _, n := range names[1:] {
			if n != names[0] {
				return nil, nil // close to two people's names
			}
		}
	}
	return ids, names
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
	for _, w := range words {
		sps, names := ix.wordNamesLocked(w, true)
		for _, sp := range sps {
			named[sp] = true
		}
		for _, n := range names {
			look = append(look, n, w)
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

// NamesPerson reports whether query word w (textindex.Words) names someone
// the index knows as a speaker, in any scope (wordNamesLocked, roles and
// labels left out).
func (ix *Index) NamesPerson(w string) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	ids, _ := ix.wordNamesLocked(w, true)
	return len(ids) > 0
}
