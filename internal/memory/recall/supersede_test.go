package recall

import (
	"testing"

	"github.com/infmem/infmem/internal/memory/memindex"
	"go.mongodb.org/mongo-driver/v2/bson"
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

// TestSuccessorsKeepPlace: the coordination cut never puts a memory back
// above the successor supersede ranked with it; a successor ranked below
// keeps its cut.
func TestSuccessorsKeepPlace(t *testing.T) {
	older, newer, other := bson.NewObjectID(), bson.NewObjectID(), bson.NewObjectID()
	pool := []memindex.Candidate{
		{ID: older, Score: 1 - 1e-6, Successor: 1, Contradicts: -1},
		{ID: newer, Score: 1, Successor: -1, Contradicts: -1},
		{ID: other, Score: 0.5, Successor: -1, Contradicts: -1},
	}
	cut := map[bson.ObjectID]float64{older: 0.1, newer: 0.4, other: 0.2}
	successorsKeepPlace(pool, cut)
	if cut[newer] != 0.1 || cut[older] != 0.1 || cut[other] != 0.2 {
		t.Fatalf("cuts %v, want the successor's 0.1 (its older's), others kept", cut)
	}
	pool[1].Score = 0.5 // not ranked with the older: keeps its own cut
	cut = map[bson.ObjectID]float64{older: 0.1, newer: 0.4}
	successorsKeepPlace(pool, cut)
	if cut[newer] != 0.4 {
		t.Fatalf("successor below its older: cut %v, want 0.4", cut[newer])
	}
}
