package memory

import (
	"context"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

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
