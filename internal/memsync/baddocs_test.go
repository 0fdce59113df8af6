package memsync

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

// TestSyncSkipsBadDocuments (issue 22, item 5): documents in the shared
// database that break the rules a restore applies — one that does not
// decode ("text": 5), one that decodes but is hostile (2 MB of text, 300
// tags, importance 7, scope ALL, a date in the year 3000) — announced by
// a forged device whose name sorts first, neither stop the follower from
// applying the other devices' changes nor a later start from loading, and
// neither reaches the index; both are recorded.
func TestSyncSkipsBadDocuments(t *testing.T) {
	sa, sb := syncPair(t)
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	a := syncEngine(t, sa, clk, Options{Device: "a"})
	b := syncEngine(t, sb, clk, Options{Device: "b"})
	ctx := testenv.Context(t)

	undecodable, hostile := bson.NewObjectID(), bson.NewObjectID()
	now := time.Now().UTC()
	year3000 := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	tags := make([]string, 300)
	for i := range tags {
		tags[i] = "tag" + strings.Repeat("x", i%20)
	}
	raw := sa.Memories.Raw()
	if _, err := raw.InsertOne(ctx, bson.D{{Key: "_id", Value: undecodable}, {Key: "text", Value: 5},
		{Key: "scope", Value: "work"}, {Key: "timestamp", Value: now}}); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.InsertOne(ctx, bson.D{{Key: "_id", Value: hostile}, {Key: "text", Value: "pelican " + strings.Repeat("z", 2<<20)},
		{Key: "scope", Value: "ALL"}, {Key: "tags", Value: tags}, {Key: "importance", Value: 7.0}, {Key: "source", Value: "conversation"},
		{Key: "timestamp", Value: year3000}, {Key: "created_at", Value: year3000}, {Key: "updated_at", Value: year3000}, {Key: "device", Value: "0"}}); err != nil {
		t.Fatal(err)
	}
	feed := sa.Feed()
	for i, id := range []bson.ObjectID{undecodable, hostile} {
		if err := feed.Append(ctx, &mongostore.FeedEntry{Device: "0", Seq: int64(i + 1), MemoryID: id, Kind: "memory", Op: "insert", At: now}); err != nil {
			t.Fatal(err)
		}
	}
	if err := feed.SetDevice(ctx, "0", bson.D{{Key: "first", Value: int64(1)}, {Key: "head", Value: int64(2)}}); err != nil {
		t.Fatal(err)
	}

	// B's store still reaches A, past device "0"'s entries.
	r := mustStore(t, b, memory.StoreRequest{Content: "the quarterly pelican report is due on Friday", Scope: "work"})
	waitLong(t, 30*time.Second, "A applies B's store past the bad documents", func() bool { return finds(t, a, "pelican report", r.ID) })
	for _, e := range []engine{a, b} {
		// Reading the 2 MB document takes a while (under -race).
		waitLong(t, 30*time.Second, "device 0's two entries applied", func() bool { return e.SyncStatus(ctx).Position["0"] == 2 })
		if _, err := e.Get(ctx, hostile.Hex()); err == nil {
			t.Fatal("the hostile document reached the index")
		}
		if n, recent := e.Skipped(); n != 2 || len(recent) < 2 {
			t.Fatalf("skipped = %d %+v, want the 2 bad documents", n, recent)
		}
	}

	// A later start reads the whole database (no snapshot): it loads,
	// leaves both out, and serves the rest.
	c := startEngine(t, sa, memory.Options{Now: clk.Now}, &Options{Device: "c"})
	<-c.Loaded()
	if !c.Ready() {
		t.Fatalf("the index did not load: %v", c.LoadErr())
	}
	if !finds(t, c, "pelican report", r.ID) {
		t.Fatal("the new engine does not find B's memory")
	}
	n, recent := c.Skipped()
	if n != 2 {
		t.Fatalf("the new engine skipped %d documents, want 2: %+v", n, recent)
	}
	reasons := recent[0].Reason + " | " + recent[1].Reason
	if !strings.Contains(reasons, "does not decode") || !strings.Contains(reasons, "bytes; the limit is") {
		t.Fatalf("reasons: %s", reasons)
	}
}

// TestLoadFailureRetried (issue 22, item 5): an index load that fails
// says so (LoadErr, every request's error) instead of "loading", and is
// tried again until it loads.
func TestLoadFailureRetried(t *testing.T) {
	sa, _ := syncPair(t)
	ctx := testenv.Context(t)
	// This device's own record, damaged: the load cannot start sync.
	if err := sa.Feed().SetDevice(ctx, "c", bson.D{{Key: "first", Value: "one"}}); err != nil {
		t.Fatal(err)
	}
	e := startEngine(t, sa, memory.Options{LoadRetry: 20 * time.Millisecond, LoadWait: 100 * time.Millisecond}, &Options{Device: "c"})
	<-e.Loaded()
	if e.Ready() || e.LoadErr() == nil {
		t.Fatalf("after a failed load: ready %v, error %v", e.Ready(), e.LoadErr())
	}
	if _, err := e.Search(ctx, memory.SearchRequest{Query: "anything"}); err == nil || !strings.Contains(err.Error(), "failed to load") {
		t.Fatalf("a search while the load fails: %v", err)
	}
	if err := sa.Feed().SetDevice(ctx, "c", bson.D{{Key: "first", Value: int64(1)}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the load tried again and loaded", e.Ready)
	if e.LoadErr() != nil {
		t.Fatal(e.LoadErr())
	}
	if _, err := e.Search(ctx, memory.SearchRequest{Query: "anything"}); err != nil {
		t.Fatal(err)
	}
}

// waitLong is eventually with a bound of its own: reading a document of
// megabytes under -race on a loaded machine takes seconds; what matters
// here is that it happens, not how fast (without the fix it never does).
func waitLong(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
