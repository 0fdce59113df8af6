package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// crash stops an engine without its clean shutdown (no final snapshot),
// after its access updates and new embeddings reached the database
// (crashUnsettled leaves them out).
func crash(store *mongostore.Store, e *Engine) {
	e.access.Settle()
	e.writeMu.Lock()
	e.flushVectors(context.Background())
	e.writeMu.Unlock()
	crashUnsettled(store, e)
}

// crashUnsettled stops an engine as a crash would, with whatever was still
// to be written lost.
func crashUnsettled(store *mongostore.Store, e *Engine) {
	e.stop()
	store.Close(context.Background())
}

// indexDigest renders every index entry, with its vector's presence, in
// id order.
func indexDigest(e *Engine) []string { return e.index().Dump() }

// fullLoadDigest loads the index of the database behind root the slow way.
func fullLoadDigest(t *testing.T, root dataroot.Root, emb embed.Embedder) []string {
	t.Helper()
	ctx := testenv.Context(t)
	store, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(context.Background())
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	e := New(store, reg, Options{Embedder: emb})
	if err := e.load(ctx, false); err != nil {
		t.Fatal(err)
	}
	return indexDigest(e)
}

// TestJournalReplaysEveryKindOfWrite: after a crash that followed every
// kind of change the engine makes, the snapshot plus the journal give the
// same index as reading the whole database.
func TestJournalReplaysEveryKindOfWrite(t *testing.T) {
	emb := embed.NewHash(512)
	env := snapEnv{t: t, root: testenv.Root(t), emb: emb}
	ctx := testenv.Context(t)
	store, e := env.open()
	var ids []string
	for i := 0; i < 12; i++ {
		ids = append(ids, mustStore(t, e, StoreRequest{Content: fmt.Sprintf("memory %d about the harbour and boat number %d", i, i*7),
			Scope: "Sailing", ConversationID: "c1", Tags: []string{"t" + fmt.Sprint(i%3)}}).ID)
	}
	env.close(store, e) // clean stop: snapshot, empty journal

	store, e = env.open()
	if source(t, e) != "snapshot" {
		t.Fatal("clean restart did not use the snapshot")
	}
	fresh := mustStore(t, e, StoreRequest{Content: "stored after the snapshot: the mooring fee is 40 euros", Scope: "Sailing", Tags: []string{"fees"}})
	text := "memory 1 edited: the boat moved to pier 9"
	if _, err := e.Update(ctx, UpdateRequest{ID: ids[1], Content: &text, AddTags: []string{"moved"}}); err != nil {
		t.Fatal(err)
	}
	other := "Travel"
	if _, err := e.Update(ctx, UpdateRequest{ID: ids[2], Scope: &other}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Forget(ctx, ForgetRequest{ID: ids[3]}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Forget(ctx, ForgetRequest{ID: ids[4], Hard: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Forget(ctx, ForgetRequest{ID: ids[5]}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Unforget(ctx, []string{ids[5]}); err != nil {
		t.Fatal(err)
	}
	if n, err := e.Archive(ctx, []string{ids[6]}, "test"); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	if err := e.SetPinned(ctx, ids[7], true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Merge(ctx, ids[8], []string{ids[9]}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Forget(ctx, ForgetRequest{ID: ids[10]}); err != nil {
		t.Fatal(err)
	}
	if n, err := e.Purge(ctx, []string{ids[10]}); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	sum, err := e.AddSummary(ctx, SummaryInput{ConversationID: "c1", Scope: "Sailing", Text: "Summary: the boat, the harbour and the fees.",
		From: e.now().Add(-time.Hour), To: e.now(), Refs: ids[:2], Method: "extractive"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		e.Search(ctx, SearchRequest{Query: "harbour boat", Scope: "Sailing"})
	}
	before := indexDigest(e)
	crash(store, e)

	store, e = env.open()
	if source(t, e) != "snapshot" {
		t.Fatal("the snapshot was not used after a crash that followed journaled writes")
	}
	after := indexDigest(e)
	if d := diff(before, after); d != "" {
		t.Fatalf("index differs from the one before the crash:\n%s", d)
	}
	for _, id := range []string{fresh.ID, sum} {
		if _, err := e.Get(ctx, id); err != nil {
			t.Fatalf("%s lost: %v", id, err)
		}
	}
	if res, _ := e.Search(ctx, SearchRequest{Query: "mooring fee", Mode: ModeKeyword}); len(relevant(res)) == 0 || res.Results[0].ID != fresh.ID {
		t.Fatalf("new memory not searchable: %v", texts(res.Results))
	}
	now := indexDigest(e) // the searches above counted as uses
	crash(store, e)       // the database alone must give the same index
	want := fullLoadDigest(t, env.root, emb)
	if d := diff(want, now); d != "" {
		t.Fatalf("snapshot + journal differs from the database:\n%s", d)
	}
}

func diff(a, b []string) string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, "- "+x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, "+ "+x)
		}
	}
	return strings.Join(out, "\n")
}

// TestJournalLimitDropsSnapshot: past its limit the journal gives way to
// a full load, and repeated changes to one memory count once.
func TestJournalLimitDropsSnapshot(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: embed.NewHash(512), limit: 3}
	ctx := testenv.Context(t)
	open := env.open
	store, e := open()
	a := mustStore(t, e, StoreRequest{Content: "first memory"})
	env.close(store, e)

	store, e = open()
	for i := 0; i < 5; i++ {
		imp := 0.1 * float64(i+1)
		if _, err := e.Update(ctx, UpdateRequest{ID: a.ID, Importance: &imp}); err != nil {
			t.Fatal(err)
		}
	}
	mustStore(t, e, StoreRequest{Content: "second memory"})
	mustStore(t, e, StoreRequest{Content: "third memory"})
	if n := e.snap.jr.Count(); n != 3 {
		t.Fatalf("journal names %d memories, want 3", n)
	}
	crash(store, e)
	store, e = open()
	if source(t, e) != "snapshot" {
		t.Fatal("journal at its limit not used")
	}
	mustStore(t, e, StoreRequest{Content: "fourth memory, one too many"})
	if e.snap.valid || e.snap.jr != nil {
		t.Fatal("snapshot still vouched for past the journal limit")
	}
	crash(store, e)
	store, e = open()
	defer func() { env.close(store, e) }()
	if source(t, e) != "database" {
		t.Fatal("snapshot used although the journal overflowed")
	}
	if res, _ := e.Search(ctx, SearchRequest{Query: "fourth memory", Mode: ModeKeyword}); len(relevant(res)) != 1 || res.Results[0].Text != "fourth memory, one too many" {
		t.Fatal("write past the journal limit lost")
	}
}

// TestJournalDamage: a torn last record is ignored (its write never
// happened); damage elsewhere, another snapshot's journal or a missing
// journal all mean a full load.
func TestJournalDamage(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, path string)
		source string
	}{
		{"torn last record", func(t *testing.T, path string) {
			appendBytes(t, path, []byte{2, 0, 0, 0, 1, 2, 3})
		}, "snapshot"},
		{"zero-padded last record", func(t *testing.T, path string) {
			rec := make([]byte, 4+12+4)
			rec[0] = 1
			copy(rec[4:], []byte{9, 9, 9})
			appendBytes(t, path, rec)
		}, "snapshot"},
		{"zeros after the records", func(t *testing.T, path string) {
			appendBytes(t, path, make([]byte, 4096))
		}, "snapshot"},
		{"flipped byte in a record", func(t *testing.T, path string) {
			data, _ := os.ReadFile(path)
			data[len(data)-10] ^= 0x10
			os.WriteFile(path, data, 0o600)
		}, "database"},
		{"missing journal", func(t *testing.T, path string) {
			os.Remove(path)
		}, "database"},
		{"another snapshot's journal", func(t *testing.T, path string) {
			data, _ := os.ReadFile(path)
			data[12] ^= 0x01 // a token character
			os.WriteFile(path, data, 0o600)
		}, "database"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := snapEnv{t: t, root: testenv.Root(t), emb: embed.NewHash(512)}
			ctx := testenv.Context(t)
			store, e := env.open()
			mustStore(t, e, StoreRequest{Content: "kept by the snapshot"})
			env.close(store, e)
			store, e = env.open()
			mustStore(t, e, StoreRequest{Content: "kept by the journal"})
			crash(store, e)
			c.damage(t, memindex.JournalPath(env.root.Path(dataroot.MongoData, SnapshotFile)))

			store, e = env.open()
			if got := source(t, e); got != c.source {
				t.Fatalf("index from %s, want %s", got, c.source)
			}
			for _, q := range []string{"kept by the snapshot", "kept by the journal"} {
				if res, _ := e.Search(ctx, SearchRequest{Query: q, Mode: ModeKeyword}); len(res.Results) == 0 {
					t.Fatalf("%q lost", q)
				}
			}
			// After a torn record the journal goes on from its intact part.
			mustStore(t, e, StoreRequest{Content: "written after the restart"})
			crash(store, e)
			store, e = env.open()
			defer env.close(store, e)
			if res, _ := e.Search(ctx, SearchRequest{Query: "written after the restart", Mode: ModeKeyword}); len(relevant(res)) != 1 || res.Results[0].Text != "written after the restart" {
				t.Fatal("write after the restart lost")
			}
		})
	}
}

func appendBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// TestJournalNamesUnwrittenID: a journaled id whose database write never
// happened (a crash right after the journal append) is harmless.
func TestJournalNamesUnwrittenID(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: embed.NewHash(512)}
	store, e := env.open()
	mustStore(t, e, StoreRequest{Content: "a memory"})
	env.close(store, e)
	store, e = env.open()
	e.markDirty(context.Background(), bson.NewObjectID())
	crash(store, e)
	store, e = env.open()
	defer env.close(store, e)
	if source(t, e) != "snapshot" {
		t.Fatal("snapshot not used")
	}
	if st, _ := e.Stats(testenv.Context(t)); st.TotalMemories != 1 {
		t.Fatalf("%d memories, want 1", st.TotalMemories)
	}
	if _, err := os.Stat(filepath.Join(env.root.MongoDataDir(), SnapshotFile+".journal")); err != nil {
		t.Fatal(err)
	}
}

// TestNewIDsJournaledAhead: new memories take ids the journal already
// names, reserveIDs of them synced at once; after a crash the unused ones
// cost nothing but a read, and the snapshot plus the journal still give
// what the database holds.
func TestNewIDsJournaledAhead(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: embed.NewHash(512)}
	store, e := env.open()
	mustStore(t, e, StoreRequest{Content: "before the snapshot"})
	env.close(store, e)

	store, e = env.open()
	jpath := memindex.JournalPath(env.root.Path(dataroot.MongoData, SnapshotFile))
	var stored []string
	for i := range 3 {
		stored = append(stored, mustStore(t, e, StoreRequest{Content: fmt.Sprintf("stored after the snapshot, number %d", i)}).ID)
	}
	token := store.SnapshotToken()
	ids, _, err := memindex.ReadJournal(jpath, token)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != reserveIDs {
		t.Fatalf("the journal names %d ids, want one reservation of %d", len(ids), reserveIDs)
	}
	data, _ := os.ReadFile(jpath)
	if want := len(memindex.JournalHeader(token)) + 4 + 12*reserveIDs + 4; len(data) != want {
		t.Fatalf("journal of %d bytes, want %d: one record for three stores", len(data), want)
	}
	prev := ""
	for _, s := range stored {
		id, _ := bson.ObjectIDFromHex(s)
		if _, ok := ids[id]; !ok {
			t.Fatalf("stored id %s not journaled", s)
		}
		if s <= prev {
			t.Fatalf("ids do not grow with insertion: %s after %s", s, prev)
		}
		prev = s
	}
	before := indexDigest(e)
	crash(store, e)

	store, e = env.open()
	if source(t, e) != "snapshot" {
		t.Fatal("snapshot not used after the crash")
	}
	if d := diff(before, indexDigest(e)); d != "" {
		t.Fatalf("index differs after the crash:\n%s", d)
	}
	now := indexDigest(e)
	crash(store, e)
	if d := diff(fullLoadDigest(t, env.root, env.emb), now); d != "" {
		t.Fatalf("snapshot + journal differs from the database:\n%s", d)
	}
}
