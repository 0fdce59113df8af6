package memory

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
)

// StoreMany stores memories as Store stores each one, for an import: the
// same checks, the same duplicate rule (a text already in its scope, or
// earlier in reqs, is not stored again), but in one pass: the texts that
// come without a Vector are embedded in one model call, the new documents
// are written with one insert per collection and their embeddings with
// another, the change journal is synced once, and the index takes them
// all at the end. It reports no similar memories and compares nothing
// with earlier ones.
//
// res[i] and errs[i] answer reqs[i]: errs[i] is set, and nothing stored
// for it, when that request is refused (an input error) or its scope could
// not be made. err is a failure of the whole batch: what of it reached the
// database is in the index, and res tells nothing.
//
// Every request, when the engine shares its database with other devices
// (each write is announced on its own), goes through Store.
func (e *Engine) StoreMany(ctx context.Context, reqs []StoreRequest) (res []StoreResult, errs []error, err error) {
	if err := e.wait(ctx); err != nil {
		return nil, nil, err
	}
	res, errs = make([]StoreResult, len(reqs)), make([]error, len(reqs))
	type pending struct {
		i   int
		in  storeInput
		key [16]byte
		vec []float32
	}
	var todo []pending
	var texts []string
	var embedAt []int // todo positions of texts
	for i, req := range reqs {
		if e.follower != nil {
			res[i], errs[i] = e.Store(ctx, req)
			continue
		}
		in, err := e.checkStore(ctx, req)
		if err != nil {
			errs[i] = err
			continue
		}
		p := pending{i: i, in: in, key: contentKey(in.text)}
		switch {
		case e.opts.Embedder == nil:
		case len(req.Vector) == e.dim:
			p.vec = req.Vector
		default:
			if _, dup := e.index().Duplicate(in.scope, p.key); !dup {
				embedAt = append(embedAt, len(todo))
				texts = append(texts, e.embedInput(in.text))
			}
		}
		todo = append(todo, p)
	}
	if len(texts) > 0 {
		vs, err := e.opts.Embedder.EmbedBatch(ctx, texts)
		if err == nil && len(vs) == len(texts) {
			for j, at := range embedAt {
				todo[at].vec = vs[j]
			}
		} else if ctx.Err() == nil {
			// Stored without; the background embedder tries again.
			e.log.Warn("cannot embed a batch of memories now; they will be embedded in the background", "err", err)
		}
	}

	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	ix := e.index()
	first := map[string]int{} // scope and text key → the request stored for them
	taken := map[bson.ObjectID]bool{}
	var ids []bson.ObjectID
	var mems []*mongostore.Memory
	var sums []*mongostore.Summary
	var docs []memindex.Doc
	for _, p := range todo {
		in := p.in
		if id, ok := ix.Duplicate(in.scope, p.key); ok {
			it, _ := ix.Lookup(id)
			res[p.i] = StoreResult{ID: id.Hex(), Scope: in.scope, DuplicateOf: id.Hex(), ScopeCreated: in.created, Collection: e.collection(it.Kind).Name()}
			continue
		}
		dk := in.scope + "\x00" + string(p.key[:])
		if j, ok := first[dk]; ok {
			res[p.i] = StoreResult{ID: res[j].ID, Scope: in.scope, DuplicateOf: res[j].ID, ScopeCreated: in.created, Collection: res[j].Collection}
			continue
		}
		id, err := e.restoredID(reqs[p.i].Restore)
		if err == nil && taken[id] {
			err = inputErrorf("a memory with id %s is twice in one batch", id.Hex())
		}
		if err != nil {
			errs[p.i] = err
			continue
		}
		taken[id] = true
		first[dk] = p.i
		ids = append(ids, id)
		d := memindex.Doc{ID: id, Text: in.text, Source: in.source, Scope: in.scope, Conv: in.conv, Speaker: in.speaker,
			Tags: in.tags, TS: in.ts, Created: in.now, Importance: in.importance, Key: p.key, Vec: p.vec}
		if in.source == sourceSummary {
			d.Kind = memindex.KindSummary
			sums = append(sums, &mongostore.Summary{
				ID: id, ConversationID: in.conv, SummaryText: in.text, Scope: in.scope, Tags: in.tags, Method: "client",
				Timestamp: in.ts, Importance: in.importance, ContentHash: keyHex(p.key), CreatedAt: in.now, UpdatedAt: in.now,
			})
		} else {
			mems = append(mems, &mongostore.Memory{
				ID: id, ConversationID: in.conv, Timestamp: in.ts, Speaker: in.speaker, Text: in.text, Scope: in.scope, Tags: in.tags,
				Source: in.source, Importance: in.importance, Category: in.category, ContentHash: keyHex(p.key), CreatedAt: in.now, UpdatedAt: in.now,
			})
		}
		if r := reqs[p.i].Restore; r != nil {
			// Its marks and links come with it (restore.go).
			var m *mongostore.Memory
			var s *mongostore.Summary
			if d.Kind == memindex.KindSummary {
				_, s = restoreInto(r, sums[len(sums)-1])
			} else {
				m, _ = restoreInto(r, mems[len(mems)-1])
			}
			d = restoredDoc(m, s, p.vec)
		}
		docs = append(docs, d)
		res[p.i] = StoreResult{ID: id.Hex(), Scope: in.scope, ScopeCreated: in.created, Collection: e.collection(d.Kind).Name()}
	}
	if len(docs) == 0 {
		return res, errs, nil
	}

	// The sequence apply (write.go) gives one change, for all at once:
	// journal, database, embeddings, index, embedder queue.
	e.markDirty(ctx, ids...)
	if len(mems) > 0 {
		err = e.store.Memories.InsertMany(ctx, mems)
	}
	if err == nil && len(sums) > 0 {
		err = e.store.Summaries.InsertMany(ctx, sums)
	}
	if err != nil {
		// Part of the batch may be stored: the index learns what the
		// database holds, and the caller stops.
		for _, id := range ids {
			if rerr := e.refresh(ctx, id); rerr != nil {
				e.log.Warn("cannot read back a memory of a failed batch", "memory_id", id.Hex(), "err", rerr)
			}
		}
		e.queueMissingVectors()
		return res, errs, fmt.Errorf("cannot store memories: %w", err)
	}
	var entries []*mongostore.IndexEntry
	for i := range docs {
		if docs[i].Vec != nil {
			entries = append(entries, e.vectorEntry(docs[i]))
		}
	}
	if len(entries) > 0 {
		if err := e.store.Index.InsertMany(ctx, entries); err != nil {
			// The memories are stored; the background embedder writes
			// their embeddings (an upsert, whichever of these arrived).
			e.log.Warn("embeddings not stored; queued for the background embedder", "memories", len(entries), "err", err)
			for i := range docs {
				docs[i].Vec = nil
			}
		}
	}
	for _, d := range docs {
		ix.Put(d)
		if d.Vec == nil && e.opts.Embedder != nil {
			e.embeds.add(d.ID, d.Kind)
		}
	}
	return res, errs, nil
}
