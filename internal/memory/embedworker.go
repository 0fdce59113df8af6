package memory

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// embedBatch is how many memories the background embedder embeds at once.
const embedBatch = 32

// embedQueue holds live memories that lack an embedding of the current
// model: after a crash between a memory's two writes, after a model change,
// or when embedding failed at store time.
type embedQueue struct {
	mu      sync.Mutex
	pending map[bson.ObjectID]kind
	wake    chan struct{}
	done    chan struct{}
}

func newEmbedQueue() *embedQueue {
	return &embedQueue{pending: map[bson.ObjectID]kind{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (q *embedQueue) add(id bson.ObjectID, k kind) {
	q.mu.Lock()
	q.pending[id] = k
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// reset drops everything queued (the index it referred to was replaced).
func (q *embedQueue) reset() {
	q.mu.Lock()
	clear(q.pending)
	q.mu.Unlock()
}

func (q *embedQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

func (q *embedQueue) take(n int) map[bson.ObjectID]kind {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make(map[bson.ObjectID]kind, min(n, len(q.pending)))
	for id, k := range q.pending {
		if len(out) == n {
			break
		}
		out[id] = k
		delete(q.pending, id)
	}
	return out
}

// queueMissingVectors queues every live item without an embedding.
func (e *Engine) queueMissingVectors() int {
	if e.index().vecs == nil {
		return 0
	}
	e.index().mu.RLock()
	var ids []hit
	for i := range e.index().items {
		it := &e.index().items[i]
		if it.live() && !it.hasVec {
			ids = append(ids, hit{id: it.id, kind: it.kind})
		}
	}
	e.index().mu.RUnlock()
	for _, h := range ids {
		e.embeds.add(h.id, h.kind)
	}
	return len(ids)
}

// runEmbedder embeds queued memories in small batches at low priority: after
// each batch it rests as long as the batch took, leaving at least half the
// machine to live requests.
func (e *Engine) runEmbedder(ctx context.Context) {
	defer close(e.embeds.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.embeds.wake:
		}
		for {
			batch := e.embeds.take(embedBatch)
			if len(batch) == 0 {
				break
			}
			start := time.Now()
			e.embedSome(ctx, batch)
			if ctx.Err() != nil {
				return
			}
			select {
			case <-time.After(time.Since(start)):
			case <-ctx.Done():
				return
			}
		}
	}
}

func (e *Engine) embedSome(ctx context.Context, batch map[bson.ObjectID]kind) {
	var docs []doc
	var texts []string
	for id, k := range batch {
		it, ok := e.index().lookup(id)
		if !ok || !it.live() || it.hasVec {
			continue
		}
		m, err := e.get(ctx, id, k)
		if err != nil {
			if !errIsNotFound(err) {
				e.log.Warn("cannot read a memory to embed it", "memory_id", id.Hex(), "err", err)
				e.embeds.add(id, k)
			}
			continue
		}
		docs = append(docs, doc{id: id, kind: k, scope: m.Scope, ts: m.Timestamp, tags: m.Tags})
		texts = append(texts, m.Text)
	}
	if len(texts) == 0 {
		return
	}
	vecs, err := e.opts.Embedder.EmbedBatch(ctx, texts)
	if err != nil {
		e.log.Warn("background embedding failed; will retry", "memories", len(texts), "err", err)
		for _, d := range docs {
			e.embeds.add(d.id, d.kind)
		}
		return
	}
	for i := range docs {
		docs[i].vec = vecs[i]
		e.writeMu.Lock()
		// Written under the write lock so a concurrent forget or update
		// either sees this vector or replaces it.
		it, ok := e.index().lookup(docs[i].id)
		// The text must still be the one embedded: an edit since then
		// brings its own vector.
		if ok && it.live() && !it.hasVec && it.key == contentKey(texts[i]) {
			e.markDirty(ctx, docs[i].id)
			if err := e.writeVector(ctx, docs[i]); err != nil {
				e.log.Warn("cannot store a background embedding", "err", err)
				e.embeds.add(docs[i].id, docs[i].kind)
			} else {
				e.index().setVec(docs[i].id, docs[i].vec)
			}
		}
		e.writeMu.Unlock()
	}
}
