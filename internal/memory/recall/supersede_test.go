package recall

import (
	"testing"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// TestSupersedeByMeaning: with the lower bar (0.3, the default), a
// successor found by meaning, scoring 0.4 of
// the older memory's score for the question, is ranked with it (lifted
// to its score); one found by words, under the same bar, is not.
func TestSupersedeByMeaning(t *testing.T) {
	o := Options{}.WithDefaults()
	if o.SameQuestionMeaning != 0.3 {
		t.Fatalf("default sameqm %v, want 0.3", o.SameQuestionMeaning)
	}
	for _, meaning := range []bool{false, true} {
		pool := []memindex.Candidate{
			{Score: 1, Successor: 1, Contradicts: -1, ByMeaning: meaning},
			{Score: 0.4, Successor: -1, Contradicts: -1},
		}
		supersede(pool, o.SameQuestion, o.SameQuestionMeaning)
		if lifted := pool[1].Score > pool[0].Score; lifted != meaning {
			t.Fatalf("by meaning %v: scores older %.3f, successor %.3f", meaning, pool[0].Score, pool[1].Score)
		}
	}
	// Negative: the bar of every link.
	o = Options{SameQuestionMeaning: -1}.WithDefaults()
	if o.SameQuestionMeaning != o.SameQuestion {
		t.Fatalf("sameqm -1: %v, want %v", o.SameQuestionMeaning, o.SameQuestion)
	}
}
