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

// TestEmbeddedBatchesMerge: the batches waiting when the store loop takes
// one are stored with it, up to about storeBatchMax units, in order,
// without writing into the plan's slice of units; an empty or closed
// channel returns the batch as it is.
func TestEmbeddedBatchesMerge(t *testing.T) {
	plan := make([]*unit, 3*embedBatch+1)
	for i := range plan {
		plan[i] = &unit{text: fmt.Sprint(i)}
	}
	sentinel := plan[embedBatch]
	window := func(lo, hi int) embeddedBatch {
		b := embeddedBatch{units: plan[lo:hi], reqs: make([]memory.StoreRequest, hi-lo)}
		for i := range b.reqs {
			b.reqs[i].Content = plan[lo+i].text
		}
		return b
	}
	ready := make(chan embeddedBatch, 4)
	if got := window(0, 5).with(ready); len(got.units) != 5 {
		t.Fatalf("nothing waiting: %d units, want 5", len(got.units))
	}
	ready <- window(2*embedBatch, 3*embedBatch)
	ready <- window(3*embedBatch, 3*embedBatch+1)
	got := window(0, embedBatch).with(ready)
	if len(got.units) != 2*embedBatch+1 || len(got.reqs) != len(got.units) {
		t.Fatalf("merged %d units, %d requests; want %d", len(got.units), len(got.reqs), 2*embedBatch+1)
	}
	for i, u := range got.units {
		if got.reqs[i].Content != u.text {
			t.Fatalf("unit %d (%s) has the request of %q", i, u.text, got.reqs[i].Content)
		}
	}
	if got.units[embedBatch].text != fmt.Sprint(2*embedBatch) || plan[embedBatch] != sentinel {
		t.Fatal("the merge wrote into the plan's units")
	}

	big := make(chan embeddedBatch, storeBatchMax/embedBatch+2)
	for range cap(big) {
		big <- window(0, embedBatch)
	}
	if got := window(0, embedBatch).with(big); len(got.units) != storeBatchMax || len(big) != 3 {
		t.Fatalf("took %d units, left %d batches; want %d and 3", len(got.units), len(big), storeBatchMax)
	}
	close(ready)
	for range ready {
	}
	if got := window(0, 3).with(ready); len(got.units) != 3 {
		t.Fatalf("closed channel: %d units, want 3", len(got.units))
	}
}
