package memory

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

// heldLoad holds an engine's index load at its end (loadHold) until
// release; held closes when the load got there.
type heldLoad struct {
	held, release chan struct{}
	once          sync.Once
}

func (h *heldLoad) hold() {
	h.once.Do(func() { close(h.held) })
	<-h.release
}

// openHeld opens the engine of env's root with its load held at its end;
// it returns once the load is there.
func (s snapEnv) openHeld() (*mongostore.Store, *Engine, *heldLoad) {
	s.t.Helper()
	ctx := testenv.Context(s.t)
	store, reg := s.openStore()
	// LoadWait short: the old engine refused a write after it.
	e := New(store, reg, Options{Embedder: s.emb, Logger: testenv.Logger(s.t), SnapshotPath: s.root.Path(dataroot.MongoData, SnapshotFile),
		LoadWait: 200 * time.Millisecond})
	h := &heldLoad{held: make(chan struct{}), release: make(chan struct{})}
	e.loadHold = h.hold
	e.Start(ctx)
	select {
	case <-h.held:
	case <-time.After(time.Minute):
		s.t.Fatal("the load did not reach its hold")
	}
	if e.Ready() {
		s.t.Fatal("the index is ready while its load is held")
	}
	return store, e, h
}

// TestWritesWhileTheIndexLoads: stores sent while the index loads (from the
// database, or from the snapshot) are stored at once and say they were not
// compared; an update and forgets sent meanwhile wait for the load instead
// of being refused (the old engine refused all of them after LoadWait).
// After the load each write is in the index exactly once and searchable,
// and after a crash and after a clean restart too, the index is the one a
// full read of the database gives.
func TestWritesWhileTheIndexLoads(t *testing.T) {
	for _, from := range []string{"database", "snapshot"} {
		t.Run(from, func(t *testing.T) {
			// Without an embedder on the snapshot side: the background
			// embedder's writes would journal the late memories again and
			// hide a snapshot that does not name them.
			var emb embed.Embedder
			if from == "database" {
				emb = embed.NewHash(512)
			}
			env := snapEnv{t: t, root: testenv.Root(t), emb: emb}
			ctx := testenv.Context(t)
			store, e := env.open()
			a := mustStore(t, e, StoreRequest{Content: "The garage door code is 4417", Scope: "Home"}).ID
			b := mustStore(t, e, StoreRequest{Content: "The plumber Jonas comes on Thursdays", Scope: "Home"}).ID
			mustStore(t, e, StoreRequest{Content: "The Apollo review is on June 5", Scope: "Work"})
			if from == "snapshot" {
				env.close(store, e) // writes the snapshot
			} else {
				crash(store, e) // no snapshot: the next start reads the database
			}

			store, e, h := env.openHeld()
			x := mustStore(t, e, StoreRequest{Content: "The spare key is under the blue flowerpot", Scope: "Home", Tags: []string{"keys"}})
			sum := mustStore(t, e, StoreRequest{Content: "Summary: chores around the house and where the keys are", Source: "summary", Scope: "Home"})
			y := mustStore(t, e, StoreRequest{Content: "The bike lock combination is 9931", Scope: "Home"})
			for _, r := range []StoreResult{x, sum, y} {
				if r.Unchecked == "" || r.DuplicateOf != "" {
					t.Fatalf("store while loading: %+v", r)
				}
			}
			if sum.Collection != mongostore.Summaries {
				t.Fatalf("summary stored in %s", sum.Collection)
			}
			type result struct {
				what string
				err  error
			}
			done := make(chan result, 3)
			code := "The garage door code is 5521"
			go func() {
				_, err := e.Update(ctx, UpdateRequest{ID: a, Content: &code})
				done <- result{"update", err}
			}()
			go func() {
				_, err := e.Forget(ctx, ForgetRequest{ID: b, Hard: true})
				done <- result{"hard forget", err}
			}()
			go func() {
				// A memory stored during the load, forgotten during it.
				_, err := e.Forget(ctx, ForgetRequest{ID: y.ID})
				done <- result{"forget of a late memory", err}
			}()
			select {
			case r := <-done:
				t.Fatalf("%s ended while the load was held: %v", r.what, r.err)
			case <-time.After(5 * e.opts.LoadWait):
			}
			close(h.release)
			for range 3 {
				if r := <-done; r.err != nil {
					t.Fatalf("%s: %v", r.what, r.err)
				}
			}
			if !e.Ready() {
				t.Fatal("not ready after the writes")
			}
			check := func(e *Engine, when string) {
				t.Helper()
				for q, want := range map[string]string{"spare key flowerpot": x.ID, "chores house keys summary": sum.ID, "garage door code": a} {
					res, err := e.Search(ctx, SearchRequest{Query: q, Mode: ModeKeyword, Scope: "ALL"})
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Results) == 0 || res.Results[0].ID != want {
						t.Fatalf("%s: %q finds %v", when, q, texts(res.Results))
					}
					if q == "garage door code" && !strings.Contains(res.Results[0].Text, "5521") {
						t.Fatalf("%s: the update is lost: %q", when, res.Results[0].Text)
					}
				}
				res, err := e.Search(ctx, SearchRequest{Query: "bike lock combination plumber Jonas", Mode: ModeKeyword, Scope: "ALL"})
				if err != nil || len(res.Results) != 0 {
					t.Fatalf("%s: forgotten memories found: %v %v", when, texts(res.Results), err)
				}
				if _, err := e.Get(ctx, b); !errors.Is(err, ErrNotFound) {
					t.Fatalf("%s: hard-forgotten memory: %v", when, err)
				}
				// Exactly once, in the database and in the index.
				for _, text := range []string{"The spare key is under the blue flowerpot", "The bike lock combination is 9931"} {
					n, err := store.Memories.Raw().CountDocuments(ctx, bson.D{{Key: "text", Value: text}})
					if err != nil || n != 1 {
						t.Fatalf("%s: %q stored %d times (%v)", when, text, n, err)
					}
				}
				ms, err := store.Memories.EstimatedCount(ctx)
				if err != nil {
					t.Fatal(err)
				}
				ss, err := store.Summaries.EstimatedCount(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if n := int64(e.index().Len()); n != ms+ss || n != 6 {
					t.Fatalf("%s: index holds %d, the database %d memories and %d summaries", when, n, ms, ss)
				}
			}
			if later := mustStore(t, e, StoreRequest{Content: "The boiler was serviced in March", Scope: "Home"}); later.Unchecked != "" {
				t.Fatalf("store after the load: %+v", later)
			}

			if emb != nil {
				// The late memories get their embedding after the load.
				waitFor(t, "the late memories' embeddings", func() bool {
					return len(e.index().Select(func(it *memindex.Entry) bool { return it.Live() && !it.HasVec })) == 0
				})
			}
			// Crashed before any search: the uses a search writes would
			// journal the memories it returns.
			before := indexDigest(e)
			crash(store, e)
			store, e = env.open()
			if got := source(t, e); got != from {
				t.Fatalf("after a crash the index came from the %s", got)
			}
			if d := diff(before, indexDigest(e)); d != "" {
				t.Fatalf("index after a crash differs:\n%s", d)
			}
			check(e, "after a crash")
			env.close(store, e)
			store, e = env.open()
			if got := source(t, e); got != "snapshot" {
				t.Fatalf("after a clean stop the index came from the %s", got)
			}
			check(e, "after a clean restart")
			now := indexDigest(e)
			crash(store, e)
			if d := diff(fullLoadDigest(t, env.root, emb), now); d != "" {
				t.Fatalf("index differs from the database's:\n%s", d)
			}
		})
	}
}

// TestStopWhileTheIndexLoads: a memory stored while the index loads is in
// the index after the engine stopped before the load ended and started
// again (from the database, the snapshot's record having been taken at
// open; or from a snapshot whose journal names it).
func TestStopWhileTheIndexLoads(t *testing.T) {
	for _, from := range []string{"database", "snapshot"} {
		t.Run(from, func(t *testing.T) {
			env := snapEnv{t: t, root: testenv.Root(t)}
			ctx := testenv.Context(t)
			store, e := env.open()
			mustStore(t, e, StoreRequest{Content: "The Apollo review is on June 5", Scope: "Work"})
			if from == "snapshot" {
				env.close(store, e)
			} else {
				crash(store, e)
			}
			store, e, h := env.openHeld()
			x := mustStore(t, e, StoreRequest{Content: "The spare key is under the blue flowerpot", Scope: "Home"})
			if x.Unchecked == "" {
				t.Fatalf("store while loading: %+v", x)
			}
			// The engine stops with its load unfinished.
			e.stop()
			close(h.release)
			<-e.embeds.done
			if err := e.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			store.Close(context.Background())

			store, e = env.open()
			defer env.close(store, e)
			if _, err := e.Get(ctx, x.ID); err != nil {
				t.Fatalf("memory stored during the unfinished load (index from the %s): %v", source(t, e), err)
			}
			if res, _ := e.Search(ctx, SearchRequest{Query: "spare key flowerpot", Mode: ModeKeyword}); len(res.Results) != 1 || res.Results[0].ID != x.ID {
				t.Fatalf("not searchable: %v", texts(res.Results))
			}
		})
	}
}
