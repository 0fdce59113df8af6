package backup

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/memsync"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// syncedEngine is a memory engine with its sync.
type syncedEngine struct {
	*memory.Engine
	sync *memsync.Sync
}

func (e syncedEngine) SyncStatus(ctx context.Context) *memsync.Status { return e.sync.Status(ctx) }

// syncEngine starts a memory engine with sync on, as a daemon would.
func syncEngine(t *testing.T, s *mongostore.Store, device string) syncedEngine {
	t.Helper()
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, s, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	sy := memsync.New(s, memsync.Options{Device: device, Poll: 50 * time.Millisecond})
	e := memory.New(s, reg, memory.Options{Logger: testenv.Logger(t), Follower: sy})
	e.Start(ctx)
	t.Cleanup(func() { e.Close(context.Background()) })
	select {
	case <-e.Loaded():
	case <-ctx.Done():
		t.Fatal("index not loaded")
	}
	if !e.Ready() {
		t.Fatal("index failed to load")
	}
	return syncedEngine{e, sy}
}

func engineFinds(t *testing.T, e syncedEngine, query, id string) bool {
	t.Helper()
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

func within(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRestoreWithSync: two devices share one database; device a restores
// a backup. Device b, which never stopped, learns of it from the change
// feed, reloads its whole index (and says why), and then holds exactly the
// restored memories; every device's snapshot record is gone, the records
// describing the feed and the lease are the live ones, not the backup's,
// and a's next writes still reach b.
func TestRestoreWithSync(t *testing.T) {
	ctx := testenv.Context(t)
	rootA := testenv.Root(t)
	open := func(o mongostore.Options) *mongostore.Store {
		s, err := mongostore.Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(context.Background()) })
		return s
	}
	sa := open(mongostore.Options{Mode: mongostore.ModeEmbedded, Root: rootA, Database: testenv.DBName(t), Device: "a", Logger: testenv.Logger(t)})
	sb := open(mongostore.Options{Mode: mongostore.ModeExternal, URI: sa.URI(), Root: testenv.Root(t), Database: testenv.DBName(t), Device: "b", Logger: testenv.Logger(t)})
	a := syncEngine(t, sa, "a")
	b := syncEngine(t, sb, "b")

	kept, err := a.Store(ctx, memory.StoreRequest{Content: "the walrus census counted forty animals"})
	if err != nil {
		t.Fatal(err)
	}
	within(t, 2*time.Second, "b finds a's first memory", func() bool { return engineFinds(t, b, "walrus census", kept.ID) })
	// A snapshot record of b's, as of the backup: the restore brings it
	// back with Metadata, and must withdraw it.
	if err := sb.RecordSnapshotAt(ctx, "token-of-b", map[string]int64{"a": 1}); err != nil {
		t.Fatal(err)
	}
	bk, err := Create(ctx, sa, Options{Dir: rootA.BackupsDir()})
	if err != nil {
		t.Fatal(err)
	}

	// After the backup: a stores more, b sees it, and b takes the lease.
	lost, err := a.Store(ctx, memory.StoreRequest{Content: "the walrus census was cancelled this year"})
	if err != nil {
		t.Fatal(err)
	}
	within(t, 2*time.Second, "b finds a's second memory", func() bool { return engineFinds(t, b, "walrus cancelled", lost.ID) })
	if _, held, err := sa.AcquireLease(ctx, "maintenance", "b", time.Now(), time.Hour); err != nil || !held {
		t.Fatalf("lease: %v %v", held, err)
	}

	// a's daemon pauses (its engine closes) and restores.
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := Restore(ctx, sa, bk.Path, RestoreOptions{RunDir: rootA.RunDir(), TempDir: t.TempDir(), Device: "a", Logger: testenv.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.FeedMark, "a:") {
		t.Fatalf("restore not announced in the feed: %q", res.FeedMark)
	}

	within(t, 5*time.Second, "b reloads after the restore", func() bool { return b.SyncStatus(ctx).Reloads == 1 })
	st := b.SyncStatus(ctx)
	if !strings.Contains(st.ReloadReason, "device a restored a backup") {
		t.Fatalf("b's reload reason: %q", st.ReloadReason)
	}
	if !engineFinds(t, b, "walrus census", kept.ID) {
		t.Fatal("b lacks the restored memory")
	}
	if engineFinds(t, b, "walrus cancelled", lost.ID) {
		t.Fatal("b still finds a memory the restore removed")
	}
	if _, err := b.Get(ctx, lost.ID); err == nil {
		t.Fatal("b still holds a memory the restore removed")
	}

	var rec struct{ Token string }
	if err := sa.GetMeta(ctx, "index_snapshot:b", &rec); !errors.Is(err, mongostore.ErrNotFound) {
		t.Fatalf("b's snapshot record survived the restore: %+v, %v", rec, err)
	}
	if l, err := sa.ReadLease(ctx, "maintenance"); err != nil || l.Holder != "b" {
		t.Fatalf("the live lease was not carried over the restore: %+v, %v", l, err)
	}

	// a's daemon resumes with a new engine: its numbering continues after
	// the mark, so b, following from past the mark, sees its next store.
	a2 := syncEngine(t, sa, "a")
	after, err := a2.Store(ctx, memory.StoreRequest{Content: "the walrus census resumes in spring"})
	if err != nil {
		t.Fatal(err)
	}
	within(t, 2*time.Second, "b finds a's store after the restore", func() bool { return engineFinds(t, b, "walrus spring", after.ID) })
	if st := b.SyncStatus(ctx); st.Reloads != 1 {
		t.Fatalf("b reloaded %d times; want once", st.Reloads)
	}

	// A restore from a machine with sync off (its store has no device)
	// still tells the devices sharing the database, under a name no
	// daemon can have.
	sc, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeExternal, URI: sa.URI(), Root: testenv.Root(t), Database: testenv.DBName(t), Logger: testenv.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(context.Background())
	res, err = Restore(ctx, sc, bk.Path, RestoreOptions{RunDir: t.TempDir(), TempDir: t.TempDir(), Logger: testenv.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if res.FeedMark != mongostore.FeedKey(mongostore.RestoreDevice, 1) {
		t.Fatalf("restore without a device announced as %q", res.FeedMark)
	}
	within(t, 5*time.Second, "b reloads after the second restore", func() bool { return b.SyncStatus(ctx).Reloads == 2 })
	within(t, 5*time.Second, "a reloads after the second restore", func() bool { return a2.SyncStatus(ctx).Reloads == 1 })
	if engineFinds(t, b, "walrus spring", after.ID) {
		t.Fatal("b still finds a memory the second restore removed")
	}
}
