package memory

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

// brokenEmbedder fails every batch while broken is set, counting calls.
type brokenEmbedder struct {
	*embed.Hash
	broken atomic.Bool
	calls  atomic.Int64
}

func (b *brokenEmbedder) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	b.calls.Add(1)
	if b.broken.Load() {
		return nil, errors.New("the model could not be loaded")
	}
	return b.Hash.EmbedBatch(ctx, texts)
}

// TestEmbedderBacksOffWhileTheModelFails: a model that cannot load (a
// missing weight file) must not make the background embedder retry at once
// and forever (a spinning core and a log growing by megabytes); once the
// model works, the memory gets its vector.
func TestEmbedderBacksOffWhileTheModelFails(t *testing.T) {
	base, most := embedRetryBase, maxEmbedRetry
	embedRetryBase, maxEmbedRetry = 50*time.Millisecond, 200*time.Millisecond
	t.Cleanup(func() { embedRetryBase, maxEmbedRetry = base, most })

	store := testenv.Store(t)
	ctx := testenv.Context(t)
	now := time.Now().UTC().Truncate(time.Millisecond)
	text := "The spare key is under the blue flowerpot"
	m := &mongostore.Memory{ID: bson.NewObjectID(), Timestamp: now, Text: text, Scope: "Global", Tags: []string{},
		Source: "note", ContentHash: keyHex(contentKey(text)), CreatedAt: now, UpdatedAt: now}
	if err := store.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	emb := &brokenEmbedder{Hash: embed.NewHash(64)}
	emb.broken.Store(true)
	e := semanticEngine(t, store, emb)

	time.Sleep(time.Second)
	// With the pause doubling from 50 ms to 200 ms: about 6 tries in a
	// second. Retrying at once would make thousands.
	if n := emb.calls.Load(); n < 2 || n > 12 {
		t.Fatalf("%d embedding attempts in a second while the model fails; want a few (retried, with pauses)", n)
	}
	if e.index().VectorCount() != 0 {
		t.Fatal("a vector appeared while the model failed")
	}
	emb.broken.Store(false)
	waitFor(t, "the embedder to recover", func() bool { return e.index().VectorCount() == 1 })
}
