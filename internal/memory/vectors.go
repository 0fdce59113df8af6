package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/f16"
	"github.com/infmem/infmem/internal/gloss"
	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
)

// vectorEncoding is how embeddings are stored in MemoryIndex: half
// precision, which changes cosines by less than 1e-3 and halves the bytes.
const vectorEncoding = "f16"

// embedText computes a text's embedding; nil when there is no embedder or
// it failed (the background embedder retries later).
func (e *Engine) embedText(ctx context.Context, text string) []float32 {
	if e.opts.Embedder == nil {
		return nil
	}
	v, err := e.opts.Embedder.Embed(ctx, e.embedInput(text))
	if err != nil {
		e.log.Warn("cannot embed a memory now; it will be embedded in the background", "err", err)
		return nil
	}
	return v
}

// EmbedBatch embeds texts as Store would embed each as its Content, in
// one model call, for StoreRequest.Vector. It returns nil when there is no
// model or it failed (Store then embeds each text itself, or leaves it to
// the background embedder). Texts that are the same once normalised are
// embedded once (chat exports repeat "thanks", "continue", regenerated
// prompts); each gets its own copy of the vector.
func (e *Engine) EmbedBatch(ctx context.Context, texts []string) [][]float32 {
	if e.opts.Embedder == nil || len(texts) == 0 {
		return nil
	}
	var unique []string
	at := make([]int, len(texts)) // texts[i]'s position in unique
	seen := make(map[string]int, len(texts))
	for i, t := range texts {
		n := normalizeContent(t)
		j, ok := seen[n]
		if !ok {
			j = len(unique)
			seen[n] = j
			unique = append(unique, e.embedInput(n))
		}
		at[i] = j
	}
	vs, err := e.opts.Embedder.EmbedBatch(ctx, unique)
	if err != nil || len(vs) != len(unique) {
		if ctx.Err() == nil {
			e.log.Warn("cannot embed a batch now; each memory will be embedded as it is stored", "err", err)
		}
		return nil
	}
	if len(unique) == len(texts) {
		return vs
	}
	out := make([][]float32, len(texts))
	used := make([]bool, len(unique))
	for i, j := range at {
		if used[j] {
			out[i] = slices.Clone(vs[j])
		} else {
			out[i], used[j] = vs[j], true
		}
	}
	return out
}

// embedInput is what the model embeds for a memory's text: the text, and
// with RankOptions.GlossVectors the English glosses of its words of
// another language after it (package gloss), so that a note written with
// "alquiler" lies near a question about the rent. The stored text is
// left as written.
func (e *Engine) embedInput(text string) string {
	if e.opts.Rank.GlossVectors > 0 {
		if g := gloss.Text(text, e.opts.Rank.GlossShorthand > 0); g != "" {
			return text + "\n(" + g + ")"
		}
	}
	return text
}

// queryVector embeds a search query, through the query cache.
func (e *Engine) queryVector(ctx context.Context, text string) ([]float32, error) {
	if e.queries == nil {
		return nil, nil
	}
	return e.queries.Embed(ctx, text)
}

// writeVector stores an embedding (d.Vec) in MemoryIndex under the memory's id.
func (e *Engine) writeVector(ctx context.Context, d memindex.Doc) error {
	if d.Vec == nil {
		return nil
	}
	if err := e.store.Index.Upsert(ctx, d.ID, e.vectorEntry(d)); err != nil {
		return fmt.Errorf("cannot store the embedding of %s: %w", d.ID.Hex(), err)
	}
	return nil
}

// vectorEntry is the MemoryIndex document of d's embedding (d.Vec).
func (e *Engine) vectorEntry(d memindex.Doc) *mongostore.IndexEntry {
	return &mongostore.IndexEntry{
		ID: d.ID, SourceCollection: e.collection(d.Kind).Name(), SourceID: d.ID, Scope: d.Scope,
		Model: e.modelID, Dim: len(d.Vec), Embedding: f16.Append(make([]byte, 0, 2*len(d.Vec)), d.Vec),
		Encoding: vectorEncoding, Metadata: mongostore.IndexMeta{Timestamp: d.TS, Tags: nonNil(d.Tags)},
		CreatedAt: e.now(),
	}
}

// readVector loads a memory's stored embedding if it is of the current model.
func (e *Engine) readVector(ctx context.Context, id bson.ObjectID) []float32 {
	if !e.index().HasVectors() {
		return nil
	}
	entry, err := e.store.Index.Get(ctx, id)
	if err != nil {
		return nil
	}
	return e.decodeEntry(entry)
}

// decodeEntry returns the vector of an index entry made by the current
// model, or nil for another model (it will be re-embedded).
func (e *Engine) decodeEntry(entry *mongostore.IndexEntry) []float32 {
	return e.decodeVector(&mongostore.IndexVector{Model: entry.Model, Dim: entry.Dim, Embedding: entry.Embedding, Encoding: entry.Encoding}, nil)
}

// decodeVector is decodeEntry for the load's read (IndexVector), decoding
// into dst when it has room.
func (e *Engine) decodeVector(entry *mongostore.IndexVector, dst []float32) []float32 {
	if entry.Model != e.modelID || entry.Dim != e.dim {
		return nil
	}
	switch entry.Encoding {
	case vectorEncoding:
		if len(entry.Embedding) != 2*e.dim {
			return nil
		}
		return f16.DecodeInto(dst, entry.Embedding)
	}
	return nil
}

// updateVectorMeta keeps MemoryIndex's copy of scope, time and tags current.
func (e *Engine) updateVectorMeta(ctx context.Context, id bson.ObjectID, scope string, ts time.Time, tags []string) error {
	if !e.index().HasVectors() {
		return nil
	}
	err := e.store.Index.Update(ctx, id, bson.D{{Key: "$set", Value: bson.D{
		{Key: "scope", Value: scope}, {Key: "metadata.timestamp", Value: ts}, {Key: "metadata.tags", Value: nonNil(tags)},
	}}})
	if errIsNotFound(err) {
		return nil
	}
	return err
}
