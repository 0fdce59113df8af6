package recall

import (
	"testing"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// TestLessonBoostGate: a lesson that clears the relevance bar passes an
// ordinary memory of similar relevance, not a clearly more relevant one;
// a lesson under the bar gets nothing; with the weight off it stays
// behind (so the first case cannot pass without the boost).
func TestLessonBoostGate(t *testing.T) {
	on := Options{}.WithDefaults()
	off := Options{LessonWeight: -1}.WithDefaults()
	// Keyword mode, memories outside any conversation: a memory's
	// neighbour evidence is its own.
	alone := func(source string, cov float64) memindex.Candidate {
		return memindex.Candidate{Source: source, Coverage: cov, NeighborCoverage: cov, Alone: true, Neighbors: [2]int32{-1, -1}}
	}
	for _, tc := range []struct {
		name             string
		ordinary, lesson float64 // keyword coverage
		ro               Options
		lessonFirst      bool
	}{
		{"similar relevance", 0.62, 0.60, on, true},
		{"similar relevance, boost off", 0.62, 0.60, off, false},
		{"clearly more relevant ordinary memory", 0.90, 0.60, on, false},
		{"lesson under the bar", 0.31, 0.30, on, false},
	} {
		pool := []memindex.Candidate{alone("note", tc.ordinary), alone(sourceLesson, tc.lesson)}
		score(pool, &query{}, &tc.ro, barsFor(true, false))
		if got := pool[1].Score > pool[0].Score; got != tc.lessonFirst {
			t.Errorf("%s: lesson %.3f, ordinary %.3f; lesson first %v, want %v", tc.name, pool[1].Score, pool[0].Score, got, tc.lessonFirst)
		}
	}
	// The bar the gate uses is the one results are marked weak by.
	if c := barsFor(true, false).clears(evidence(&memindex.Candidate{Coverage: 0.30, NeighborCoverage: 0.30, Alone: true})); c >= on.MinConfidence {
		t.Fatalf("coverage 0.30 has confidence %.3f, not under the bar %.2f: the under-the-bar case tests nothing", c, on.MinConfidence)
	}
}
