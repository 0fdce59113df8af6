package memory

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// accessTracker records use_count and last_accessed of retrieved memories
// off the response path, coalescing repeated hits on the same memory.
type accessTracker struct {
	log *slog.Logger
	now func() time.Time
	// beforeWrite runs before each batch of writes (the engine journals
	// the batch's ids at once).
	beforeWrite func(ids []bson.ObjectID)
	// write applies one update, under the engine's write lock: the
	// embedded engine applies an update by reading the document and
	// writing it back whole, so an access update running beside an
	// engine write to the same memory (a merge, an edit) could undo it.
	write func(ctx context.Context, id bson.ObjectID, k memindex.Kind, update bson.D) error

	// mu guards pending, closed and busy, and every send on or close of wake.
	mu      sync.Mutex
	pending map[bson.ObjectID]accessMark
	closed  bool
	busy    bool
	wake    chan struct{}
	done    chan struct{}
}

type accessMark struct {
	kind  memindex.Kind
	count int64
	at    time.Time
}

func newAccessTracker(log *slog.Logger, now func() time.Time, beforeWrite func(ids []bson.ObjectID),
	write func(ctx context.Context, id bson.ObjectID, k memindex.Kind, update bson.D) error) *accessTracker {
	return &accessTracker{log: log, now: now, beforeWrite: beforeWrite, write: write, pending: map[bson.ObjectID]accessMark{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// record notes that these hits were returned to a client.
func (a *accessTracker) record(hits []hit) {
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
		m := a.pending[h.id]
		m.kind = h.kind
		m.count++
		m.at = at
		a.pending[h.id] = m
	}
	a.signalLocked()
}

func (a *accessTracker) signalLocked() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

func (a *accessTracker) run() {
	defer close(a.done)
	for range a.wake {
		a.flush()
	}
	a.flush()
}

func (a *accessTracker) flush() {
	for {
		a.mu.Lock()
		if len(a.pending) == 0 {
			a.busy = false
			a.mu.Unlock()
			return
		}
		batch := a.pending
		a.pending = map[bson.ObjectID]accessMark{}
		a.busy = true
		a.mu.Unlock()
		if a.beforeWrite != nil {
			ids := make([]bson.ObjectID, 0, len(batch))
			for id := range batch {
				ids = append(ids, id)
			}
			a.beforeWrite(ids)
		}
		for id, m := range batch {
			upd := bson.D{
				{Key: "$inc", Value: bson.D{{Key: "use_count", Value: m.count}}},
				{Key: "$set", Value: bson.D{{Key: "last_accessed", Value: m.at}}},
			}
			// Each update gets its own deadline: a burst of searches can
			// queue thousands, and one slow write must not doom the rest.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := a.write(ctx, id, m.kind, upd)
			cancel()
			// A memory deleted since it was returned has nothing to update.
			if err != nil && !errIsNotFound(err) {
				a.log.Warn("cannot record memory access", "memory_id", id.Hex(), "err", err)
			}
		}
	}
}

// settle waits until everything recorded so far is written.
func (a *accessTracker) settle() {
	for {
		a.mu.Lock()
		idle := len(a.pending) == 0 && !a.busy
		if !idle && !a.closed {
			a.signalLocked()
		}
		a.mu.Unlock()
		if idle {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// close stops accepting records and waits for pending ones to be written.
func (a *accessTracker) close(ctx context.Context) error {
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
