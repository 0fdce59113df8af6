package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// semanticEngine opens an engine with the given embedder on store.
func semanticEngine(t *testing.T, store *mongostore.Store, e embed.Embedder) *Engine {
	t.Helper()
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	eng := New(store, reg, Options{Embedder: e, Logger: testenv.Logger(t)})
	eng.Start(ctx)
	t.Cleanup(func() { eng.Close(context.Background()) })
	if err := eng.wait(ctx); err != nil {
		t.Fatal(err)
	}
	return eng
}

func useLite(t *testing.T) embed.Embedder {
	t.Helper()
	m, err := embed.NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// waitFor polls cond for up to 20 s (background embedding).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSemanticRecallFindsMeaning(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	ctx := testenv.Context(t)
	for _, c := range []string{
		"Project Apollo deadline is June 5",
		"Alice's birthday is Jan 20",
		"We plan to launch the product next week",
		"The dentist appointment is on Thursday at 9am",
		"My favourite pizza topping is mushrooms",
	} {
		mustStore(t, e, StoreRequest{Content: c})
	}
	cases := map[string]string{
		"When is Apollo due?":                   "Project Apollo deadline is June 5",
		"When is Alice's birthday?":             "Alice's birthday is Jan 20",
		"what is happening next week":           "We plan to launch the product next week",
		"When do I see the dentist?":            "The dentist appointment is on Thursday at 9am",
		"what pizza do I like":                  "My favourite pizza topping is mushrooms",
		"what's the due date of project apollo": "Project Apollo deadline is June 5",
	}
	for q, want := range cases {
		res, err := e.Search(ctx, SearchRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || res.Results[0].Text != want {
			t.Errorf("%q: got %v, want %q first", q, texts(res.Results), want)
			continue
		}
		if c := res.Results[0].Confidence; c < 0.4 || c > 1 {
			t.Errorf("%q: confidence %v", q, c)
		}
	}
	// Nothing relevant clears the bar: the closest memories come back,
	// all marked weak, and the response says nothing is relevant.
	for _, q := range []string{"What is the capital of Mongolia?", "How do I configure a Kubernetes ingress controller?"} {
		res, err := e.Search(ctx, SearchRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || len(relevant(res)) != 0 || !res.NothingRelevant || !strings.Contains(res.Note, "do not remember") {
			t.Errorf("%q: unrelated query returned %v, nothing relevant %v (note %q)", q, texts(relevant(res)), res.NothingRelevant, res.Note)
		}
	}
	// Keyword and vector modes stay available.
	if res, _ := e.Search(ctx, SearchRequest{Query: "Apollo deadline", Mode: ModeKeyword}); len(res.Results) == 0 {
		t.Error("keyword mode found nothing")
	}
	if res, _ := e.Search(ctx, SearchRequest{Query: "when is the birthday of Alice", Mode: ModeVector}); len(res.Results) == 0 || res.Results[0].Text != "Alice's birthday is Jan 20" {
		t.Errorf("vector mode: %v", texts(res.Results))
	}
	if _, err := e.Search(ctx, SearchRequest{Query: "x", Mode: "magic"}); !IsInputError(err) {
		t.Errorf("bad mode: %v", err)
	}
}

func TestStoreReportsSimilarMemories(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	first := mustStore(t, e, StoreRequest{Content: "Project Apollo deadline is June 5"})
	mustStore(t, e, StoreRequest{Content: "Apollo project deadline: June 5", Scope: "Other"})
	res := mustStore(t, e, StoreRequest{Content: "The Project Apollo deadline is June 5th"})
	if len(res.Similar) != 1 || res.Similar[0].ID != first.ID || res.Similar[0].Similarity < SimilarCosine || !res.Similar[0].SameFact {
		t.Fatalf("similar: %+v", res.Similar)
	}
	unrelated := mustStore(t, e, StoreRequest{Content: "Bread needs flour, water, salt and yeast"})
	if len(unrelated.Similar) != 0 {
		t.Fatalf("unrelated memory reported similar: %+v", unrelated.Similar)
	}

	// A paraphrase under the cosine bar is still the same fact; texts that
	// read alike but differ in a detail are reported as different.
	cases := []struct {
		old, new  string
		sameFact  bool
		differsIn []string
	}{
		{"The Apollo deadline is December 19", "The Apollo project deadline moved to December 19", true, nil},
		{"Dentist appointment on December 2 at 9:30.", "Dentist appointment on January 14 at 11:00.", false, []string{"date", "time"}},
		{"Paid the electricity bill of 84 euros in October.", "Paid the electricity bill of 97 euros in November.", false, []string{"amount", "date"}},
		// Issue 26: ISO dates are dates; near-identical names are flagged
		// (with both spellings, below) even under the cosine bar.
		{"Release of the mobile app on 2026-12-01.", "Release of the mobile app on 2026-12-10.", false, []string{"date"}},
		{"Appointment with Dr. Patel on Monday at 10:00.", "Appointment with Dr. Patil on Monday at 10:00.", false, []string{"name"}},
	}
	for i, c := range cases {
		scope := fmt.Sprintf("pair%d", i)
		old := mustStore(t, e, StoreRequest{Content: c.old, Scope: scope})
		got := mustStore(t, e, StoreRequest{Content: c.new, Scope: scope})
		if len(got.Similar) != 1 || got.Similar[0].ID != old.ID || got.Similar[0].SameFact != c.sameFact || !slices.Equal(got.Similar[0].DiffersIn, c.differsIn) {
			t.Errorf("%q after %q: similar %+v, want same fact %v, differing in %v", c.new, c.old, got.Similar, c.sameFact, c.differsIn)
		}
		if strings.Contains(c.old, "Patel") && (len(got.Similar) != 1 || !slices.Equal(got.Similar[0].Spellings, []string{"Patel", "Patil"})) {
			t.Errorf("Patel / Patil: spellings %+v", got.Similar)
		}
	}
}

func TestNearDuplicatesCollapse(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	ctx := testenv.Context(t)
	mustStore(t, e, StoreRequest{Content: "The wifi password is blue-falcon-42"})
	mustStore(t, e, StoreRequest{Content: "The wifi password is blue-falcon-42!"})
	res, err := e.Search(ctx, SearchRequest{Query: "wifi password"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 {
		t.Fatalf("near-duplicates not collapsed: %v", texts(res.Results))
	}
}

func TestVectorsFollowEveryWrite(t *testing.T) {
	store := testenv.Store(t)
	e := semanticEngine(t, store, useLite(t))
	ctx := testenv.Context(t)
	a := mustStore(t, e, StoreRequest{Content: "Our cabin is by Lake Tahoe", Tags: []string{"travel"}})
	settleVectors(e)
	oid, _ := bson.ObjectIDFromHex(a.ID)
	entry, err := store.Index.Get(ctx, oid)
	if err != nil {
		t.Fatal(err)
	}
	if entry.Model != embed.USELiteModelID || entry.Dim != 512 || entry.Encoding != "f16" || len(entry.Embedding) != 1024 ||
		entry.SourceID != oid || entry.SourceCollection != mongostore.ConversationHistory || !slices.Equal(entry.Metadata.Tags, []string{"travel"}) {
		t.Fatalf("index entry: model %q dim %d encoding %q %d bytes", entry.Model, entry.Dim, entry.Encoding, len(entry.Embedding))
	}
	before := entry.Embedding

	text := "Our cabin is in the Swiss Alps"
	if _, err := e.Update(ctx, UpdateRequest{ID: a.ID, Content: &text}); err != nil {
		t.Fatal(err)
	}
	entry, _ = store.Index.Get(ctx, oid)
	if slices.Equal(entry.Embedding, before) {
		t.Fatal("embedding not replaced after the text changed")
	}
	if res, _ := e.Search(ctx, SearchRequest{Query: "mountains in Switzerland", Mode: ModeVector}); len(res.Results) == 0 || res.Results[0].ID != a.ID {
		t.Fatalf("new text not found by meaning: %v", texts(res.Results))
	}
	scope := "Holidays"
	if _, err := e.Update(ctx, UpdateRequest{ID: a.ID, Scope: &scope}); err != nil {
		t.Fatal(err)
	}
	if entry, _ = store.Index.Get(ctx, oid); entry.Scope != "Holidays" {
		t.Fatalf("index entry scope %q after a move", entry.Scope)
	}

	e.Forget(ctx, ForgetRequest{ID: a.ID})
	if res, _ := e.Search(ctx, SearchRequest{Query: "cabin in the Alps", Mode: ModeVector}); len(res.Results) != 0 {
		t.Fatalf("soft-forgotten memory found by vector: %v", texts(res.Results))
	}
	if _, err := e.Unforget(ctx, []string{a.ID}); err != nil {
		t.Fatal(err)
	}
	if res, _ := e.Search(ctx, SearchRequest{Query: "cabin in the Alps", Mode: ModeVector}); len(res.Results) != 1 {
		t.Fatalf("unforgotten memory lost its vector: %v", texts(res.Results))
	}
	e.Forget(ctx, ForgetRequest{ID: a.ID, Hard: true})
	if _, err := store.Index.Get(ctx, oid); !errors.Is(err, mongostore.ErrNotFound) {
		t.Fatalf("embedding survived a hard delete: %v", err)
	}
	if res, _ := e.Search(ctx, SearchRequest{Query: "cabin in the Alps", Mode: ModeVector}); len(res.Results) != 0 {
		t.Fatalf("ghost result after hard delete: %v", texts(res.Results))
	}
}

// TestStartupReconciles simulates crashes between a memory's two writes: an
// embedding whose memory is gone, and a memory without its embedding.
func TestStartupReconciles(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	ghost := bson.NewObjectID()
	if err := store.Index.Insert(ctx, &mongostore.IndexEntry{ID: ghost, SourceID: ghost, SourceCollection: mongostore.ConversationHistory,
		Scope: "Global", Model: embed.USELiteModelID, Dim: 512, Embedding: make([]byte, 1024), Encoding: "f16"}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	orphan := &mongostore.Memory{ID: bson.NewObjectID(), Timestamp: now, Text: "The spare key is under the blue flowerpot",
		Scope: "Global", Tags: []string{}, Source: "note", ContentHash: keyHex(contentKey("The spare key is under the blue flowerpot")), CreatedAt: now, UpdatedAt: now}
	if err := store.Memories.Insert(ctx, orphan); err != nil {
		t.Fatal(err)
	}
	e := semanticEngine(t, store, useLite(t))
	if _, err := store.Index.Get(ctx, ghost); !errors.Is(err, mongostore.ErrNotFound) {
		t.Fatalf("orphaned embedding kept: %v", err)
	}
	waitFor(t, "the background embedder", func() bool { return e.index().VectorCount() == 1 })
	entry, err := store.Index.Get(ctx, orphan.ID)
	if err != nil || entry.Model != embed.USELiteModelID {
		t.Fatalf("memory without embedding not embedded: %+v %v", entry, err)
	}
	res, _ := e.Search(ctx, SearchRequest{Query: "where is the spare key hidden", Mode: ModeVector})
	if len(res.Results) != 1 {
		t.Fatalf("reconciled memory not found by meaning: %v", texts(res.Results))
	}
}

// TestLoadVectorsBeforeTheirMemories: the full load reads embeddings while
// memories are still being read; embeddings that come first are held and
// placed once their memories are in, and a ghost among them is removed.
func TestLoadVectorsBeforeTheirMemories(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	emb := embed.NewHash(512)
	e1 := semanticEngine(t, store, emb)
	for i := 0; i < 30; i++ {
		mustStore(t, e1, StoreRequest{Content: fmt.Sprintf("memory number %d about sailing boats", i)})
	}
	settleVectors(e1)
	ghost := bson.NewObjectID()
	if err := store.Index.Insert(ctx, &mongostore.IndexEntry{ID: ghost, SourceID: ghost, SourceCollection: mongostore.ConversationHistory,
		Scope: "Global", Model: emb.ModelID(), Dim: 512, Embedding: make([]byte, 1024), Encoding: "f16"}); err != nil {
		t.Fatal(err)
	}
	reg, err := scopes.Load(ctx, store, scopes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e2 := New(store, reg, Options{Embedder: emb})
	srcDone := make(chan struct{})
	early, err := e2.readVectors(ctx, srcDone) // no memory indexed yet
	if err != nil || len(early) != 31 || e2.index().VectorCount() != 0 {
		t.Fatalf("read ahead: %d held, %d placed, %v", len(early), e2.index().VectorCount(), err)
	}
	if err := e2.loadSources(ctx); err != nil {
		t.Fatal(err)
	}
	close(srcDone)
	if err := e2.placeEarlyVectors(ctx, early); err != nil {
		t.Fatal(err)
	}
	if n := e2.index().VectorCount(); n != 30 {
		t.Fatalf("%d vectors placed, want 30", n)
	}
	if _, err := store.Index.Get(ctx, ghost); !errors.Is(err, mongostore.ErrNotFound) {
		t.Fatalf("orphaned embedding kept: %v", err)
	}
}

// TestModelChangeReembeds switches the embedding model: every memory is
// re-embedded in the background, visible in the stats.
func TestModelChangeReembeds(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	e1 := semanticEngine(t, store, embed.NewHash(512))
	for _, c := range []string{"first note about sailing", "second note about gardening", "third note about chess"} {
		mustStore(t, e1, StoreRequest{Content: c})
	}
	st, _ := e1.Stats(ctx)
	if st.Embedding.Model != "hash-512-v1" || st.Embedding.Vectors != 3 {
		t.Fatalf("hash stats: %+v", st.Embedding)
	}
	e1.Close(ctx)

	e2 := semanticEngine(t, store, useLite(t))
	waitFor(t, "re-embedding", func() bool {
		st, _ := e2.Stats(ctx)
		return st.Embedding.Vectors == 3 && st.Embedding.Pending == 0
	})
	st, _ = e2.Stats(ctx)
	if st.Embedding.Model != embed.USELiteModelID {
		t.Fatalf("stats after migration: %+v", st.Embedding)
	}
	var models []string
	store.Index.Iterate(ctx, 100, func(b []mongostore.IndexEntry) error {
		for _, en := range b {
			models = append(models, en.Model)
		}
		return nil
	})
	if len(models) != 3 || slices.ContainsFunc(models, func(m string) bool { return m != embed.USELiteModelID }) {
		t.Fatalf("stored models after migration: %v", models)
	}
}

// A store reports similar memories, never itself: the vector scan runs
// while the memory is written (Store, memindex.SimilarPassGo), and must see
// the index as it was before the memory joined it.
func TestStoreSimilarNeverItself(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november"}
	for i, w := range words {
		res := mustStore(t, e, StoreRequest{Content: "Remember that the Project Apollo deadline is June 5, said " + w})
		if len(res.Similar) > 5 || i >= 3 && len(res.Similar) < 3 {
			t.Fatalf("store %d: %d similar memories, want 3 to 5: %+v", i, len(res.Similar), res.Similar)
		}
		for _, s := range res.Similar {
			if s.ID == res.ID {
				t.Fatalf("store %d: the memory is similar to itself: %+v", i, res.Similar)
			}
		}
	}
}
