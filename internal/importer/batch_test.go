package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

// countingEmbedder counts single and batch model calls.
type countingEmbedder struct {
	*embed.Hash
	single, batches, batched atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, text string) ([]float32, error) {
	c.single.Add(1)
	return c.Hash.Embed(ctx, text)
}

func (c *countingEmbedder) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	c.batches.Add(1)
	c.batched.Add(int64(len(texts)))
	return c.Hash.EmbedBatch(ctx, texts)
}

// TestImportEmbedsInBatches: an import embeds its texts in batches (one
// model call for many memories), and every memory has its vector when the
// import returns, the same one storing it alone gives.
func TestImportEmbedsInBatches(t *testing.T) {
	ctx := testenv.Context(t)
	store := testenv.Store(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	emb := &countingEmbedder{Hash: embed.NewHash(embed.HashDim)}
	eng := memory.New(store, reg, memory.Options{Location: time.UTC, Logger: testenv.Logger(t), Embedder: emb})
	eng.Start(ctx)
	t.Cleanup(func() { eng.Close(context.Background()) })
	<-eng.Loaded()

	const n = 100
	var b strings.Builder
	b.WriteString(`{"type":"entity","name":"Maya","entityType":"person","observations":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"Observation number %d about climbing route %d"`, i, i*7)
	}
	b.WriteString("]}\n")
	path := filepath.Join(t.TempDir(), "memory.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := Read(path, FormatMemoryJSONL)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, Target{Memory: eng, Store: store}, in, Options{})
	if err != nil || rep.Added != n {
		t.Fatalf("added %v, err %v", rep, err)
	}
	if s := emb.single.Load(); s != 0 {
		t.Fatalf("%d texts embedded one model call each; want all in batches", s)
	}
	if bt, nb := emb.batches.Load(), emb.batched.Load(); nb != n || bt > n/embedBatch+4 {
		t.Fatalf("%d batch calls for %d texts; want about %d", bt, nb, n/embedBatch+1)
	}
	st, err := eng.Stats(ctx)
	if err != nil || st.Embedding.Vectors != n || st.Embedding.Pending != 0 {
		t.Fatalf("vectors %+v, err %v: every imported memory should have its vector", st.Embedding, err)
	}
	// The vector is the one a single store would make: a search for one
	// observation's exact words finds it first by meaning alone.
	res, err := eng.Search(ctx, memory.SearchRequest{Query: "Maya: Observation number 42 about climbing route 294", Mode: memory.ModeVector})
	if err != nil || len(res.Results) == 0 || res.Results[0].Text != "Maya: Observation number 42 about climbing route 294" {
		t.Fatalf("vector search after a batched import: %+v, %v", res.Results, err)
	}
}
