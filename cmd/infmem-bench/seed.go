package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/f16"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// runSeed inserts synthetic memories straight into the store (as a
// restore or import would), far faster than one tool call each.
func runSeed(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	dir := fs.String("data-dir", "", "data root to fill")
	n := fs.Int("n", 10000, "memories to insert")
	model := fs.String("embedding", "use-lite", "embedding model for the memories' vectors: use-lite, hash, none, or random-use-lite (random unit vectors labelled as USE-lite's: a search costs what it costs over real ones, without the hours of embedding; recall means nothing)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return fmt.Errorf("--data-dir is required")
	}
	abs, _ := filepath.Abs(*dir)
	root, err := dataroot.Prepare(abs)
	if err != nil {
		return err
	}
	store, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: root, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		return err
	}
	defer store.Close(context.WithoutCancel(ctx))
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		return err
	}
	for _, s := range scopeSet {
		if _, _, err := reg.Ensure(ctx, s); err != nil {
			return err
		}
	}
	var emb embed.Embedder
	if *model == "random-use-lite" {
		emb = &randomEmbedder{rng: rand.New(rand.NewPCG(7, 9))}
	} else if emb, err = embed.New(*model); err != nil {
		return err
	}
	gen := newSynth(42)
	start := time.Now()
	base := time.Now().AddDate(-2, 0, 0).UTC()
	span := int64(2 * 365 * 24 * time.Hour)
	batch := make([]*mongostore.Memory, 0, 1000)
	for i := 0; i < *n; i++ {
		text := gen.sentence(i)
		ts := base.Add(time.Duration(gen.rng.Int64N(span))).Truncate(time.Millisecond)
		now := time.Now().UTC().Truncate(time.Millisecond)
		batch = append(batch, &mongostore.Memory{
			ID: bson.NewObjectID(), Timestamp: ts, Text: text, Scope: gen.scope(), Tags: gen.tags(), Source: "note",
			Importance: 0.5, ContentHash: fmt.Sprintf("seed-%d", i), CreatedAt: now, UpdatedAt: now,
			ConversationID: fmt.Sprintf("conv-%d", i/20),
		})
		if len(batch) == cap(batch) || i == *n-1 {
			if err := store.Memories.InsertMany(ctx, batch); err != nil {
				return err
			}
			if emb != nil {
				if err := seedVectors(ctx, store, emb, batch); err != nil {
					return err
				}
			}
			batch = batch[:0]
			if (i+1)%10000 == 0 {
				fmt.Fprintf(os.Stderr, "%d memories in %v\n", i+1, time.Since(start).Round(time.Second))
			}
		}
	}
	fmt.Printf("seeded %d memories into %s in %v\n", *n, root.Dir, time.Since(start).Round(time.Millisecond))
	return nil
}

// seedVectors embeds a batch and writes its MemoryIndex entries as the
// engine does (f16 binary, keyed by the memory's id).
func seedVectors(ctx context.Context, store *mongostore.Store, emb embed.Embedder, batch []*mongostore.Memory) error {
	texts := make([]string, len(batch))
	for i, m := range batch {
		texts[i] = m.Text
	}
	vecs, err := emb.EmbedBatch(ctx, texts)
	if err != nil {
		return err
	}
	entries := make([]*mongostore.IndexEntry, len(batch))
	for i, m := range batch {
		entries[i] = &mongostore.IndexEntry{
			ID: m.ID, SourceCollection: mongostore.ConversationHistory, SourceID: m.ID, Scope: m.Scope,
			Model: emb.ModelID(), Dim: len(vecs[i]), Embedding: f16.Append(nil, vecs[i]), Encoding: "f16",
			Metadata: mongostore.IndexMeta{Timestamp: m.Timestamp, Tags: m.Tags}, CreatedAt: m.CreatedAt,
		}
	}
	return store.Index.InsertMany(ctx, entries)
}

// randomEmbedder makes random unit vectors under USE-lite's model id and
// dimension (seed --embedding random-use-lite).
type randomEmbedder struct{ rng *rand.Rand }

func (r *randomEmbedder) ModelID() string { return embed.USELiteModelID }
func (r *randomEmbedder) Dim() int        { return 512 }
func (r *randomEmbedder) Embed(ctx context.Context, text string) ([]float32, error) {
	v := make([]float32, 512)
	var norm float64
	for i := range v {
		v[i] = float32(r.rng.NormFloat64())
		norm += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v, nil
}
func (r *randomEmbedder) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i], _ = r.Embed(ctx, t)
	}
	return out, nil
}
