package memsync

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

var la, _ = time.LoadLocation("America/Los_Angeles")

// engine is a memory engine with its sync (nil: sync off).
type engine struct {
	*memory.Engine
	sync *Sync
}

// SyncStatus is the sync's status.
func (e engine) SyncStatus(ctx context.Context) *Status { return e.sync.Status(ctx) }

// startEngine builds an engine on store with o (sync o.sync, when set)
// and starts it; it does not wait for its index.
func startEngine(t testing.TB, store *mongostore.Store, o memory.Options, so *Options) engine {
	t.Helper()
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	if o.Logger == nil {
		o.Logger = testenv.Logger(t)
	}
	if o.Location == nil {
		o.Location = la
	}
	var e engine
	if so != nil {
		if so.Poll == 0 {
			so.Poll = 50 * time.Millisecond
		}
		e.sync = New(store, *so)
		o.Follower = e.sync
	}
	e.Engine = memory.New(store, reg, o)
	e.Start(ctx)
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}

// waitLoaded waits for e's index.
func waitLoaded(t testing.TB, e engine) {
	t.Helper()
	<-e.Loaded()
	if !e.Ready() {
		t.Fatalf("the index did not load: %v", e.LoadErr())
	}
}

func mustStore(t *testing.T, e engine, req memory.StoreRequest) memory.StoreResult {
	t.Helper()
	res, err := e.Store(testenv.Context(t), req)
	if err != nil {
		t.Fatalf("store %q: %v", req.Content, err)
	}
	return res
}

// syncPair opens two stores on one embedded database: A's own (embedded)
// and B's (external, through A's socket), each with its own device name
// and data root, as two daemons would.
func syncPair(t *testing.T) (a, b *mongostore.Store) {
	t.Helper()
	ctx := testenv.Context(t)
	open := func(o mongostore.Options) *mongostore.Store {
		s, err := mongostore.Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(context.Background()) })
		return s
	}
	a = open(mongostore.Options{Mode: mongostore.ModeEmbedded, Root: testenv.Root(t), Database: testenv.DBName(t), Device: "a", Logger: testenv.Logger(t)})
	b = open(mongostore.Options{Mode: mongostore.ModeExternal, URI: a.URI(), Root: testenv.Root(t), Database: testenv.DBName(t), Device: "b", Logger: testenv.Logger(t)})
	return a, b
}

func syncEngine(t *testing.T, store *mongostore.Store, clk *clock, o Options) engine {
	t.Helper()
	e := startEngine(t, store, memory.Options{Now: clk.Now}, &o)
	waitLoaded(t, e)
	return e
}

// eventually polls cond for up to 2 s, the time the issue allows another
// device to see a change.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 2 s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func finds(t *testing.T, e engine, query, id string) bool {
	res, err := e.Search(testenv.Context(t), memory.SearchRequest{Query: query, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Results {
		if m.ID == id {
			return true
		}
	}
	return false
}

func TestSyncTwoDevices(t *testing.T) {
	sa, sb := syncPair(t)
	clkA := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	clkB := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	a := syncEngine(t, sa, clkA, Options{Device: "a"})
	b := syncEngine(t, sb, clkB, Options{Device: "b"})
	ctx := testenv.Context(t)

	r := mustStore(t, a, memory.StoreRequest{Content: "the quarterly pelican report is due on Friday", Scope: "work"})
	eventually(t, "B finds A's store", func() bool { return finds(t, b, "pelican report", r.ID) })
	m, err := sa.Memories.Get(ctx, mustOID(t, r.ID))
	if err != nil || m.Device != "a" {
		t.Fatalf("stored memory's device = %q, %v", m.Device, err)
	}

	// An edit on B reaches A, and names B.
	text := "the quarterly pelican report moved to Monday"
	clkB.Set(clkB.Now().Add(time.Minute))
	if _, err := b.Update(ctx, memory.UpdateRequest{ID: r.ID, Content: &text}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "A sees B's edit", func() bool {
		got, err := a.Get(ctx, r.ID)
		return err == nil && got.Text == text
	})
	if m, _ := sa.Memories.Get(ctx, mustOID(t, r.ID)); m.Device != "b" {
		t.Fatalf("edited memory's device = %q", m.Device)
	}

	// An edit older than the stored one loses, and says so.
	older := "the pelican report is cancelled"
	if _, err := a.Update(ctx, memory.UpdateRequest{ID: r.ID, Content: &older}); !errors.Is(err, memory.ErrConflict) {
		t.Fatalf("older edit: err = %v, want ErrConflict", err)
	}
	if got, _ := b.Get(ctx, r.ID); got.Text != text {
		t.Fatalf("older edit applied: %q", got.Text)
	}

	// A forget on A disappears on B.
	if _, err := a.Forget(ctx, memory.ForgetRequest{ID: r.ID}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "B no longer finds the forgotten memory", func() bool { return !finds(t, b, "pelican report", r.ID) })
	// A later edit on B does not bring it back.
	clkB.Set(clkB.Now().Add(time.Hour))
	newer := "pelican report: resurrected?"
	if _, err := b.Update(ctx, memory.UpdateRequest{ID: r.ID, Content: &newer}); err == nil {
		t.Fatal("an edit of a memory forgotten on another device succeeded")
	}
	if m, _ := sa.Memories.Get(ctx, mustOID(t, r.ID)); m.ForgottenAt == nil || m.Text != text {
		t.Fatalf("forgotten memory changed: %+v", m)
	}

	st := b.SyncStatus(ctx)
	if st == nil || st.Device != "b" || st.Position["a"] < 2 || st.Applied < 2 {
		t.Fatalf("B's sync status: %+v", st)
	}
}

// TestSyncBehindTrimPoint: a device whose position is behind another's
// oldest kept feed entry reloads its whole index, says so, and then finds
// everything.
func TestSyncBehindTrimPoint(t *testing.T) {
	sa, sb := syncPair(t)
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	b := syncEngine(t, sb, clk, Options{Device: "b", KeepEntries: 5, TrimEvery: time.Hour})
	ctx := testenv.Context(t)
	var ids []string
	for i := range 12 {
		ids = append(ids, mustStore(t, b, memory.StoreRequest{Content: fmt.Sprintf("zebra fact number %d about stripes", i)}).ID)
	}
	n, err := b.sync.trimFeed(ctx, clk.Now())
	if err != nil || n != 7 {
		t.Fatalf("trimmed %d, %v; want 7", n, err)
	}
	if _, err := sb.Feed().Get(ctx, "b", 7); !errors.Is(err, mongostore.ErrNotFound) {
		t.Fatalf("entry 7 not trimmed: %v", err)
	}
	// A starts at position 0 of b (as if it had been away): behind.
	a := syncEngine(t, sa, clk, Options{Device: "a"})
	a.Follow(ctx, func(f *memory.Followed) error { f.Advance("b", 0); return nil })
	eventually(t, "A reloads", func() bool { return a.SyncStatus(ctx).Reloads == 1 })
	if st := a.SyncStatus(ctx); st.Position["b"] != 12 {
		t.Fatalf("after the reload A's position is %v", st.Position)
	}
	for _, id := range ids {
		if _, err := a.Get(ctx, id); err != nil {
			t.Fatalf("A lacks %s after the reload: %v", id, err)
		}
	}
}

// TestSyncSnapshotKeepsFeedPosition: a snapshot is trusted with the feed
// position it was taken at; another device's writes while this one was
// down are replayed from there, not lost, and do not cost a full load.
func TestSyncSnapshotKeepsFeedPosition(t *testing.T) {
	sa, sb := syncPair(t)
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	ctx := testenv.Context(t)
	snap := t.TempDir() + "/b.snap"
	open := func() engine {
		e := startEngine(t, sb, memory.Options{Now: clk.Now, SnapshotPath: snap}, &Options{Device: "b"})
		waitLoaded(t, e)
		return e
	}
	a := syncEngine(t, sa, clk, Options{Device: "a"})
	b := open()
	first := mustStore(t, a, memory.StoreRequest{Content: "the heron nests by the lake"})
	eventually(t, "B sees A's first store", func() bool { return finds(t, b, "heron nests", first.ID) })
	if err := b.Close(ctx); err != nil { // takes the snapshot
		t.Fatal(err)
	}
	// B is down; A writes.
	second := mustStore(t, a, memory.StoreRequest{Content: "the heron left for the winter"})
	if _, err := a.Forget(ctx, memory.ForgetRequest{ID: first.ID}); err != nil {
		t.Fatal(err)
	}
	// B's store reads its own snapshot record at Open: reopen it as a new
	// daemon would.
	sb2, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeExternal, URI: sa.URI(), Root: testenv.Root(t), Database: testenv.DBName(t), Device: "b", Logger: testenv.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer sb2.Close(context.Background())
	if sb2.SnapshotToken() == "" || sb2.SnapshotFeed()["a"] != 1 {
		t.Fatalf("B's snapshot record: token %q feed %v", sb2.SnapshotToken(), sb2.SnapshotFeed())
	}
	sb = sb2
	b2 := open()
	defer b2.Close(context.Background())
	if st, err := b2.Stats(ctx); err != nil || st.IndexSource != "snapshot" {
		t.Fatal("B did not start from its snapshot although only another device wrote")
	}
	eventually(t, "B replays what A wrote while it was down", func() bool {
		return finds(t, b2, "heron winter", second.ID) && !finds(t, b2, "heron nests", first.ID)
	})
}

func mustOID(t *testing.T, id string) bson.ObjectID {
	t.Helper()
	oid, err := bson.ObjectIDFromHex(id)
	if err != nil {
		t.Fatal(err)
	}
	return oid
}

// TestSyncStreamFallsBackToPolling: a follower told the server offers
// change streams, on an engine that has none (the embedded one), cannot
// open its stream; it says so and keeps hearing of changes by polling.
func TestSyncStreamFallsBackToPolling(t *testing.T) {
	sa, sb := syncPair(t)
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	a := syncEngine(t, sa, clk, Options{Device: "a"})
	b := syncEngine(t, sb, clk, Options{Device: "b", ChangeStreams: true, assumeStreams: true})
	ctx := testenv.Context(t)
	r := mustStore(t, a, memory.StoreRequest{Content: "the osprey dives for trout at dawn"})
	eventually(t, "B finds A's store without a stream", func() bool { return finds(t, b, "osprey trout", r.ID) })
	eventually(t, "B reports its stream failing", func() bool {
		st := b.SyncStatus(ctx)
		return st.StreamError != ""
	})
	st := b.SyncStatus(ctx)
	if !strings.HasPrefix(st.Mode, ModeChangeStream) || st.Streaming {
		t.Fatalf("B's follow mode: %+v", st)
	}
	t.Logf("B: mode %q, stream error %q", st.Mode, st.StreamError)
	// Asked for streams on a server without them: polling, and why.
	c := syncEngine(t, sb, clk, Options{Device: "c", ChangeStreams: true})
	if st := c.SyncStatus(ctx); st.Mode != ModeFeedPolling || !strings.Contains(st.StreamError, "no change streams") {
		t.Fatalf("C's follow mode: %+v", st)
	}
	// Without the option nothing is asked.
	if st := a.SyncStatus(ctx); st.Mode != ModeFeedPolling || st.StreamError != "" {
		t.Fatalf("A's follow mode: %+v", st)
	}
}

// TestSyncResumeTokenPersisted: the stream's resume token is kept in the
// device record with the position, and the next engine of the device
// starts from it.
func TestSyncResumeTokenPersisted(t *testing.T) {
	sa, _ := syncPair(t)
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	a := syncEngine(t, sa, clk, Options{Device: "a"})
	ctx := testenv.Context(t)
	tok, err := bson.Marshal(bson.D{{Key: "_data", Value: "82650000000000000001"}})
	if err != nil {
		t.Fatal(err)
	}
	a.sync.setToken(tok)
	a.Follow(ctx, func(f *memory.Followed) error { f.Advance("b", 4); return nil })
	a.sync.savePosition(ctx)
	rec, err := sa.Feed().Device(ctx, "a")
	if err != nil || string(rec.ResumeToken) != string(tok) || rec.Position["b"] != 4 {
		t.Fatalf("device record: %+v %v", rec, err)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	a2 := syncEngine(t, sa, clk, Options{Device: "a"})
	if got := a2.sync.resumeToken(); string(got) != string(tok) {
		t.Fatalf("the next engine starts from token %x, want %x", got, tok)
	}
}

func TestStreamRetry(t *testing.T) {
	lost := fmt.Errorf("cannot open a change stream: %w", mongo.CommandError{Code: 286, Name: "ChangeStreamHistoryLost"})
	if !streamRetry(lost, true) {
		t.Error("history lost with a token: the token must go")
	}
	if streamRetry(lost, false) {
		t.Error("history lost without a token: nothing to drop")
	}
	if streamRetry(errors.New("connection reset by peer"), true) {
		t.Error("a network error drops the token")
	}
}

// TestSyncDeviceConflict: a second daemon starting under a device name
// in use is noticed by the first.
func TestSyncDeviceConflict(t *testing.T) {
	sa, sb := syncPair(t)
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	a := syncEngine(t, sa, clk, Options{Device: "same", Host: "laptop"})
	ctx := testenv.Context(t)
	if st := a.SyncStatus(ctx); st.Conflict != "" {
		t.Fatalf("conflict before any other: %q", st.Conflict)
	}
	syncEngine(t, sb, clk, Options{Device: "same", Host: "desktop"})
	eventually(t, "A notices the other daemon", func() bool { return a.SyncStatus(ctx).Conflict != "" })
	if c := a.SyncStatus(ctx).Conflict; !strings.Contains(c, "desktop") {
		t.Fatalf("conflict: %q", c)
	}
}

// TestSyncStreamEvents drives the stream follower's handling of events by
// hand, on a real engine whose poll never fires: an entry event of
// another device applies that device's entries at once; the follower's
// own entries and events before a full load change nothing; a collection
// replaced on the server reloads the index once the events stop; an
// invalidated stream ends.
func TestSyncStreamEvents(t *testing.T) {
	sa, sb := syncPair(t)
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	old := replacedQuiet
	replacedQuiet = 100 * time.Millisecond
	t.Cleanup(func() { replacedQuiet = old })
	a := syncEngine(t, sa, clk, Options{Device: "a"})
	b := syncEngine(t, sb, clk, Options{Device: "b", Poll: time.Hour})
	ctx := testenv.Context(t)

	r := mustStore(t, a, memory.StoreRequest{Content: "the kingfisher nests in the riverbank"})
	if finds(t, b, "kingfisher riverbank", r.ID) {
		t.Fatal("B found A's store before any event")
	}
	entry, err := sa.Feed().Get(ctx, "a", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.sync.applyStreamEvent(ctx, &mongostore.FeedEvent{Op: "insert", Entry: entry, Token: bson.Raw(mustMarshal(t, bson.D{{Key: "_data", Value: "01"}}))}); err != nil {
		t.Fatal(err)
	}
	if !finds(t, b, "kingfisher riverbank", r.ID) {
		t.Fatal("B did not apply A's entry on its event")
	}
	if st := b.SyncStatus(ctx); st.Position["a"] != 1 || len(b.sync.resumeToken()) == 0 {
		t.Fatalf("B after the event: position %v, token %x", st.Position, b.sync.resumeToken())
	}

	// A replacement older than the last full load is already read.
	b.sync.applyStreamEvent(ctx, &mongostore.FeedEvent{Op: "rename", Coll: mongostore.ConversationHistory, At: time.Now().Add(-time.Hour)})
	time.Sleep(150 * time.Millisecond)
	if err := b.sync.reloadIfReplaced(ctx); err != nil || b.SyncStatus(ctx).Reloads != 0 {
		t.Fatalf("reloaded for a replacement older than the index: %v %d", err, b.SyncStatus(ctx).Reloads)
	}
	// A new one reloads, once the events have stopped.
	b.sync.applyStreamEvent(ctx, &mongostore.FeedEvent{Op: "drop", Coll: mongostore.MemoryIndex, At: time.Now()})
	if err := b.sync.reloadIfReplaced(ctx); err != nil || b.SyncStatus(ctx).Reloads != 0 {
		t.Fatalf("reloaded before the events stopped: %v", err)
	}
	time.Sleep(150 * time.Millisecond)
	if err := b.sync.reloadIfReplaced(ctx); err != nil {
		t.Fatal(err)
	}
	if st := b.SyncStatus(ctx); st.Reloads != 1 || !strings.Contains(st.ReloadReason, "MemoryIndex was replaced") {
		t.Fatalf("after a drop: %+v", st)
	}
	if err := b.sync.applyStreamEvent(ctx, &mongostore.FeedEvent{Op: "invalidate"}); !errors.Is(err, errStreamInvalidated) {
		t.Fatalf("invalidate: %v", err)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLinksReachOtherDevices: a mark made on one device is seen by the
// other through the change feed.
func TestLinksReachOtherDevices(t *testing.T) {
	sa, sb := syncPair(t)
	clkA := &clock{t: time.Now()}
	clkB := &clock{t: time.Now()}
	a := syncEngine(t, sa, clkA, Options{Device: "a"})
	b := syncEngine(t, sb, clkB, Options{Device: "b"})
	ctx := testenv.Context(t)
	older := mustStore(t, a, memory.StoreRequest{Content: "The grant report is due on May 2.", Timestamp: time.Now().AddDate(0, 0, -40).UTC().Truncate(time.Millisecond)})
	newer := mustStore(t, a, memory.StoreRequest{Content: "The funder extended the grant report deadline to May 16.", Timestamp: time.Now().AddDate(0, 0, -3).UTC().Truncate(time.Millisecond)})
	if len(newer.Updates) != 1 {
		t.Fatalf("updates %+v", newer.Updates)
	}
	eventually(t, "B sees the mark", func() bool {
		m, err := b.Get(ctx, older.ID)
		return err == nil && m.SupersededBy != nil && m.SupersededBy.ID == newer.ID
	})
}
