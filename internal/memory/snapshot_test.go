package memory

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// snapEnv opens stores and engines on one data root, one after another, as
// daemon restarts would.
type snapEnv struct {
	t    *testing.T
	root dataroot.Root
	emb  embed.Embedder
	// limit is the change journal's limit (0: the default).
	limit int
	// rank is the engines' ranking (zero: the defaults).
	rank RankOptions
}

// openStore opens the database and the scopes of env's root.
func (s snapEnv) openStore() (*mongostore.Store, *scopes.Registry) {
	s.t.Helper()
	ctx := testenv.Context(s.t)
	store, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: s.root, Logger: testenv.Logger(s.t)})
	if err != nil {
		s.t.Fatal(err)
	}
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		s.t.Fatal(err)
	}
	return store, reg
}

func (s snapEnv) open() (*mongostore.Store, *Engine) {
	s.t.Helper()
	ctx := testenv.Context(s.t)
	store, reg := s.openStore()
	e := New(store, reg, Options{Embedder: s.emb, Logger: testenv.Logger(s.t), SnapshotPath: s.root.Path(dataroot.MongoData, SnapshotFile), JournalLimit: s.limit, Rank: s.rank})
	e.Start(ctx)
	if err := e.wait(ctx); err != nil {
		s.t.Fatal(err)
	}
	return store, e
}

func (s snapEnv) close(store *mongostore.Store, e *Engine) {
	ctx := context.Background()
	if e != nil {
		if err := e.Close(ctx); err != nil {
			s.t.Fatal(err)
		}
	}
	if err := store.Close(ctx); err != nil {
		s.t.Fatal(err)
	}
}

func source(t *testing.T, e *Engine) string {
	st, err := e.Stats(testenv.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	return st.IndexSource
}

func TestSnapshotRestart(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: embed.NewHash(512)}
	ctx := testenv.Context(t)
	store, e := env.open()
	if source(t, e) != "database" {
		t.Fatal("first start did not load from the database")
	}
	a := mustStore(t, e, StoreRequest{Content: "The boat is moored at pier 7", Tags: []string{"boat"}, Scope: "Sailing", ConversationID: "c1"})
	mustStore(t, e, StoreRequest{Content: "Bring the spare sail on Saturday", ConversationID: "c1", Scope: "Sailing"})
	gone := mustStore(t, e, StoreRequest{Content: "forget this line about anchors", Scope: "Sailing"})
	e.Forget(ctx, ForgetRequest{ID: gone.ID})
	for i := 0; i < 3; i++ {
		e.Search(ctx, SearchRequest{Query: "pier"})
	}
	before, _ := e.Search(ctx, SearchRequest{Query: "where is the boat moored", Scope: "Sailing", Limit: 10})
	stBefore, _ := e.Stats(ctx)
	env.close(store, e)
	if e.snap.jr != nil {
		t.Fatal("the change journal is still open after Close")
	}
	if _, err := os.Stat(filepath.Join(env.root.MongoDataDir(), SnapshotFile)); err != nil {
		t.Fatalf("no snapshot after a clean stop: %v", err)
	}

	store, e = env.open()
	if source(t, e) != "snapshot" {
		t.Fatal("restart after a clean stop did not use the snapshot")
	}
	after, _ := e.Search(ctx, SearchRequest{Query: "where is the boat moored", Scope: "Sailing", Limit: 10})
	if !slices.Equal(texts(before.Results), texts(after.Results)) || after.Results[0].ID != a.ID || after.Results[0].Confidence != before.Results[0].Confidence {
		t.Fatalf("results differ after a snapshot restart:\n%v\n%v", texts(before.Results), texts(after.Results))
	}
	stAfter, _ := e.Stats(ctx)
	if stAfter.TotalMemories != stBefore.TotalMemories || stAfter.Forgotten != 1 || stAfter.Embedding.Vectors != stBefore.Embedding.Vectors {
		t.Fatalf("stats differ: %+v vs %+v", stBefore, stAfter)
	}
	if dup := mustStore(t, e, StoreRequest{Content: "the boat is moored at pier 7", Scope: "sailing"}); dup.DuplicateOf != a.ID {
		t.Fatalf("dedup lost in the snapshot: %+v", dup)
	}
	if l, _ := e.List(ctx, ListRequest{Tags: []string{"boat"}}); l.Total != 1 {
		t.Fatalf("tags lost in the snapshot: %d", l.Total)
	}
	if r, err := e.Unforget(ctx, []string{gone.ID}); err != nil || len(r) != 1 {
		t.Fatalf("forgotten flag lost in the snapshot: %v %v", r, err)
	}
	env.close(store, e)
}

// TestSnapshotNotTrustedAfterOtherWrites: anything that opens the store
// may write, so the next start loads from the database.
func TestSnapshotNotTrustedAfterOtherWrites(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: embed.NewHash(512)}
	ctx := testenv.Context(t)
	store, e := env.open()
	mustStore(t, e, StoreRequest{Content: "written through the engine"})
	env.close(store, e)

	// Another process (a restore, say) writes directly.
	other, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: env.root})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	m := &mongostore.Memory{ID: bson.NewObjectID(), Timestamp: now, Text: "written behind the engine's back", Scope: "Global", Tags: []string{}, Source: "note", CreatedAt: now, UpdatedAt: now}
	if err := other.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	env.close(other, nil)

	store, e = env.open()
	defer env.close(store, e)
	if source(t, e) != "database" {
		t.Fatal("snapshot trusted after another process opened the store")
	}
	if res, _ := e.Search(ctx, SearchRequest{Query: "behind the engine's back", Mode: ModeKeyword}); len(relevant(res)) != 1 || res.Results[0].ID != m.ID.Hex() {
		t.Fatalf("outside write not visible: %v", texts(res.Results))
	}
}

// TestSnapshotAfterCrash: a crash without writes keeps the snapshot; a
// crash after writes keeps it too, with the journaled changes applied.
func TestSnapshotAfterCrash(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: embed.NewHash(512)}
	store, e := env.open()
	mustStore(t, e, StoreRequest{Content: "before the snapshot"})
	env.close(store, e)

	// Started from the snapshot, no writes, then a crash (no Close).
	store, e = env.open()
	if source(t, e) != "snapshot" {
		t.Fatal("clean restart did not use the snapshot")
	}
	e.stop()
	store.Close(context.Background())

	store, e = env.open()
	if source(t, e) != "snapshot" {
		t.Fatal("a crash without writes lost the snapshot")
	}
	mustStore(t, e, StoreRequest{Content: "after the snapshot"})
	e.stop() // crash after a write
	store.Close(context.Background())

	store, e = env.open()
	defer env.close(store, e)
	if source(t, e) != "snapshot" {
		t.Fatal("the journal did not keep the snapshot usable after a crash")
	}
	if res, _ := e.Search(testenv.Context(t), SearchRequest{Query: "after the snapshot", Mode: ModeKeyword}); len(res.Results) == 0 {
		t.Fatal("write after the snapshot lost")
	}
}

func TestSnapshotDamagedFileFallsBack(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: embed.NewHash(512)}
	store, e := env.open()
	mustStore(t, e, StoreRequest{Content: "survives a damaged snapshot"})
	env.close(store, e)
	path := filepath.Join(env.root.MongoDataDir(), SnapshotFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x40
	os.WriteFile(path, data, 0o600)
	store, e = env.open()
	defer env.close(store, e)
	if source(t, e) != "database" {
		t.Fatal("damaged snapshot used")
	}
	if res, _ := e.Search(testenv.Context(t), SearchRequest{Query: "damaged snapshot", Mode: ModeKeyword}); len(relevant(res)) != 1 {
		t.Fatal("memory lost")
	}
}

// TestSnapshotDatabaseAfterOtherWrites: a process that changed the
// database by other means than an engine (a restore) writes a snapshot of
// it with SnapshotDatabase; the next engine starts from that snapshot and
// holds what the database holds, not what the snapshot the store's token
// named (taken before the change) held.
func TestSnapshotDatabaseAfterOtherWrites(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: embed.NewHash(512)}
	ctx := testenv.Context(t)
	store, e := env.open()
	gone := mustStore(t, e, StoreRequest{Content: "The boat is moored at pier nine"})
	env.close(store, e) // a snapshot holding it

	// Another process (a restore, say) opens the store, which names that
	// snapshot as current, and changes the database directly.
	other, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: env.root})
	if err != nil {
		t.Fatal(err)
	}
	if other.SnapshotToken() == "" {
		t.Fatal("the store names no snapshot: the test would not test the stale one")
	}
	goneID, _ := bson.ObjectIDFromHex(gone.ID)
	if ok, err := other.Memories.Delete(ctx, goneID); err != nil || !ok {
		t.Fatalf("delete: %v %v", ok, err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	text := "The spare key is under the blue flowerpot"
	m := &mongostore.Memory{ID: bson.NewObjectID(), Timestamp: now, Text: text, Scope: "Global", Tags: []string{},
		Source: "note", ContentHash: keyHex(contentKey(text)), CreatedAt: now, UpdatedAt: now}
	if err := other.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	opts := Options{Embedder: env.emb, Logger: testenv.Logger(t), SnapshotPath: env.root.Path(dataroot.MongoData, SnapshotFile)}
	if err := SnapshotDatabase(ctx, other, opts); err != nil {
		t.Fatal(err)
	}
	env.close(other, nil)

	store, e = env.open()
	defer env.close(store, e)
	if source(t, e) != "snapshot" {
		t.Fatal("the start after SnapshotDatabase read the database")
	}
	if _, ok := e.index().Lookup(goneID); ok {
		t.Fatal("the index holds a memory deleted before SnapshotDatabase: the stale snapshot was used")
	}
	if _, ok := e.index().Lookup(m.ID); !ok {
		t.Fatal("the index lacks the memory written before SnapshotDatabase")
	}
	res, _ := e.Search(ctx, SearchRequest{Query: "where is the spare key", Mode: ModeKeyword})
	if got := relevant(res); len(got) != 1 || got[0].ID != m.ID.Hex() {
		t.Fatalf("search after the start from the written snapshot: %v", texts(res.Results))
	}
	// The engine journals its writes against that snapshot as against any.
	mustStore(t, e, StoreRequest{Content: "Bring the spare sail on Saturday"})
}
