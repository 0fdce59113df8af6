package memory

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/usecount"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

// TestAccessRecordsDoNotUndoWrites: recording that a memory was recalled
// runs beside edits of the same memory. The embedded engine applies an
// update by reading the whole document and writing it back, so without the
// engine's write lock an access update could put back the tags an edit
// just replaced.
func TestAccessRecordsDoNotUndoWrites(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	m := mustStore(t, e, StoreRequest{Content: "The harbour master is called Ines"})
	const rounds = 60
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < rounds; i++ {
			if _, err := e.Search(ctx, SearchRequest{Query: "harbour master", Mode: ModeKeyword}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < rounds; i++ {
		tags := []string{fmt.Sprintf("edit%d", i)}
		if _, err := e.Update(ctx, UpdateRequest{ID: m.ID, Tags: &tags}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	e.access.Settle()
	got, err := e.Get(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{fmt.Sprintf("edit%d", rounds-1)}; !slices.Equal(got.Tags, want) || len(got.History) != rounds {
		t.Fatalf("tags %v after the last edit set %v; %d revisions kept of %d", got.Tags, want, len(got.History), rounds)
	}
	if got.UseCount != rounds {
		t.Fatalf("use count %d after %d recalls", got.UseCount, rounds)
	}
}

// TestAccessWaitsForAPause: uses reach the database once retrievals pause
// (or when asked, as settle and Close do), not between the retrievals of a
// burst; the index counts them at once.
func TestAccessWaitsForAPause(t *testing.T) {
	defer func(q, d time.Duration) { usecount.Quiet, usecount.MaxDelay = q, d }(usecount.Quiet, usecount.MaxDelay)
	usecount.Quiet, usecount.MaxDelay = time.Hour, time.Hour
	e, store, _ := newEngine(t)
	ctx := testenv.Context(t)
	m := mustStore(t, e, StoreRequest{Content: "The harbour master is called Ines"})
	for range 3 {
		if res, err := e.Search(ctx, SearchRequest{Query: "harbour master", Mode: ModeKeyword}); err != nil || len(res.Results) != 1 {
			t.Fatal(res, err)
		}
	}
	oid, _ := bson.ObjectIDFromHex(m.ID)
	if it, _ := e.index().Lookup(oid); it.UseCount != 3 {
		t.Fatalf("the index counted %d uses, want 3", it.UseCount)
	}
	time.Sleep(50 * time.Millisecond) // would be plenty for a write that did not wait
	doc, err := store.Memories.Get(ctx, oid)
	if err != nil || doc.UseCount != 0 {
		t.Fatalf("uses written during the burst: use_count %d, %v", doc.UseCount, err)
	}
	e.access.Settle()
	if doc, err = store.Memories.Get(ctx, oid); err != nil || doc.UseCount != 3 || doc.LastAccessed == nil {
		t.Fatalf("after settle: use_count %d, last_accessed %v, %v", doc.UseCount, doc.LastAccessed, err)
	}
}

// TestAccessBatchSurvivesStop: uses waiting to be written count already in
// get_memory; a clean stop writes them all (more than one batch's worth,
// one memory deleted meanwhile), and get_memory then counts each use once.
func TestAccessBatchSurvivesStop(t *testing.T) {
	defer func(q, d time.Duration) { usecount.Quiet, usecount.MaxDelay = q, d }(usecount.Quiet, usecount.MaxDelay)
	usecount.Quiet, usecount.MaxDelay = time.Hour, time.Hour
	e, store, _ := newEngine(t)
	ctx := testenv.Context(t)
	const n = usesPerLock + 20
	var uses []usecount.Use
	for i := range n {
		m := mustStore(t, e, StoreRequest{Content: fmt.Sprintf("Note number %d about the lighthouse keeper", i), Scope: "s"})
		oid, _ := bson.ObjectIDFromHex(m.ID)
		uses = append(uses, usecount.Use{ID: oid})
	}
	e.access.Record(uses)
	e.access.Record(uses[:10])
	if _, err := store.Memories.Delete(ctx, uses[5].ID); err != nil {
		t.Fatal(err)
	}
	want := func(i int) int64 {
		if i < 10 {
			return 2
		}
		return 1
	}
	for _, i := range []int{0, 11, n - 1} {
		got, err := e.Get(ctx, uses[i].ID.Hex())
		if err != nil || got.UseCount != want(i) || got.LastAccessed == nil {
			t.Fatalf("get_memory before the write: use_count %d want %d, last_accessed %v, %v", got.UseCount, want(i), got.LastAccessed, err)
		}
		if doc, err := store.Memories.Get(ctx, uses[i].ID); err != nil || doc.UseCount != 0 {
			t.Fatalf("written before the stop: %d, %v", doc.UseCount, err)
		}
	}
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for i, u := range uses {
		doc, err := store.Memories.Get(ctx, u.ID)
		if i == 5 {
			continue
		}
		if err != nil || doc.UseCount != want(i) || doc.LastAccessed == nil {
			t.Fatalf("memory %d after the stop: use_count %d want %d, last_accessed %v, %v", i, doc.UseCount, want(i), doc.LastAccessed, err)
		}
	}
}

// TestAccessWrittenForBackups: what reads the database itself (a backup, an
// export) asks WritePendingVectors first, which writes the uses gathered so
// far too.
func TestAccessWrittenForBackups(t *testing.T) {
	defer func(q, d time.Duration) { usecount.Quiet, usecount.MaxDelay = q, d }(usecount.Quiet, usecount.MaxDelay)
	usecount.Quiet, usecount.MaxDelay = time.Hour, time.Hour
	e, store, _ := newEngine(t)
	ctx := testenv.Context(t)
	m := mustStore(t, e, StoreRequest{Content: "The harbour master is called Ines"})
	oid, _ := bson.ObjectIDFromHex(m.ID)
	e.access.Record([]usecount.Use{{ID: oid}})
	e.WritePendingVectors(ctx)
	if doc, err := store.Memories.Get(ctx, oid); err != nil || doc.UseCount != 1 {
		t.Fatalf("after WritePendingVectors: use_count %d, %v", doc.UseCount, err)
	}
	if got, err := e.Get(ctx, m.ID); err != nil || got.UseCount != 1 {
		t.Fatalf("get_memory counts a written use twice: %d, %v", got.UseCount, err)
	}
}

// TestUsesLoggedThenFolded: on the embedded engine a burst's uses go to
// the use log, not the memories' documents; get_memory, list_memories and
// the index count them; an engine that stops without folding (a crash)
// leaves them in the log, and the next start counts them (once) and folds
// them when asked (a backup, a stop): then the documents hold them and
// the log is empty.
func TestUsesLoggedThenFolded(t *testing.T) {
	defer func(q, d time.Duration, f int) { usecount.Quiet, usecount.MaxDelay, usecount.FoldAt = q, d, f }(usecount.Quiet, usecount.MaxDelay, usecount.FoldAt)
	usecount.Quiet, usecount.MaxDelay, usecount.FoldAt = time.Millisecond, time.Hour, 1<<30
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	// The first engine is never closed: it "crashes" with its uses logged.
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	e := New(store, reg, Options{Now: clk.Now, Location: la, Logger: testenv.Logger(t)})
	e.Start(ctx)
	if err := e.wait(ctx); err != nil {
		t.Fatal(err)
	}
	m := mustStore(t, e, StoreRequest{Content: "The harbour master is called Ines"})
	other := mustStore(t, e, StoreRequest{Content: "The lighthouse keeper is called Tomas"})
	oid, _ := bson.ObjectIDFromHex(m.ID)
	for range 3 {
		if res, err := e.Search(ctx, SearchRequest{Query: "harbour master", Mode: ModeKeyword}); err != nil || len(res.Results) != 1 {
			t.Fatal(res, err)
		}
	}
	logged := func() map[bson.ObjectID]int64 {
		t.Helper()
		uses, err := store.Memories.LoggedUses(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[bson.ObjectID]int64{}
		for _, u := range uses {
			got[u.ID] = u.Count
		}
		return got
	}
	deadline := time.Now().Add(10 * time.Second)
	for logged()[oid] != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("uses not logged: %v", logged())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if doc, err := store.Memories.Get(ctx, oid); err != nil || doc.UseCount != 0 {
		t.Fatalf("logged uses written into the document: use_count %d, %v", doc.UseCount, err)
	}
	if got, err := e.Get(ctx, m.ID); err != nil || got.UseCount != 3 || got.LastAccessed == nil {
		t.Fatalf("get_memory with the uses logged: use_count %d, %v", got.UseCount, err)
	}

	e2, _, _ := engineOn(t, store)
	if it, _ := e2.index().Lookup(oid); it.UseCount != 3 {
		t.Fatalf("after the crash the index counts %d uses, want 3", it.UseCount)
	}
	if got, err := e2.Get(ctx, m.ID); err != nil || got.UseCount != 3 {
		t.Fatalf("after the crash get_memory: use_count %d, %v", got.UseCount, err)
	}
	list, err := e2.List(ctx, ListRequest{Sort: "most_used", Scope: "ALL"})
	if err != nil || len(list.Memories) != 2 || list.Memories[0].ID != m.ID || list.Memories[0].UseCount != 3 || list.Memories[1].ID != other.ID {
		t.Fatalf("after the crash list_memories most_used: %+v, %v", list.Memories, err)
	}
	e2.WritePendingVectors(ctx)
	if doc, err := store.Memories.Get(ctx, oid); err != nil || doc.UseCount != 3 || doc.LastAccessed == nil {
		t.Fatalf("after a fold: use_count %d, %v", doc.UseCount, err)
	}
	if l := logged(); len(l) != 0 {
		t.Fatalf("the log still holds %v after a fold", l)
	}
	if got, err := e2.Get(ctx, m.ID); err != nil || got.UseCount != 3 {
		t.Fatalf("after the fold get_memory: use_count %d, %v", got.UseCount, err)
	}
	if it, _ := e2.index().Lookup(oid); it.UseCount != 3 {
		t.Fatalf("after the fold the index counts %d uses, want 3", it.UseCount)
	}
}
