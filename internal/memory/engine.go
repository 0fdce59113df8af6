package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/faultpoint"
	"github.com/infmem/infmem/internal/memory/content"
	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/memory/recall"
	"github.com/infmem/infmem/internal/memory/usecount"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// Sources a memory can have (content.Sources).
const (
	sourceConversation = content.SourceConversation
	sourceNote         = content.SourceNote
	sourceUserProfile  = content.SourceUserProfile
	sourceSummary      = content.SourceSummary
	sourceLesson       = content.SourceLesson
	sourceFile         = content.SourceFile
)

// Sources lists the valid values of a memory's source.
var Sources = content.Sources

// Options configures the engine.
type Options struct {
	// MaxContentBytes bounds a memory's text (default 32 KiB).
	MaxContentBytes int
	// DefaultScope is used when a request and its session name no scope.
	DefaultScope string
	// Location is the user's time zone for time phrases (default time.Local).
	Location *time.Location
	// LoadWait bounds how long a request waits for the index to finish loading.
	LoadWait time.Duration
	// LoadRetry is the first wait before a failed index load is tried
	// again (default 5 s; it doubles up to a minute).
	LoadRetry time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Embedder turns text into vectors for semantic recall; nil means
	// keyword search only. It may still be loading (embed.Lazy).
	Embedder embed.Embedder
	// ModelID and Dim describe Embedder without waiting for it to load.
	ModelID string
	Dim     int
	// QueryCache bounds the LRU cache of query embeddings (default 256:
	// a repeated question within a session is answered from it; 1,024
	// entries held ~3.5 MB of the server's heap, issue 24's RSS bound).
	QueryCache int
	// Rank tunes hybrid ranking; zero fields take the defaults.
	Rank RankOptions
	// SnapshotPath is where the index snapshot lives; empty disables it
	// (an external database may be written by others).
	SnapshotPath string
	// JournalLimit bounds how many memories the snapshot's change journal
	// names before the snapshot is dropped (default DefaultJournalLimit).
	JournalLimit int
	// Follower, when set, keeps the index current with other devices
	// writing to the same database (follower.go; package memsync); nil:
	// this engine is the database's only writer.
	Follower Follower
	Logger   *slog.Logger
}

// Engine is the memory engine. Safe for concurrent use.
type Engine struct {
	store  *mongostore.Store
	scopes *scopes.Registry
	opts   Options
	log    *slog.Logger
	// ixp is the in-memory index; Reload swaps in a new one.
	ixp atomic.Pointer[memindex.Index]

	// writeMu serialises writes so that duplicate checks, forgets and
	// updates see each other's effects in order.
	writeMu sync.Mutex

	ready chan struct{}
	// loadErr is the last index load's error while it has not loaded
	// (nil once loaded); set before ready closes.
	loadErr  atomic.Pointer[error]
	loaded   atomic.Int64
	expected atomic.Int64

	access *usecount.Tracker
	// usesPreloaded: the use log was read into access (load; only the
	// load's goroutine reads or sets it).
	usesPreloaded bool
	// usesMu: Get reads a memory and the uses not yet written (access)
	// under RLock; writeUses writes uses and tells access under Lock, so
	// a read counts each use once.
	usesMu sync.RWMutex
	// people caches the profile's contacts for searches that name a
	// relation ("my sister").
	people  peopleCache
	started atomic.Bool
	// closed is set by the first Close; a second one does nothing (above
	// all, it takes no second snapshot of an index the database has
	// moved on from).
	closed atomic.Bool

	modelID string
	dim     int
	queries *embed.Cached
	embeds  *embedQueue
	// vecw writes new memories' embeddings after their store (vecwrite.go).
	vecw vectorWriter
	stop context.CancelFunc

	// snapMu guards snap; taken after writeMu when both are held.
	snapMu       sync.Mutex
	snap         snapshotState
	fromSnapshot atomic.Bool

	// follower is Options.Follower; device its Device.
	follower Follower
	device   string
	// follow is the follow position (follower.go).
	follow followState

	// pathsVer is the PathsVersion (paths.go).
	pathsVer atomic.Uint64
	// extensions keeps the state of packages built over the engine
	// (Extension).
	extensions
	// parsed keeps memories read for update detection (supersede.go).
	parsed recall.Statements

	// skipped records the documents read from the database that the
	// index left out (baddocs.go).
	skipped skippedDocs

	// indexLive: the index has loaded and taken in the memories stored
	// while it loaded (late); until then a store goes to the database
	// only (late.go). Guarded by writeMu.
	indexLive bool
	// late are the memories stored while the index loaded, for the load
	// to take in when it ends (late.go). Guarded by writeMu.
	late map[bson.ObjectID]struct{}
	// loadHold, when set (tests only), runs at the end of every load from
	// the database or the snapshot, before the memories stored meanwhile
	// are taken in: a test stores while the load is held there.
	loadHold func()

	// afterDedupSearch, when set (tests only), runs in DuplicateGroups
	// between the unlocked neighbour searches and the grouping, where
	// writers may interleave.
	afterDedupSearch func()
}

// New creates an engine; call Start to load its index.
func New(store *mongostore.Store, reg *scopes.Registry, opts Options) *Engine {
	if opts.MaxContentBytes <= 0 {
		opts.MaxContentBytes = 32 << 10
	}
	if opts.DefaultScope == "" {
		opts.DefaultScope = scopes.Global
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.LoadWait <= 0 {
		opts.LoadWait = 5 * time.Second
	}
	if opts.LoadRetry <= 0 {
		opts.LoadRetry = 5 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Embedder != nil && (opts.ModelID == "" || opts.Dim <= 0) {
		opts.ModelID, opts.Dim = opts.Embedder.ModelID(), opts.Embedder.Dim()
	}
	if opts.Embedder == nil {
		opts.ModelID, opts.Dim = "", 0
	}
	if opts.JournalLimit <= 0 {
		opts.JournalLimit = DefaultJournalLimit
	}
	if opts.QueryCache <= 0 {
		opts.QueryCache = 256
	}
	opts.Rank = opts.Rank.WithDefaults()
	e := &Engine{store: store, scopes: reg, opts: opts, log: opts.Logger, ready: make(chan struct{}),
		modelID: opts.ModelID, dim: opts.Dim, embeds: newEmbedQueue(), vecw: newVectorWriter(false)}
	e.ixp.Store(e.newIndex())
	if opts.Follower != nil {
		e.follower, e.device = opts.Follower, opts.Follower.Device()
		e.follow.pos = map[string]int64{}
	}
	if opts.Embedder != nil {
		e.queries = embed.NewCached(opts.Embedder, opts.QueryCache)
	}
	e.access = usecount.New(opts.Logger, opts.Now, func(ids []bson.ObjectID) { e.markDirty(context.Background(), ids...) }, e.writeUses, e.foldUses)
	return e
}

// usesPerLock is how many memories' uses writeUses writes per hold of the
// write lock (one transaction): a store waits for at most one such batch.
const usesPerLock = 256

// writeUses writes the use counts the tracker gathered (the index counted
// them already, and the tracker journaled their ids). On the embedded
// engine it logs them (mongostore.LogUses: a short row a memory in a table
// of its own, one transaction; no document rewritten, no lock of the
// engine's taken), and the tracker folds the log into the documents later
// (foldUses). Elsewhere, and where logging fails, it writes them into the
// documents as foldUses does.
func (e *Engine) writeUses(batch []usecount.Pending) {
	for _, kind := range []memindex.Kind{memindex.KindMemory, memindex.KindSummary} {
		var uses []mongostore.Use
		var mine []usecount.Pending
		for _, p := range batch {
			if p.Kind == kind {
				uses = append(uses, mongostore.Use{ID: p.ID, Count: p.Count, At: p.At})
				mine = append(mine, p)
			}
		}
		if len(uses) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		logged, err := e.collection(kind).LogUses(ctx, uses)
		cancel()
		if err != nil {
			e.log.Warn("cannot log memory accesses; writing them into the memories", "err", err)
		}
		if logged {
			e.access.Logged(mine)
			continue
		}
		e.recordUses(kind, uses, false)
	}
}

// foldUses moves logged uses into their documents
// (mongostore.FoldUses), usesPerLock memories a transaction.
func (e *Engine) foldUses(batch []usecount.Pending) {
	for _, kind := range []memindex.Kind{memindex.KindMemory, memindex.KindSummary} {
		var uses []mongostore.Use
		for _, p := range batch {
			if p.Kind == kind {
				uses = append(uses, mongostore.Use{ID: p.ID, Count: p.Count, At: p.At})
			}
		}
		e.recordUses(kind, uses, true)
	}
}

// recordUses writes uses into their documents: on the embedded engine a
// batch of them in one SQLite transaction (mongostore.RecordUses, or
// FoldUses for logged ones), else, and for what that hands back, one
// update each.
func (e *Engine) recordUses(kind memindex.Kind, uses []mongostore.Use, fold bool) {
	// In _id order, so that each transaction's uses lie together in
	// the file (ids, rows and indexes follow insertion order), not
	// spread over it as the tracker's map order would: fewer pages
	// read, spilled and written per transaction.
	slices.SortFunc(uses, func(a, b mongostore.Use) int { return bytes.Compare(a.ID[:], b.ID[:]) })
	for len(uses) > 0 {
		n := min(len(uses), usesPerLock)
		e.writeUsesLocked(kind, uses[:n], fold)
		uses = uses[n:]
	}
}

// written tells the tracker that uses are in the documents now.
func (e *Engine) written(fold bool, ids ...bson.ObjectID) {
	if fold {
		e.access.Folded(ids...)
	} else {
		e.access.Written(ids...)
	}
}

// writeUsesLocked holds the write lock throughout a batch: the embedded
// engine applies an update by reading the document and writing it back, so
// an edit beside a use could undo either.
func (e *Engine) writeUsesLocked(kind memindex.Kind, uses []mongostore.Use, fold bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	e.writeMu.Lock()
	e.usesMu.Lock()
	var rest []mongostore.Use
	var err error
	if fold {
		rest, err = e.collection(kind).FoldUses(ctx, uses)
	} else {
		rest, err = e.collection(kind).RecordUses(ctx, uses)
	}
	if err != nil && fold {
		// The transaction rolled back: the uses stay in the log, which
		// the next start reads again. Written into the documents here
		// they would count twice then; the tracker lets go of them (a
		// Settle must end), so until that start they are not served.
		for _, u := range uses {
			e.access.Folded(u.ID)
		}
		e.usesMu.Unlock()
		e.writeMu.Unlock()
		cancel()
		e.log.Warn("cannot fold logged memory accesses into the memories; the next start tries again", "err", err)
		return
	}
	if err != nil {
		rest = uses
	}
	written := make(map[bson.ObjectID]bool, len(uses))
	for _, u := range uses {
		written[u.ID] = true
	}
	for _, u := range rest {
		delete(written, u.ID)
	}
	for id := range written {
		e.written(fold, id)
	}
	e.usesMu.Unlock()
	e.writeMu.Unlock()
	cancel()
	if err != nil {
		e.log.Warn("cannot record memory accesses in one transaction; writing them one by one", "err", err)
	}
	for _, u := range rest {
		upd := bson.D{
			{Key: "$inc", Value: bson.D{{Key: "use_count", Value: u.Count}}},
			{Key: "$set", Value: bson.D{{Key: "last_accessed", Value: u.At}}},
		}
		// Each update gets its own deadline: one slow write must not doom
		// the rest.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		e.writeMu.Lock()
		e.usesMu.Lock()
		err := e.apply(ctx, &change{op: opUse, id: u.ID, kind: kind, update: upd})
		e.written(fold, u.ID)
		e.usesMu.Unlock()
		e.writeMu.Unlock()
		cancel()
		// A memory deleted since it was returned has nothing to update.
		if err != nil && !errors.Is(err, mongostore.ErrNotFound) {
			e.log.Warn("cannot record memory access", "memory_id", u.ID.Hex(), "err", err)
		}
	}
}

// preloadUses hands the tracker what the use log holds (uses logged
// before a stop that could not fold them: a crash), once, before the
// index is read: what the index reads from a document adds them
// (usesOf).
func (e *Engine) preloadUses(ctx context.Context) error {
	if e.usesPreloaded {
		return nil
	}
	for _, kind := range []memindex.Kind{memindex.KindMemory, memindex.KindSummary} {
		uses, err := e.collection(kind).LoggedUses(ctx)
		if err != nil {
			return err
		}
		ps := make([]usecount.Pending, len(uses))
		for i, u := range uses {
			ps[i] = usecount.Pending{ID: u.ID, Kind: kind, Count: u.Count, At: u.At}
		}
		e.access.Preload(ps)
	}
	e.usesPreloaded = true
	return nil
}

// usesOf adds to d, read from its document, the uses the tracker holds
// and the document does not yet (recorded, logged): the index counts
// every use at once (Index.Touch).
func (e *Engine) usesOf(d memindex.Doc) memindex.Doc {
	if n, _ := e.access.Lookup(d.ID); n > 0 {
		d.UseCount += n
	}
	return d
}

// Start loads the index in the background and starts the access tracker.
// It returns at once; requests wait for the load (bounded by LoadWait).
func (e *Engine) Start(ctx context.Context) {
	if !e.started.CompareAndSwap(false, true) {
		return
	}
	go e.access.Run()
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	e.stop = stop
	go func() {
		start := time.Now()
		if !e.loadRetrying(bg) {
			close(e.embeds.done)
			return
		}
		e.log.Info("memory index loaded", "memories", e.loaded.Load(), "vectors", e.index().VectorCount(), "duration", time.Since(start).Round(time.Millisecond))
		if e.opts.SnapshotPath != "" {
			go e.runSnapshotter(bg)
		}
		if e.follower != nil {
			go e.follower.Follow(bg)
		}
		if e.opts.Embedder == nil {
			close(e.embeds.done)
			return
		}
		if n := e.queueMissingVectors(); n > 0 {
			e.log.Info("embedding memories in the background", "memories", n, "model", e.modelID)
		}
		e.runEmbedder(bg)
	}()
}

// loadRetrying loads the index, and after a failure says so (LoadErr,
// Ready false, every request's error) and tries again, at growing
// intervals, until it loads (true) or ctx ends (false). ready closes after
// the first attempt either way.
func (e *Engine) loadRetrying(ctx context.Context) bool {
	wait := e.opts.LoadRetry
	// A test holds the load here to look at a daemon whose index loads
	// (a no-op without -tags faultpoints).
	faultpoint.Hold("index-load")
	for attempt := 1; ; attempt++ {
		var err error
		if e.follower != nil {
			err = e.follower.Starting(ctx, e)
		}
		if err == nil {
			err = e.load(ctx, attempt == 1)
		}
		if err == nil {
			// The memories stored while it loaded (late.go).
			err = e.catchUp(ctx)
		}
		if err == nil {
			if e.opts.Embedder != nil && e.follower == nil && e.index().HasVectors() {
				// Set before the index is ready: every write after the
				// load sees it.
				e.vecw.on = true
				go e.runVectorWriter(ctx)
			}
			e.loadErr.Store(nil)
		} else {
			e.loadErr.Store(&err)
		}
		if attempt == 1 {
			close(e.ready)
		}
		if err == nil {
			if attempt > 1 {
				e.log.Info("memory index loaded after failing", "attempts", attempt)
			}
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		e.log.Error("memory index load failed; trying again", "err", err, "attempt", attempt, "retry_in", wait)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Minute)
		// Start again from an empty index.
		e.ixp.Store(e.newIndex())
		e.bumpPaths()
		e.loaded.Store(0)
	}
}

// LoadErr is why the index has not loaded (nil while loading or once
// loaded): it is tried again until it loads.
func (e *Engine) LoadErr() error {
	select {
	case <-e.ready:
	default:
		return nil
	}
	if p := e.loadErr.Load(); p != nil {
		return *p
	}
	return nil
}

// Close flushes pending access updates.
func (e *Engine) Close(ctx context.Context) error {
	if !e.started.Load() || e.closed.Swap(true) {
		return nil
	}
	e.stop()
	select {
	case <-e.embeds.done:
	case <-ctx.Done():
	}
	err := e.access.Close(ctx)
	e.writeMu.Lock()
	e.flushVectors(ctx)
	e.writeMu.Unlock()
	if serr := e.Snapshot(ctx); serr != nil {
		e.log.Warn("index snapshot at shutdown failed; the next start reloads from the database", "err", serr)
	}
	e.closeJournal()
	return err
}

// Loaded is closed when the index load has ended (see Ready for how).
func (e *Engine) Loaded() <-chan struct{} { return e.ready }

// Ready reports whether the index is loaded.
func (e *Engine) Ready() bool {
	select {
	case <-e.ready:
		return e.loadErr.Load() == nil
	default:
		return false
	}
}

// LoadProgress reports how many documents the index holds of how many
// expected: during the load, its progress; once loaded, what the index
// holds now (memories stored since count too), as both.
func (e *Engine) LoadProgress() (loaded, expected int64) {
	if e.Ready() {
		n := int64(e.index().Len())
		return n, n
	}
	return e.loaded.Load(), e.expected.Load()
}

// wait blocks until the index is loaded, at most LoadWait.
func (e *Engine) wait(ctx context.Context) error {
	select {
	case <-e.ready:
		if err := e.LoadErr(); err != nil {
			return fmt.Errorf("memory index failed to load (infmem tries again by itself; `infmem doctor` says more): %w", err)
		}
		return nil
	default:
	}
	t := time.NewTimer(e.opts.LoadWait)
	defer t.Stop()
	select {
	case <-e.ready:
		if err := e.LoadErr(); err != nil {
			return fmt.Errorf("memory index failed to load (infmem tries again by itself; `infmem doctor` says more): %w", err)
		}
		return nil
	case <-t.C:
		loaded, expected := e.LoadProgress()
		return fmt.Errorf("%w (%d of about %d memories indexed); try again in a few seconds", ErrLoading, loaded, expected)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *Engine) load(ctx context.Context, allowSnapshot bool) error {
	if err := e.preloadUses(ctx); err != nil {
		return err
	}
	if allowSnapshot && e.loadSnapshot(ctx) {
		return nil
	}
	if e.follower != nil {
		// Whatever other devices write from here on, the follower
		// replays.
		heads, err := e.follower.Heads(ctx)
		if err != nil {
			return err
		}
		e.setFollowPosition(heads)
	}
	n1, err := e.store.Memories.EstimatedCount(ctx)
	if err != nil {
		return err
	}
	n2, err := e.store.Summaries.EstimatedCount(ctx)
	if err != nil {
		return err
	}
	e.expected.Store(n1 + n2)
	// Memories and embeddings are read at once: decoding FerretDB's storage
	// takes one core per cursor (at 100k: 26 s in turn, 19 s together).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var srcErr error
	srcDone := make(chan struct{})
	go func() {
		defer close(srcDone)
		if srcErr = e.loadSources(ctx); srcErr != nil {
			cancel() // no use reading embeddings for a failed load
		}
	}()
	early, verr := e.readVectors(ctx, srcDone)
	<-srcDone
	if srcErr != nil {
		return srcErr
	}
	if verr != nil {
		return verr
	}
	if err := e.placeEarlyVectors(ctx, early); err != nil {
		return err
	}
	if e.loadHold != nil {
		e.loadHold()
	}
	// The keyword lists the load grew by appending, on the heap, move into
	// one arena outside it, as a start from the snapshot has them: at 100k
	// memories a daemon's RSS after a load from the database was 12-15 MB
	// above what it is now (BENCHMARKS.md, issue 24). A large load's
	// garbage goes back to the system first, or the arena adds to the
	// load's peak (+20 MB at 100k).
	if e.index().Len() >= packFreeMin {
		debug.FreeOSMemory()
	}
	e.index().Pack()
	return nil
}

// loadSources reads every memory and summary into the index.
func (e *Engine) loadSources(ctx context.Context) error {
	skipMemory := func(id bson.RawValue, err error) { e.skipDoc(mongostore.ConversationHistory, id, err) }
	err := e.store.Memories.IterateSkipping(ctx, 1000, func(batch []mongostore.Memory) error {
		for i := range batch {
			if err := e.checkRead(&batch[i]); err != nil {
				e.skipDoc(mongostore.ConversationHistory, batch[i].ID, err)
				continue
			}
			e.index().Put(e.usesOf(docFromMemory(&batch[i])))
		}
		e.loaded.Add(int64(len(batch)))
		return nil
	}, skipMemory)
	if err != nil {
		return err
	}
	skipSummary := func(id bson.RawValue, err error) { e.skipDoc(mongostore.Summaries, id, err) }
	return e.store.Summaries.IterateSkipping(ctx, 1000, func(batch []mongostore.Summary) error {
		for i := range batch {
			if err := CheckStoredSummary(&batch[i], maxReadText); err != nil {
				e.skipDoc(mongostore.Summaries, batch[i].ID, err)
				continue
			}
			e.index().Put(e.usesOf(docFromSummary(&batch[i])))
		}
		e.loaded.Add(int64(len(batch)))
		return nil
	}, skipSummary)
}

// packFreeMin is the size of a load from the database (memories and
// summaries) from which its garbage is returned to the system before the
// keyword index is packed: a forced collection costs a few milliseconds,
// and below this the garbage is a few megabytes.
const packFreeMin = 20000

// maxEarlyVectors bounds how many embeddings readVectors holds while their
// memories are still being read (about 1.2 KB each).
const maxEarlyVectors = 10000

// placeVector puts an embedding on its memory's index entry; false means
// the memory is not in the index.
// The index keeps its own (quantised) copy of v, so scratch, which
// decodes the vector, is reused from one to the next.
func (e *Engine) placeVector(entry *mongostore.IndexVector, scratch *[]float32) bool {
	it, ok := e.index().Lookup(entry.SourceID)
	if ok && it.Live() {
		if v := e.decodeVector(entry, *scratch); v != nil {
			*scratch = v
			e.index().SetVec(entry.SourceID, v)
		}
	}
	return ok
}

// readVectors reads MemoryIndex into the vector index while loadSources
// runs (srcDone closes when it has finished), and returns the embeddings
// whose memory was not indexed yet when they were read. Entries of another
// model are left for the background embedder to replace.
func (e *Engine) readVectors(ctx context.Context, srcDone <-chan struct{}) (map[bson.ObjectID]mongostore.IndexVector, error) {
	if !e.index().HasVectors() {
		return nil, nil
	}
	early := map[bson.ObjectID]mongostore.IndexVector{}
	var scratch []float32
	err := e.store.Vectors.Iterate(ctx, 500, func(batch []mongostore.IndexVector) error {
		for i := range batch {
			if e.placeVector(&batch[i], &scratch) {
				continue
			}
			if len(early) >= maxEarlyVectors {
				<-srcDone
			}
			early[batch[i].SourceID] = batch[i]
		}
		return nil
	})
	return early, err
}

// placeEarlyVectors places the embeddings read before their memory, once
// every memory is indexed, and deletes those whose memory no longer exists
// (a crash between a hard delete's two writes).
func (e *Engine) placeEarlyVectors(ctx context.Context, early map[bson.ObjectID]mongostore.IndexVector) error {
	var ghosts []bson.ObjectID
	var scratch []float32
	for _, entry := range early {
		if !e.placeVector(&entry, &scratch) {
			ghosts = append(ghosts, entry.ID)
		}
	}
	if len(ghosts) == 0 {
		return nil
	}
	n, err := e.dropEmbeddings(ctx, ghosts)
	if err != nil {
		return fmt.Errorf("cannot remove an orphaned embedding: %w", err)
	}
	e.log.Info("removed embeddings of memories that no longer exist", "count", n)
	return nil
}

// Reload rebuilds the index from the database (after a restore).
func (e *Engine) Reload(ctx context.Context) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	fresh := e.newIndex()
	old := e.ixp.Swap(fresh)
	defer e.bumpPaths()
	oldPos := e.FollowPosition()
	e.loaded.Store(0)
	e.dropSnapshot(ctx)
	if err := e.load(ctx, false); err != nil {
		e.ixp.Store(old)
		if e.follower != nil {
			e.setFollowPosition(oldPos)
		}
		return err
	}
	e.embeds.reset()
	e.queueMissingVectors()
	return e.scopes.Reload(ctx)
}

// index is the current in-memory index.
func (e *Engine) index() *memindex.Index { return e.ixp.Load() }

// Now is the engine's clock (Options.Now), in UTC, at the database's
// millisecond precision.
func (e *Engine) Now() time.Time { return e.now() }

// now is the engine's clock, in UTC, at the database's millisecond precision.
func (e *Engine) now() time.Time { return e.opts.Now().UTC().Truncate(time.Millisecond) }

// SetRankOptions changes ranking (benchmarks tune it on a loaded engine).
// It must not run concurrently with searches.
func (e *Engine) SetRankOptions(o RankOptions) {
	e.opts.Rank = o.WithDefaults()
	e.index().SetGloss(e.opts.Rank.GlossKeywords > 0, e.opts.Rank.GlossShorthand > 0)
}

// newIndex returns an empty index for the engine's embeddings, glossing
// as the ranking says (RankOptions.GlossKeywords).
func (e *Engine) newIndex() *memindex.Index {
	ix := memindex.New(e.dim, e.opts.Location)
	ix.SetGloss(e.opts.Rank.GlossKeywords > 0, e.opts.Rank.GlossShorthand > 0)
	return ix
}

// RankOptions returns the ranking in use.
func (e *Engine) RankOptions() RankOptions { return e.opts.Rank }

// Scopes exposes the scope registry the engine uses.
func (e *Engine) Scopes() *scopes.Registry { return e.scopes }

// Logger is where the engine logs (packages over it log there too).
func (e *Engine) Logger() *slog.Logger { return e.log }

// Location is the user's time zone.
func (e *Engine) Location() *time.Location { return e.opts.Location }

// errIsNotFound reports whether a store error means a missing document.
func errIsNotFound(err error) bool { return errors.Is(err, mongostore.ErrNotFound) }
