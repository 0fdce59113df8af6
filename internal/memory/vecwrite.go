package memory

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
)

// A new memory's embedding is written after its store is acknowledged: the
// memory itself is in the database (and durable) when Store returns, and
// the index has its vector, but the MemoryIndex document waits for the
// vector writer, which writes those of several stores at once (one insert,
// one sync) a moment later, between stores. The embedding is derived data:
// a crash before it is written leaves a memory without one, which the
// background embedder embeds again at the next start (queueMissingVectors),
// as after any failed embedding write.
//
// Every other write to the same memory, and anything that reads its
// embedding from the database, first writes the pending one (flushVectorOf,
// under writeMu), so no change can overtake it; Snapshot and Close write
// them all. An engine that shares its database with other devices writes
// each embedding at once (they read MemoryIndex).

// The writer writes once no new embedding came for vecWriteDelay (the
// stores paused), or vecWriteMaxDelay after the first one it holds, or at
// once when vecWriteBatch are pending. It holds writeMu while it writes,
// so a store that comes meanwhile waits for its insert and sync: during a
// burst of stores it writes seldom (every vecWriteBatch stores or
// vecWriteMaxDelay), not every few stores.
var (
	vecWriteDelay    = 20 * time.Millisecond
	vecWriteMaxDelay = time.Second
)

const vecWriteBatch = 64

type vectorWriter struct {
	on      bool
	mu      sync.Mutex
	pending map[bson.ObjectID]memindex.Doc
	wake    chan struct{}
}

func newVectorWriter(on bool) vectorWriter {
	return vectorWriter{on: on, pending: map[bson.ObjectID]memindex.Doc{}, wake: make(chan struct{}, 1)}
}

// add queues d's embedding (d.Vec). Callers hold writeMu.
func (w *vectorWriter) add(d memindex.Doc) {
	w.mu.Lock()
	w.pending[d.ID] = d
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *vectorWriter) take(id *bson.ObjectID) []memindex.Doc {
	w.mu.Lock()
	defer w.mu.Unlock()
	if id != nil {
		d, ok := w.pending[*id]
		if !ok {
			return nil
		}
		delete(w.pending, *id)
		return []memindex.Doc{d}
	}
	out := make([]memindex.Doc, 0, len(w.pending))
	for _, d := range w.pending {
		out = append(out, d)
	}
	clear(w.pending)
	return out
}

func (w *vectorWriter) len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending)
}

// flushVectorOf writes id's pending embedding, if any. Callers hold writeMu.
func (e *Engine) flushVectorOf(ctx context.Context, id bson.ObjectID) {
	if !e.vecw.on {
		return
	}
	if docs := e.vecw.take(&id); len(docs) > 0 {
		e.writeVectors(ctx, docs)
	}
}

// WritePendingVectors writes the embeddings still waiting for the vector
// writer (at most vecWriteBatch, or vecWriteMaxDelay's worth), and the use
// counts gathered so far (package usecount), so that what reads the
// database itself, such as a backup or an export, finds them.
func (e *Engine) WritePendingVectors(ctx context.Context) {
	e.writeMu.Lock()
	e.flushVectors(ctx)
	e.writeMu.Unlock()
	if e.started.Load() {
		e.access.Settle()
	}
}

// flushVectors writes every pending embedding. Callers hold writeMu.
func (e *Engine) flushVectors(ctx context.Context) {
	if !e.vecw.on {
		return
	}
	if docs := e.vecw.take(nil); len(docs) > 0 {
		e.writeVectors(ctx, docs)
	}
}

// writeVectors writes the embeddings of new memories: one insert for all,
// or, when that fails, one upsert each; an embedding that cannot be
// written leaves the index too and is queued for the background embedder,
// as apply does.
func (e *Engine) writeVectors(ctx context.Context, docs []memindex.Doc) {
	ids := make([]bson.ObjectID, len(docs))
	for i := range docs {
		ids[i] = docs[i].ID
	}
	// Already journaled by their inserts, unless a snapshot came between
	// (Snapshot writes what is pending first; this keeps the rule anyway).
	e.markDirty(ctx, ids...)
	ctx = context.WithoutCancel(ctx)
	if len(docs) > 1 {
		entries := make([]*mongostore.IndexEntry, len(docs))
		for i := range docs {
			entries[i] = e.vectorEntry(docs[i])
		}
		if err := e.store.Index.InsertMany(ctx, entries); err == nil {
			return
		}
	}
	for _, d := range docs {
		if err := e.writeVector(ctx, d); err != nil {
			e.log.Warn("embedding not stored; queued for the background embedder", "memory_id", d.ID.Hex(), "err", err)
			e.index().SetVec(d.ID, nil)
			e.embeds.add(d.ID, d.Kind)
		}
	}
}

// runVectorWriter writes pending embeddings a moment after they come,
// several at once, until ctx ends.
func (e *Engine) runVectorWriter(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.vecw.wake:
		}
		deadline := time.Now().Add(vecWriteMaxDelay)
		quiet := time.NewTimer(vecWriteDelay)
	gather:
		for e.vecw.len() < vecWriteBatch {
			select {
			case <-e.vecw.wake: // another store: wait for a pause again
				left := time.Until(deadline)
				if left <= 0 {
					break gather
				}
				quiet.Reset(min(vecWriteDelay, left))
			case <-quiet.C:
				break gather
			case <-ctx.Done():
				quiet.Stop()
				return
			}
		}
		quiet.Stop()
		e.writeMu.Lock()
		e.flushVectors(ctx)
		e.writeMu.Unlock()
	}
}
