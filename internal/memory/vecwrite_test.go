package memory

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/testenv"
)

// TestVectorWriteBehind: a new memory's embedding is written after its
// store returns, and nothing overtakes it: a delete right after the store
// leaves no orphaned embedding, a forget and unforget bring the vector
// back, and a crash before it was written costs only a re-embedding.
func TestVectorWriteBehind(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: embed.NewHash(512)}
	ctx := testenv.Context(t)
	store, e := env.open()
	if !e.vecw.on {
		t.Fatal("the vector writer is off")
	}
	// Delete at once: the pending embedding is written first, then deleted.
	gone := mustStore(t, e, StoreRequest{Content: "deleted right after it was stored"})
	if _, err := e.Forget(ctx, ForgetRequest{ID: gone.ID, Hard: true}); err != nil {
		t.Fatal(err)
	}
	// Forget and unforget at once: the vector comes back from the database.
	back := mustStore(t, e, StoreRequest{Content: "forgotten and brought back"})
	if _, err := e.Forget(ctx, ForgetRequest{ID: back.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Unforget(ctx, []string{back.ID}); err != nil {
		t.Fatal(err)
	}
	bid, _ := bson.ObjectIDFromHex(back.ID)
	if it, _ := e.index().Lookup(bid); !it.HasVec {
		t.Fatal("an unforgotten memory lost its vector")
	}
	env.close(store, e) // writes what is pending, then the snapshot

	store, e = env.open()
	gid, _ := bson.ObjectIDFromHex(gone.ID)
	if _, err := store.Index.Get(ctx, gid); err == nil {
		t.Fatal("the embedding of a deleted memory was written after its delete")
	}
	if _, err := store.Index.Get(ctx, bid); err != nil {
		t.Fatalf("the embedding of a stored memory is missing: %v", err)
	}
	// A crash before the writer ran: the memory is kept, its vector made
	// again in the background.
	defer func(d time.Duration) { vecWriteDelay = d }(vecWriteDelay)
	vecWriteDelay = time.Hour
	defer func(d time.Duration) { vecWriteMaxDelay = d }(vecWriteMaxDelay)
	vecWriteMaxDelay = time.Hour
	// A backup first writes what is pending (WritePendingVectors).
	early := mustStore(t, e, StoreRequest{Content: "stored just before a backup"})
	if n := e.vecw.len(); n != 1 {
		t.Fatalf("%d embeddings pending, want 1", n)
	}
	e.WritePendingVectors(ctx)
	eid, _ := bson.ObjectIDFromHex(early.ID)
	if n := e.vecw.len(); n != 0 {
		t.Fatalf("%d embeddings pending after WritePendingVectors", n)
	}
	if _, err := store.Index.Get(ctx, eid); err != nil {
		t.Fatalf("the embedding written for a backup is missing: %v", err)
	}
	lost := mustStore(t, e, StoreRequest{Content: "stored just before the crash"})
	lost2 := mustStore(t, e, StoreRequest{Content: "also stored just before the crash"})
	if n := e.vecw.len(); n != 2 {
		t.Fatalf("%d embeddings pending, want 2", n)
	}
	crashUnsettled(store, e)

	store, e = env.open()
	defer func() { env.close(store, e) }()
	for _, id := range []string{lost.ID, lost2.ID} {
		if _, err := e.Get(ctx, id); err != nil {
			t.Fatalf("memory lost with its pending embedding: %v", err)
		}
	}
	oid, _ := bson.ObjectIDFromHex(lost2.ID)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if it, _ := e.index().Lookup(oid); it.HasVec {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lost embedding was not made again")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settleVectors writes the new memories' embeddings still pending.
func settleVectors(e *Engine) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	e.flushVectors(context.Background())
}
