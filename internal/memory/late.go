package memory

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

// Writes while the index loads.
//
// A start without a usable snapshot reads every memory into the index
// (about 3 s at 100k here, more on a slower machine or a larger memory).
// A store sent meanwhile waits for it as any call does (LoadWait), but
// is not refused when that runs out: the database does not need the
// index, so storeLate writes the memory there then (journaled first,
// as apply does) and answers, and names it in late. When the load ends,
// catchUp re-reads each of them from the database into the index (a
// memory the load's own read saw too is put again, not twice: the index
// keys by id), under writeMu, and only then is the index live: a store is
// either in late or made on the live index, never neither. A late memory
// has no embedding yet: the background embedder gives it one after the
// load, as any memory without one. What a store learns from the index (an
// identical memory already there, similar ones, the ones it updates) is
// not known then; the result says so (StoreResult.Unchecked).
//
// The other writes (update, forget, unforget, a lesson's confirmation, a
// scope's creation, the memory files) need the index to find what they
// change: they wait for the load (waitWrite), bounded by their caller's
// context only, instead of being refused after LoadWait. The profile
// needs no index.
//
// If the daemon stops during the load, the late memories are in the
// database and the next start reads them: a load from the database reads
// every memory; a load from the snapshot re-reads the journaled ones,
// and loadSnapshot journals the late ones before it names the snapshot as
// current again (snapshot.go), so the snapshot trust rule holds. Close
// writes no snapshot of an index that has not loaded (Snapshot: Ready).
//
// With a Follower (sync on) stores wait for the load as before: the
// follower must hear of every change (apply's step 6).

// lateNote is what a store made while the index loaded says.
const lateNote = "stored; the memory index is still loading, so this memory was not compared with earlier ones (identical, similar or updated memories are not reported); it is searchable once the load ends, in a few seconds"

// storeLate stores req in the database when the index has not loaded yet;
// ok false means it has (or this engine is not started, or follows other
// devices): the caller stores as usual.
func (e *Engine) storeLate(ctx context.Context, req StoreRequest) (res StoreResult, ok bool, err error) {
	if !e.started.Load() || e.follower != nil || req.Restore != nil {
		return StoreResult{}, false, nil
	}
	// Like any call, a store first waits for the load (LoadWait), so that
	// it is compared with earlier memories whenever the load ends soon;
	// past that, instead of being refused, it is stored now.
	switch err := e.wait(ctx); {
	case err == nil:
		return StoreResult{}, false, nil
	case ctx.Err() != nil:
		return StoreResult{}, true, err
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if e.indexLive {
		return StoreResult{}, false, nil
	}
	in, err := e.checkStore(ctx, req)
	if err != nil {
		return StoreResult{}, true, err
	}
	id := e.newID()
	c := newStoreChange(in, id, contentKey(in.text))
	e.markDirty(ctx, id)
	if m, isMemory := c.insert.(*mongostore.Memory); isMemory {
		err = e.store.Memories.Insert(ctx, m)
	} else {
		err = e.store.Summaries.Insert(ctx, c.insert.(*mongostore.Summary))
	}
	if err != nil {
		return StoreResult{}, true, fmt.Errorf("cannot store memory: %w", err)
	}
	if e.late == nil {
		e.late = map[bson.ObjectID]struct{}{}
	}
	e.late[id] = struct{}{}
	return StoreResult{ID: id.Hex(), Scope: in.scope, ScopeCreated: in.created, Collection: e.collection(c.kind).Name(), Unchecked: lateNote}, true, nil
}

// lateIDs are the memories stored while the index loaded, in id order.
// Callers hold writeMu.
func (e *Engine) lateIDs() []bson.ObjectID {
	ids := make([]bson.ObjectID, 0, len(e.late))
	for id := range e.late {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b bson.ObjectID) int { return bytes.Compare(a[:], b[:]) })
	return ids
}

// catchUp, at the end of a successful load, puts the memories stored
// meanwhile in the index as the database holds them, and makes the index
// live. On an error the load is tried again (loadRetrying), late kept.
func (e *Engine) catchUp(ctx context.Context) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	for _, id := range e.lateIDs() {
		if err := e.refresh(ctx, id); err != nil {
			return fmt.Errorf("cannot index memory %s, stored while the index loaded: %w", id.Hex(), err)
		}
		delete(e.late, id)
	}
	e.indexLive = true
	return nil
}

// waitWrite waits for the index for a write that needs it, as long as ctx
// allows (wait gives up after LoadWait: a write the client may no longer
// be there to repeat waits instead).
func (e *Engine) waitWrite(ctx context.Context) error {
	select {
	case <-e.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	return e.wait(ctx)
}
