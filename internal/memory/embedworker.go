package memory

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// embedBatch is how many memories the background embedder embeds at once.
const embedBatch = 32

// embedQueue holds live memories that lack an embedding of the current
// model: after a crash between a memory's two writes, after a model change,
// or when embedding failed at store time.
type embedQueue struct {
	mu      sync.Mutex
	pending map[bson.ObjectID]memindex.Kind
	wake    chan struct{}
	done    chan struct{}
}

func newEmbedQueue() *embedQueue {
	return &embedQueue{pending: map[bson.ObjectID]memindex.Kind{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (q *embedQueue) add(id bson.ObjectID, k memindex.Kind) {
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

func (q *embedQueue) take(n int) map[bson.ObjectID]memindex.Kind {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make(map[bson.ObjectID]memindex.Kind, min(n, len(q.pending)))
	for id, k := range q.pending {
		if len(out) == n {
			break
		}
		out[id] = k
		delete(q.pending, id)
	}
	return out
}

// queueMissingVectors queues every live memory without an embedding.
func (e *Engine) queueMissingVectors() int {
	if !e.index().HasVectors() {
		return 0
	}
	missing := e.index().Select(func(it *memindex.Entry) bool { return it.Live() && !it.HasVec })
	for _, h := range missing {
		e.embeds.add(h.ID, h.Kind)
	}
	return len(missing)
}

// The background embedder's pause after a failed batch: embedRetryBase,
// doubled with each failure in a row, at most maxEmbedRetry.
var (
	embedRetryBase = time.Second
	maxEmbedRetry  = time.Minute
)

// runEmbedder embeds queued memories in small batches at low priority: after
// each batch it rests as long as the batch took, leaving at least half the
// machine to live requests.
func (e *Engine) runEmbedder(ctx context.Context) {
	defer close(e.embeds.done)
	failures := 0 // batches failed in a row
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
			rest := time.Duration(0)
			if e.embedSome(ctx, batch) {
				failures = 0
			} else {
				// The model failed (it could not load, or the batch
				// could not be read): the batch is queued again, and
				// retried after a pause that doubles up to
				// maxEmbedRetry, not at once and forever.
				rest = min(embedRetryBase<<min(failures, 16), maxEmbedRetry)
				failures++
			}
			if ctx.Err() != nil {
				return
			}
			select {
			case <-time.After(max(time.Since(start), rest)):
			case <-ctx.Done():
				return
			}
		}
	}
}

// embedSome embeds a batch; false means part of it failed and is queued
// again.
func (e *Engine) embedSome(ctx context.Context, batch map[bson.ObjectID]memindex.Kind) bool {
	whole := true
	var todo []change
	var texts []string
	for id, k := range batch {
		it, ok := e.index().Lookup(id)
		if !ok || !it.Live() || it.HasVec {
			continue
		}
		m, err := e.get(ctx, id, k)
		if err != nil {
			if !errIsNotFound(err) {
				e.log.Warn("cannot read a memory to embed it", "memory_id", id.Hex(), "err", err)
				e.embeds.add(id, k)
				whole = false
			}
			continue
		}
		todo = append(todo, change{op: opEmbed, id: id, kind: k, doc: memindex.Doc{Scope: m.Scope, TS: m.Timestamp, Tags: m.Tags}})
		texts = append(texts, e.embedInput(m.Text))
	}
	if len(texts) == 0 {
		return whole
	}
	vecs, err := e.opts.Embedder.EmbedBatch(ctx, texts)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("background embedding failed; will retry", "memories", len(texts), "err", err)
		}
		for _, c := range todo {
			e.embeds.add(c.id, c.kind)
		}
		return false
	}
	for i := range todo {
		c := &todo[i]
		c.doc.Vec = vecs[i]
		e.writeMu.Lock()
		// Written under the write lock so a concurrent forget or update
		// either sees this vector or replaces it.
		it, ok := e.index().Lookup(c.id)
		// The text must still be the one embedded: an edit since then
		// brings its own vector.
		if ok && it.Live() && !it.HasVec && it.Key == contentKey(texts[i]) {
			e.apply(ctx, c)
		}
		e.writeMu.Unlock()
	}
	return whole
}
