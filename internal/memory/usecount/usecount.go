// Package usecount records the uses of retrieved memories (use_count,
// last_accessed) off the response path, for the memory engine.
package usecount

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
)

// Tracker records use_count and last_accessed of retrieved memories
// off the response path, coalescing repeated hits on the same memory. The
// index counts a use at once (Index.Touch); the database hears of it once
// retrievals pause (Quiet), or after MaxDelay, or when MaxPending
// memories wait: each is a write of its own (the engine
// journals them together), and written between the retrievals of a burst
// they would slow them down. A crash loses the uses of the last few
// seconds, never a memory.
type Tracker struct {
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

	// mu guards pending, closed, busy, last and urgent, and every send on
	// or close of wake.
	mu      sync.Mutex
	pending map[bson.ObjectID]accessMark
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

// New returns a tracker; Run writes what it records.
func New(log *slog.Logger, now func() time.Time, beforeWrite func(ids []bson.ObjectID),
	write func(ctx context.Context, id bson.ObjectID, k memindex.Kind, update bson.D) error) *Tracker {
	return &Tracker{log: log, now: now, beforeWrite: beforeWrite, write: write, pending: map[bson.ObjectID]accessMark{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
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
var (
	Quiet      = 300 * time.Millisecond
	MaxDelay   = 5 * time.Second
	MaxPending = 2000
)

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
	}
	a.flush()
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
			if err != nil && !errors.Is(err, mongostore.ErrNotFound) {
				a.log.Warn("cannot record memory access", "memory_id", id.Hex(), "err", err)
			}
		}
	}
}

// Settle waits until everything recorded so far is written.
func (a *Tracker) Settle() {
	for {
		a.mu.Lock()
		idle := len(a.pending) == 0 && !a.busy
		if !idle && !a.closed {
			a.urgent = true
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
