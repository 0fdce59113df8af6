package memory

import (
	"context"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

// TestLessonBoostGate: a lesson that clears the relevance bar passes an
// ordinary memory of similar relevance, not a clearly more relevant one;
// a lesson under the bar gets nothing; with the weight off it stays
// behind (so the first case cannot pass without the boost).
func TestLessonBoostGate(t *testing.T) {
	on := RankOptions{}.withDefaults()
	off := RankOptions{LessonWeight: -1}.withDefaults()
	// Keyword mode, memories outside any conversation: a memory's
	// neighbour evidence is its own.
	alone := func(source string, cov float64) memindex.Candidate {
		return memindex.Candidate{Source: source, Coverage: cov, NeighborCoverage: cov, Alone: true, Neighbors: [2]int32{-1, -1}}
	}
	for _, tc := range []struct {
		name             string
		ordinary, lesson float64 // keyword coverage
		ro               RankOptions
		lessonFirst      bool
	}{
		{"similar relevance", 0.62, 0.60, on, true},
		{"similar relevance, boost off", 0.62, 0.60, off, false},
		{"clearly more relevant ordinary memory", 0.90, 0.60, on, false},
		{"lesson under the bar", 0.31, 0.30, on, false},
	} {
		pool := []memindex.Candidate{alone(sourceNote, tc.ordinary), alone(sourceLesson, tc.lesson)}
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

// TestLessonsRankFirst stores, through the engine, a lesson and an
// ordinary note that answer a question about equally well; the lesson is
// older, so without the boost the note comes first. With it the lesson
// does. A note that answers clearly better stays ahead of the lesson.
func TestLessonsRankFirst(t *testing.T) {
	ctx := testenv.Context(t)
	store := testenv.Store(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, time.UTC)}
	e := New(store, reg, Options{Now: clk.Now, Location: time.UTC, Logger: testenv.Logger(t)}) // keyword ranking
	e.Start(ctx)
	t.Cleanup(func() { e.Close(context.Background()) })

	const (
		lesson = "Before deploying the billing service, ask the user to pause the nightly invoice export."
		note   = "Deploying the billing service takes about ten minutes on the staging cluster."
		better = "Checklist for deploying the billing service to production: the billing service deploy needs a release tag."
	)
	clk.Set(clk.Now().Add(-48 * time.Hour))
	mustStore(t, e, StoreRequest{Content: lesson, Source: sourceLesson})
	clk.Set(clk.Now().Add(24 * time.Hour))
	mustStore(t, e, StoreRequest{Content: note})

	first := func(q string) Memory {
		t.Helper()
		res := search(t, e, SearchRequest{Query: q, Limit: 5})
		if len(res.Results) == 0 {
			t.Fatalf("%q: no results", q)
		}
		return res.Results[0]
	}
	const q = "deploying the billing service"
	e.SetRankOptions(RankOptions{LessonWeight: -1})
	if got := first(q); got.Text != note {
		t.Fatalf("without the boost %q comes first, want the newer note (the case tests nothing)", got.Text)
	}
	e.SetRankOptions(RankOptions{})
	got := first(q)
	if got.Text != lesson || got.Source != sourceLesson || got.Weak {
		t.Fatalf("with the boost %q (%s, weak %v) comes first, want the lesson", got.Text, got.Source, got.Weak)
	}

	mustStore(t, e, StoreRequest{Content: better})
	if got := first("billing service deploy checklist for production"); got.Text != better {
		t.Fatalf("a clearly better note lost to %q", got.Text)
	}
}
