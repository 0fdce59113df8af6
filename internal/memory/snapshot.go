package memory

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// This file holds the rule by which the engine trusts its index snapshot,
// and everything in this package that applies it.
//
// A snapshot is trusted only if nothing else wrote since it was taken.
//
// The snapshot (SnapshotFile, encoded by memindex) holds the whole index
// and a random token. It lets a start skip reading every memory and
// embedding from the database: at 100k memories on the embedded engine a
// full load takes about 20 s, a start from the snapshot 0.3 s, or under
// 2 s after a crash with a full journal. The rule is kept by three things:
//
//   - The token in the database. Snapshot writes the file, then starts an
//     empty change journal, then records the token in Metadata
//     (mongostore's RecordSnapshot). Every mongostore.Open reads the token
//     and deletes the record, unless its opener promises with
//     KeepIndexSnapshot to change no memory (backups, exports, status); so
//     only the first opener after the record was written holds the token,
//     and any later one finds none. loadSnapshot loads the file when it
//     carries the token the store read (and the same embedding model and
//     dimension), then records the token again: from then on only this
//     engine writes.
//   - The journal of ids written since (memindex/journal.go). Before the engine
//     changes a memory in the database, markDirty appends its id to the
//     journal and syncs it; apply (write.go) does this first for every
//     write. A new memory's id is journaled before it is handed out:
//     newID journals a few ids at a time (one sync for the lot), so a
//     store finds its id already journaled; the ids journaled but never
//     used (they pile up, restart after restart, until the next snapshot)
//     cost a start three batched reads for them all (journaledChanges),
//     not a refresh each. A store made while the index loads (late.go)
//     finds no journal open; loadSnapshot journals it before it records
//     the token again. After a crash the
//     next start loads the snapshot and re-reads only the journaled
//     memories by _id (refresh). A torn last record is a write that never
//     reached the database.
//   - The cut-off. Re-reading a journaled memory costs about 1 ms at 100k,
//     and a start must stay well under 5 s, so the journal names at most
//     JournalLimit distinct memories (DefaultJournalLimit, 2,000). A write
//     past it drops the snapshot instead: markDirty deletes the record
//     before the database write, and the next start reads everything. The
//     snapshotter takes a new snapshot when writes pause for a minute (at
//     most every ten minutes), sooner once the journal is half full, and
//     Close takes one.
//
// What invalidates a snapshot: another opener of the store (the token is
// taken and the record deleted at Open); a write the journal cannot name
// (past the cut-off, a failed journal write, or a change not made through
// apply, such as Reload's: dropSnapshot); a damaged or missing file or
// journal, or one of another token, model or dimension (loadSnapshot falls
// back to a full load). If the record cannot be deleted, the file is.
//
// Since Close records a snapshot of what the engine holds, an engine must
// be closed before anything else (a restore) writes to its database, not
// after: a snapshot taken after such a write would be trusted by the next
// start.
//
// What the other packages do, and why:
//   - mongostore (snapshot.go, store.go) keeps the record: Open takes the
//     token and deletes the record, so that any process that may write
//     withdraws the snapshot before it can; RecordSnapshot,
//     InvalidateSnapshot and ForgetSnapshotToken serve this file.
//   - backup (restore.go) deletes the record after swapping in the restored
//     collections: their Metadata may name a snapshot of the time of the
//     backup, which no file matches now. The restore command then writes a
//     snapshot of the restored database (SnapshotDatabase, through daemon's
//     WriteIndexSnapshot), so that the first start after a restore does not
//     read every memory.
//   - daemon (runtime.go) gives the engine a SnapshotPath only for a
//     database this data root owns (an external one may be written by
//     others while the daemon is down), and calls ForgetSnapshotToken when
//     it rolled back an interrupted restore after Open (the database
//     changed by other means than the engine). After a restore it starts a
//     new engine on the same store: the token that engine gets is the one
//     the store read at Open, which no file written since carries, so it
//     reads the database.

// SnapshotFile is the snapshot's file name in the data root's mongo_data/.
const SnapshotFile = "infmem-index.snap"

// DefaultJournalLimit is how many distinct memories the change journal
// may name before the snapshot is dropped instead (see above).
const DefaultJournalLimit = 2000

// snapshotState tracks whether the database's snapshot record matches a
// file this engine wrote.
type snapshotState struct {
	// valid: the record names a snapshot file that, with the ids in jr,
	// describes the database. With valid set and jr nil, the first write
	// must drop the record.
	valid bool
	jr    *memindex.Journal
	// reserved are new ids already in jr, for newID to hand out in order.
	reserved  []bson.ObjectID
	lastWrite time.Time // last change to the database
	lastSnap  time.Time
}

// markDirty runs before the engine changes the memories named by ids in
// the database: it journals them so the snapshot stays usable, or, when
// it cannot (no ids given, journal full or failing), clears the snapshot
// record. Callers hold writeMu, or snapMu for writes outside it.
func (e *Engine) markDirty(ctx context.Context, ids ...bson.ObjectID) {
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	e.snap.lastWrite = time.Now()
	if !e.snap.valid {
		return
	}
	if e.snap.jr != nil && len(ids) > 0 {
		ok, err := e.snap.jr.Add(ids)
		if err == nil && ok {
			return
		}
		if err != nil {
			e.log.Warn("cannot journal a change; the index snapshot is dropped", "err", err)
		}
	}
	e.dropSnapshotLocked(ctx)
}

// reserveIDs is how many new ids newID journals at once.
const reserveIDs = 32

// newID returns the id for a new memory, already in the change journal
// when there is one (see above): ids are journaled reserveIDs at a time,
// one sync for them all, and handed out in the order they were made, so
// ids still grow with insertion. Callers hold writeMu.
func (e *Engine) newID() bson.ObjectID {
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	if len(e.snap.reserved) == 0 && e.snap.valid && e.snap.jr != nil {
		ids := make([]bson.ObjectID, reserveIDs)
		for i := range ids {
			ids[i] = bson.NewObjectID()
		}
		// Past the journal's limit (or on a failure) nothing is reserved:
		// the write itself then drops the snapshot, as any other would.
		if ok, err := e.snap.jr.Add(ids); err == nil && ok {
			e.snap.reserved = ids
		}
	}
	if len(e.snap.reserved) > 0 {
		id := e.snap.reserved[0]
		e.snap.reserved = e.snap.reserved[1:]
		return id
	}
	return bson.NewObjectID()
}

// dropSnapshotLocked stops the recorded snapshot from vouching for the
// database. Callers hold snapMu.
func (e *Engine) dropSnapshotLocked(ctx context.Context) {
	e.snap.reserved = nil
	if e.snap.jr != nil {
		e.snap.jr.Close()
		e.snap.jr = nil
	}
	e.snap.valid = false
	if err := e.store.InvalidateSnapshot(ctx); err != nil {
		// The write still goes ahead, so make sure no start can use the
		// snapshot file the record still names.
		e.log.Error("cannot invalidate the index snapshot record; removing the snapshot file", "err", err)
		if rerr := os.Remove(e.opts.SnapshotPath); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			e.log.Error("cannot remove the index snapshot file", "err", rerr)
		}
	}
}

// Snapshot writes the index to the snapshot file, starts an empty change
// journal and records both, unless the recorded snapshot is current and
// nothing is journaled. It blocks writes meanwhile.
func (e *Engine) Snapshot(ctx context.Context) error {
	if e.opts.SnapshotPath == "" || !e.Ready() {
		return nil
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	// The snapshot's vectors are all in the database before it is taken.
	e.flushVectors(ctx)
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	if e.snap.valid && e.snap.jr != nil && e.snap.jr.Count() == 0 {
		return nil
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	token := hex.EncodeToString(b)
	start := time.Now()
	e.snap.reserved = nil
	if e.snap.jr != nil {
		// Until the new token is recorded the old record still holds; no
		// write can happen meanwhile, and any failure below leaves valid
		// set with no journal, so the next write drops the record.
		e.snap.jr.Close()
		e.snap.jr = nil
	}
	if err := e.index().WriteFile(e.opts.SnapshotPath, e.snapshotHeader(token)); err != nil {
		return fmt.Errorf("cannot write the index snapshot: %w", err)
	}
	jr, err := memindex.CreateJournal(memindex.JournalPath(e.opts.SnapshotPath), token, e.opts.JournalLimit)
	if err != nil {
		return fmt.Errorf("cannot start the index change journal: %w", err)
	}
	if err := e.recordSnapshot(ctx, token, e.feedPosition()); err != nil {
		jr.Close()
		return fmt.Errorf("cannot record the index snapshot: %w", err)
	}
	e.snap.valid, e.snap.jr, e.snap.lastSnap = true, jr, time.Now()
	e.log.Info("index snapshot written", "path", e.opts.SnapshotPath, "duration", time.Since(start).Round(time.Millisecond))
	return nil
}

// SnapshotDatabase reads the index of store's database, as an engine with
// opts does at a start without a snapshot, and writes it as the snapshot
// at opts.SnapshotPath, recorded as current: for a process that changed the
// database by other means than an engine (a restore), so that the next
// engine to open the database starts from the snapshot instead of reading
// every memory. The snapshot the store's token names, if any, is not used:
// it describes the database before that change. The caller must change no
// memory through store afterwards (it closes it), or the snapshot would not
// describe the database; the next opener of the store takes the record as
// any opener does. opts.Follower must be nil: the snapshot records no feed
// position.
func SnapshotDatabase(ctx context.Context, store *mongostore.Store, opts Options) error {
	if opts.SnapshotPath == "" {
		return errors.New("no snapshot path")
	}
	if opts.Follower != nil {
		return errors.New("a snapshot of a followed database needs its feed position")
	}
	store.ForgetSnapshotToken()
	reg, err := scopes.Load(ctx, store, scopes.Options{})
	if err != nil {
		return err
	}
	e := New(store, reg, opts)
	start := time.Now()
	if err := e.load(ctx, false); err != nil {
		return fmt.Errorf("cannot read the memory index: %w", err)
	}
	close(e.ready) // Snapshot writes only a ready index
	defer e.closeJournal()
	if err := e.Snapshot(ctx); err != nil {
		return err
	}
	e.log.Info("index snapshot of the database written", "memories", e.index().Len(), "duration", time.Since(start).Round(time.Millisecond))
	return nil
}

// runSnapshotter snapshots the index once writes have paused for a
// minute, at most every ten minutes, and sooner when the change journal
// fills, so a restart rarely costs a full reload.
func (e *Engine) runSnapshotter(ctx context.Context) {
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if e.snapshotDue(time.Now()) {
			if err := e.Snapshot(ctx); err != nil {
				e.log.Warn("index snapshot failed", "err", err)
			}
		}
	}
}

func (e *Engine) snapshotDue(now time.Time) bool {
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	journaled := 0
	if e.snap.jr != nil {
		journaled = e.snap.jr.Count()
	}
	if e.snap.valid && journaled == 0 {
		return false
	}
	if now.Sub(e.snap.lastWrite) > time.Minute && now.Sub(e.snap.lastSnap) > 10*time.Minute {
		return true
	}
	// A journal half full is replaced even while writes go on.
	return e.snap.valid && journaled >= e.opts.JournalLimit/2 && now.Sub(e.snap.lastSnap) > time.Minute
}

// loadSnapshot fills the index from the snapshot file the database names
// as current and re-reads the memories its change journal names; false
// means a full load is needed. On success the snapshot is recorded again
// and the journal stays open for this engine's writes.
func (e *Engine) loadSnapshot(ctx context.Context) bool {
	token := e.store.SnapshotToken()
	if e.opts.SnapshotPath == "" || token == "" {
		return false
	}
	start := time.Now()
	ix, err := memindex.ReadFile(e.opts.SnapshotPath, e.snapshotHeader(token), e.opts.Location)
	if err != nil {
		e.log.Info("index snapshot not used; loading from the database", "reason", err)
		return false
	}
	jpath := memindex.JournalPath(e.opts.SnapshotPath)
	ids, size, err := memindex.ReadJournal(jpath, token)
	if err != nil {
		e.log.Info("index snapshot not used; loading from the database", "reason", err)
		return false
	}
	e.ixp.Store(ix)
	e.bumpPaths()
	feedPos := e.store.SnapshotFeed()
	if e.follower != nil {
		// The follower replays the others' changes from where the
		// snapshot was taken.
		e.setFollowPosition(feedPos)
	}
	todo, err := e.journaledChanges(ctx, ids)
	if err != nil {
		e.log.Warn("cannot apply the index change journal; loading from the database", "err", err)
		e.ixp.Store(memindex.New(e.dim, e.opts.Location))
		return false
	}
	for _, id := range todo {
		if err := e.refresh(ctx, id); err != nil {
			e.log.Warn("cannot apply the index change journal; loading from the database", "err", err)
			e.ixp.Store(memindex.New(e.dim, e.opts.Location))
			return false
		}
	}
	e.fromSnapshot.Store(true)
	e.loaded.Store(int64(ix.Len()))
	e.log.Info("index loaded from snapshot", "memories", ix.Len(), "journaled_changes", len(ids), "refreshed", len(todo), "duration", time.Since(start).Round(time.Millisecond))

	if e.loadHold != nil {
		e.loadHold()
	}
	// Nothing but this engine writes from now on: keep journaling into the
	// same journal and name the snapshot as current again. No store runs
	// meanwhile (writeMu): those made while the snapshot loaded are in
	// the database but in neither the file nor the journal (late.go), so
	// the journal names them first, or the snapshot stays withdrawn.
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	jr, err := memindex.OpenJournal(jpath, size, ids, e.opts.JournalLimit)
	if err != nil {
		e.log.Warn("cannot reopen the index change journal; the next write drops the snapshot", "err", err)
	}
	if len(e.late) > 0 {
		ok := false
		if jr != nil {
			ok, err = jr.Add(e.lateIDs())
		}
		if !ok {
			if jr != nil {
				jr.Close()
			}
			e.log.Warn("cannot journal the memories stored while the index loaded; the snapshot stays withdrawn until the next one", "err", err)
			return true
		}
	}
	if err := e.recordSnapshot(ctx, token, feedPos); err != nil {
		if jr != nil {
			jr.Close()
		}
		return true
	}
	e.snapMu.Lock()
	e.snap.valid, e.snap.jr, e.snap.lastSnap = true, jr, time.Now()
	e.snapMu.Unlock()
	return true
}

// journaledChanges narrows the journal's ids to those a refresh can
// change: most are ids newID reserved (reserveIDs at a time) that no
// write used, in no collection and not in the index, and refreshing each
// took three database round trips on every start (at load 30, with the
// race detector, several seconds for a few restarts' worth). Three reads
// for them all tell them apart: an id in the snapshot's index, in a
// collection or with an embedding left (a hard delete that crashed between
// its two writes) is refreshed as before.
func (e *Engine) journaledChanges(ctx context.Context, ids map[bson.ObjectID]struct{}) ([]bson.ObjectID, error) {
	var todo, unknown []bson.ObjectID
	for id := range ids {
		if _, ok := e.index().Lookup(id); ok {
			todo = append(todo, id)
		} else {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) == 0 {
		return todo, nil
	}
	ms, err := e.store.Memories.Existing(ctx, unknown)
	if err != nil {
		return nil, err
	}
	ss, err := e.store.Summaries.Existing(ctx, unknown)
	if err != nil {
		return nil, err
	}
	vs, err := e.store.Index.Existing(ctx, unknown)
	if err != nil {
		return nil, err
	}
	for _, id := range unknown {
		if ms[id] || ss[id] || vs[id] {
			todo = append(todo, id)
		}
	}
	return todo, nil
}

// refresh makes the index's entry for id match the database.
func (e *Engine) refresh(ctx context.Context, id bson.ObjectID) error {
	_, err := e.refreshDoc(ctx, id)
	if errors.Is(err, errSkipped) {
		return nil // recorded and left out of the index
	}
	return err
}

// refreshDoc is refresh, returning what the index now holds of id (a zero
// Doc when the memory no longer exists).
func (e *Engine) refreshDoc(ctx context.Context, id bson.ObjectID) (memindex.Doc, error) {
	// It may be, or have been, a memory with a path (paths.go).
	defer e.bumpPaths()
	e.flushVectorOf(ctx, id)
	var d memindex.Doc
	// A document that breaks the rules leaves the index (baddocs.go).
	leaveOut := func(coll string, err error) (memindex.Doc, error) {
		e.index().Remove(id)
		e.skipDoc(coll, id, err)
		return memindex.Doc{}, fmt.Errorf("%s %s: %w: %v", coll, id.Hex(), errSkipped, err)
	}
	// The document and the uses it does not yet hold are read together
	// (a fold moves uses from one to the other under usesMu).
	e.usesMu.RLock()
	held := true
	defer func() {
		if held {
			e.usesMu.RUnlock()
		}
	}()
	m, err := e.store.Memories.Get(ctx, id)
	switch {
	case err == nil:
		if err := e.checkRead(m); err != nil {
			return leaveOut(mongostore.ConversationHistory, err)
		}
		d = docFromMemory(m)
	case errors.Is(err, mongostore.ErrUndecodable):
		return leaveOut(mongostore.ConversationHistory, err)
	case errIsNotFound(err):
		s, err := e.store.Summaries.Get(ctx, id)
		if errIsNotFound(err) {
			e.index().Remove(id)
			// A hard delete that crashed between its two writes.
			return memindex.Doc{}, e.apply(ctx, &change{op: opDropEmbedding, id: id})
		}
		if errors.Is(err, mongostore.ErrUndecodable) {
			return leaveOut(mongostore.Summaries, err)
		}
		if err != nil {
			return d, err
		}
		if err := CheckStoredSummary(s, maxReadText); err != nil {
			return leaveOut(mongostore.Summaries, err)
		}
		d = docFromSummary(s)
	default:
		return d, err
	}
	d = e.usesOf(d)
	e.usesMu.RUnlock()
	held = false
	e.index().Put(d)
	if !e.index().HasVectors() {
		return d, nil
	}
	entry, err := e.store.Index.Get(ctx, id)
	if errIsNotFound(err) {
		return d, nil
	}
	if err != nil {
		return d, err
	}
	if v := e.decodeEntry(entry); v != nil {
		e.index().SetVec(id, v)
	}
	return d, nil
}

// feedPosition is the follow position (nil without a Follower); callers
// hold writeMu so that it matches the index.
func (e *Engine) feedPosition() map[string]int64 { return e.FollowPosition() }

// recordSnapshot names token, with the feed position it reflects, as
// the current snapshot.
func (e *Engine) recordSnapshot(ctx context.Context, token string, feed map[string]int64) error {
	if e.follower == nil {
		return e.store.RecordSnapshot(ctx, token)
	}
	return e.store.RecordSnapshotAt(ctx, token, feed)
}

// snapshotHeader is what a snapshot of this engine's index is made for.
func (e *Engine) snapshotHeader(token string) memindex.Header {
	return memindex.Header{Token: token, Model: e.modelID, Dim: e.dim,
		Gloss: memindex.GlossSignature(e.opts.Rank.GlossKeywords > 0, e.opts.Rank.GlossShorthand > 0)}
}

// dropSnapshot withdraws the snapshot before the database changes other
// than through apply (Reload after a restore).
func (e *Engine) dropSnapshot(ctx context.Context) { e.markDirty(ctx) }

// closeJournal lets go of the journal file (a later engine replaces it;
// Windows refuses to rename over an open file). A write after it, which
// should not happen, finds no journal and drops the snapshot.
func (e *Engine) closeJournal() {
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	e.snap.reserved = nil
	if e.snap.jr != nil {
		e.snap.jr.Close()
		e.snap.jr = nil
	}
}
