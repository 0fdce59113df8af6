// Package usecount records the uses of retrieved memories (use_count,
// last_accessed) off the response path, for the memory engine.
package usecount

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// Tracker records use_count and last_accessed of retrieved memories
// off the response path, coalescing repeated hits on the same memory. The
// index counts a use at once (Index.Touch); the database hears of it once
// retrievals pause (Quiet), or after MaxDelay, or when MaxPending
// memories wait: then the engine writes them as one batch (on the
// embedded engine one SQLite transaction, one sync, for all of them;
// mongostore.RecordUses) and journals their ids together; written between
// the retrievals of a burst they would slow them down. A crash loses the
// uses not yet written (at most MaxDelay's worth, or MaxPending memories'),
// never a memory; Close writes them all.
type Tracker struct {
	log *slog.Logger
	now func() time.Time
	// beforeWrite runs before each batch of writes (the engine journals
	// the batch's ids at once).
	beforeWrite func(ids []bson.ObjectID)
	// write applies a batch of uses (the engine: all in one database
	// transaction where it can, mongostore.RecordUses), under the engine's
	// write lock: the embedded engine applies an update by reading the
	// document and writing it back whole, so an access update running
	// beside an engine write to the same memory (a merge, an edit) could
	// undo it. It logs what it could not write.
	write func(batch []Pending)
	// fold moves logged uses into their documents (the engine:
	// mongostore.FoldUses); nil where nothing is ever logged.
	fold func(batch []Pending)

	// mu guards pending, closed, busy, last and urgent, and every send on
	// or close of wake.
	mu      sync.Mutex
	pending map[bson.ObjectID]accessMark
	// writing is the batch being written (Lookup still sees it).
	writing map[bson.ObjectID]accessMark
	// logged is what the use log holds (the engine's write logged it, or
	// the log held it at the start) and is not yet in the documents;
	// folding is the part of it being folded. Lookup sees both.
	logged  map[bson.ObjectID]accessMark
	folding map[bson.ObjectID]accessMark
	// foldNow asks Run to fold all that is logged (Settle).
	foldNow bool
	closed  bool
	busy    bool
	// last is when the latest use was recorded; urgent asks for the
	// pending uses to be written without waiting for a pause (settle).
	last   time.Time
	urgent bool
	wake   chan struct{}
	done   chan struct{}
}

type accessMark struct {
	kind  memindex.Kind
	count int64
	at    time.Time
}

// Pending is the uses of one memory waiting to be written: Count more
// uses, the last At.
type Pending struct {
	ID    bson.ObjectID
	Kind  memindex.Kind
	Count int64
	At    time.Time
}

// New returns a tracker; Run writes what it records.
// fold, when not nil, moves logged uses (see Logged) into the documents.
func New(log *slog.Logger, now func() time.Time, beforeWrite func(ids []bson.ObjectID),
	write func(batch []Pending), fold func(batch []Pending)) *Tracker {
	return &Tracker{log: log, now: now, beforeWrite: beforeWrite, write: write, fold: fold, pending: map[bson.ObjectID]accessMark{},
		logged: map[bson.ObjectID]accessMark{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Use is a memory returned to a client.
type Use struct {
	ID   bson.ObjectID
	Kind memindex.Kind
}

// Record notes that these memories were returned to a client.
func (a *Tracker) Record(hits []Use) {
	if len(hits) == 0 {
		return
	}
	at := a.now().UTC().Truncate(time.Millisecond)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	for _, h := range hits {
		m := a.pending[h.ID]
		m.kind = h.Kind
		m.count++
		m.at = at
		a.pending[h.ID] = m
	}
	a.last = time.Now()
	a.signalLocked()
}

// When the database hears of uses (see Tracker); tests change them.
// Writing uses costs about 0.1-0.15 ms of CPU a memory on the embedded
// engine (FerretDB keeps a document as one JSON text and each of its
// indexes is an expression over that text: a use rewrites the row and
// every index entry); a burst of back-to-back retrievals gathered 2,000
// memories every few seconds, and writing them on the other core slowed
// the burst's retrievals. So a burst is written once it pauses, or after
// MaxDelay, or once MaxPending memories wait: a crash loses at most that
// many uses (never a memory), and a stop writes at most MaxPending
// memories (1-2 s) within its 8 s.
var (
	Quiet      = 300 * time.Millisecond
	MaxDelay   = 30 * time.Second
	MaxPending = 10000
)

// FoldAt is how many memories' uses the use log holds before Run folds
// them into the documents (mongostore.FoldUses). Logging a burst's uses
// costs a short row a memory; folding them costs what writing them did
// (a row and every index entry a memory), paid once for all the uses of a
// memory since the last fold, in large batches (fewer pages a memory)
// and away from the bursts. A stop, a backup and an export fold it all,
// so the documents hold every use when anything reads the database
// itself; a crash loses none of what was logged.
var FoldAt = 5000

func (a *Tracker) signalLocked() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Run writes the recorded uses until Close.
func (a *Tracker) Run() {
	defer close(a.done)
	for range a.wake {
		a.waitForPause()
		a.flush()
		a.foldLogged(false)
	}
	a.flush()
	a.foldLogged(true)
}

// foldLogged folds what is logged into the documents: all of it when
// force or Settle asked, else once FoldAt memories wait.
func (a *Tracker) foldLogged(force bool) {
	if a.fold == nil {
		return
	}
	a.mu.Lock()
	if len(a.logged) == 0 || !force && !a.foldNow && len(a.logged) < FoldAt {
		a.foldNow = false
		a.mu.Unlock()
		return
	}
	a.foldNow = false
	batch := a.logged
	a.logged = map[bson.ObjectID]accessMark{}
	a.folding = batch
	a.busy = true
	a.mu.Unlock()
	a.fold(pendingOf(batch))
	a.mu.Lock()
	a.folding = nil
	a.busy = false
	a.mu.Unlock()
}

// Logged notes that these uses, being written, are in the use log now
// (the engine's write logged them instead of writing their documents):
// Lookup goes on counting them, as logged, until Folded. The engine calls
// it while its reads wait (Engine.usesMu). Preload, at a start, adds what
// the log already held (before Run).
func (a *Tracker) Logged(uses []Pending) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, u := range uses {
		delete(a.writing, u.ID)
		m := a.logged[u.ID]
		m.kind = u.Kind
		m.count += u.Count
		if u.At.After(m.at) {
			m.at = u.At
		}
		a.logged[u.ID] = m
	}
}

// Preload is Logged for the uses the log held at a start.
func (a *Tracker) Preload(uses []Pending) { a.Logged(uses) }

// Folded notes that the logged uses of ids are in their documents now
// (or lost): Lookup no longer counts them. The engine calls it while its
// reads wait (Engine.usesMu).
func (a *Tracker) Folded(ids ...bson.ObjectID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range ids {
		delete(a.folding, id)
	}
}

// waitForPause returns once retrievals have paused for Quiet, or
// MaxDelay after it was called, or as soon as MaxPending uses
// wait, Settle asks, or the tracker closes.
func (a *Tracker) waitForPause() {
	deadline := time.Now().Add(MaxDelay)
	for {
		a.mu.Lock()
		quiet := Quiet - time.Since(a.last)
		stop := a.urgent || a.closed || len(a.pending) >= MaxPending
		a.urgent = false
		a.mu.Unlock()
		left := time.Until(deadline)
		if stop || quiet <= 0 || left <= 0 {
			return
		}
		t := time.NewTimer(min(quiet, left))
		select {
		case <-t.C:
		case _, ok := <-a.wake:
			if !ok {
				t.Stop()
				return
			}
		}
		t.Stop()
	}
}

func (a *Tracker) flush() {
	for {
		a.mu.Lock()
		if len(a.pending) == 0 {
			a.busy = false
			a.mu.Unlock()
			return
		}
		batch := a.pending
		a.pending = map[bson.ObjectID]accessMark{}
		a.writing = batch
		a.busy = true
		a.mu.Unlock()
		if a.beforeWrite != nil {
			ids := make([]bson.ObjectID, 0, len(batch))
			for id := range batch {
				ids = append(ids, id)
			}
			a.beforeWrite(ids)
		}
		a.write(pendingOf(batch))
		a.mu.Lock()
		a.writing = nil
		a.mu.Unlock()
	}
}

// Written notes that the uses of ids being written are in the database
// now (or lost): Lookup no longer counts them. The engine calls it while
// its reads wait (Engine.usesMu), so a read sees each use once.
func (a *Tracker) Written(ids ...bson.ObjectID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range ids {
		delete(a.writing, id)
	}
}

// Lookup returns the uses of id recorded but not yet written: how many,
// and when the last was.
func (a *Tracker) Lookup(id bson.ObjectID) (count int64, last time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range []map[bson.ObjectID]accessMark{a.folding, a.logged, a.writing, a.pending} {
		if u, ok := m[id]; ok {
			count += u.count
			last = u.at
		}
	}
	return count, last
}

// Settle waits until everything recorded so far is written.
func (a *Tracker) Settle() {
	for {
		a.mu.Lock()
		idle := len(a.pending) == 0 && len(a.logged) == 0 && !a.busy
		if !idle && !a.closed {
			a.urgent = true
			a.foldNow = true
			a.signalLocked()
		}
		a.mu.Unlock()
		if idle {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Close stops accepting records and waits for pending ones to be written.
func (a *Tracker) Close(ctx context.Context) error {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.wake)
	}
	a.mu.Unlock()
	select {
	case <-a.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pendingOf lists a batch of marks as the uses to write or fold.
func pendingOf(batch map[bson.ObjectID]accessMark) []Pending {
	uses := make([]Pending, 0, len(batch))
	for id, m := range batch {
		uses = append(uses, Pending{ID: id, Kind: m.kind, Count: m.count, At: m.at})
	}
	return uses
}
