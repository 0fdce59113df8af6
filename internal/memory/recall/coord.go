package recall

import (
	"math/bits"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/textindex"
)

// Coordination (Options.CoordWeight): how many of the ideas a question
// asks about a note meets. Keyword coverage is a share of the question's
// keyword weight, so one rare word a note shares with the question ("a
// family law firm" for "who is our family doctor?") can lift it above the
// answer, whose meaning is closer but whose words differ ("Our GP is Dr
// Fenwick"). Counted by groups — a query word with its alternatives (a
// relation's names, its other spellings, its synonyms when SynonymWeight
// adds them) — a note meeting one group of several keeps only part of its
// coverage, so the cosine weighs more where the keyword lead rests on one
// word, and a note meeting two of three asked ideas keeps more than one
// meeting a single rare word. A word no memory holds counts as a group no
// note meets: the question asks for it ("doctor") and no note says it.

// coordGroups are the bits, among holds, of the query's word groups
// (textindex.Query.Groups); holds gains one Query per group. None when the
// query has fewer than two groups or holds has no room for them.
func coordGroups(terms textindex.Query, holds *[]textindex.Query) uint64 {
	groups := terms.Groups()
	if len(groups) < 2 || len(*holds)+len(groups) > 64 {
		return 0
	}
	var mask uint64
	for _, g := range groups {
		mask |= 1 << len(*holds)
		*holds = append(*holds, g)
	}
	return mask
}

// coordShare is the share of its keyword coverage a note keeps when it
// holds words of met of the n groups in mask: 1 - w + w·met/n.
func coordShare(holds, mask uint64, w float64) float64 {
	n := bits.OnesCount64(mask)
	if n < 2 || w <= 0 {
		return 1
	}
	w = min(w, 1)
	met := bits.OnesCount64(holds & mask)
	return 1 - w + w*float64(met)/float64(n)
}

// coordUnknown says whether one of the query's word groups
// (textindex.Query.Groups) is held by no memory of the index
// (Options.CoordUnknown).
func coordUnknown(ix *memindex.Index, terms textindex.Query) bool {
	for _, g := range terms.Groups() {
		if ix.Unknown(g) >= 1 {
			return true
		}
	}
	return false
}
