package memory

import (
	"context"
	"slices"
	"testing"

	"github.com/infmem/infmem/internal/embed"
)

// countingEmbedder is the hash embedder, counting the texts it embeds.
type countingEmbedder struct {
	*embed.Hash
	texts []string
}

func (c *countingEmbedder) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts = append(c.texts, texts...)
	return c.Hash.EmbedBatch(ctx, texts)
}

// An import's batch embeds each text once, however often it repeats (also
// with other spacing, which Store normalises away), and every text gets
// the vector Store would give it, in a slice of its own.
func TestEmbedBatchEmbedsRepeatsOnce(t *testing.T) {
	emb := &countingEmbedder{Hash: embed.NewHash(64)}
	e := New(nil, nil, Options{Embedder: emb})
	ctx := context.Background()
	texts := []string{"thanks", "Tell me about Rome.", "thanks", "  thanks ", "continue", "Tell me about Rome."}
	vs := e.EmbedBatch(ctx, texts)
	if len(vs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
	}
	if want := []string{"thanks", "Tell me about Rome.", "continue"}; !slices.Equal(emb.texts, want) {
		t.Fatalf("embedded %q, want %q", emb.texts, want)
	}
	for i, text := range texts {
		want, err := emb.Hash.Embed(ctx, normalizeContent(text))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(vs[i], want) {
			t.Fatalf("text %d (%q): not its own vector", i, text)
		}
	}
	vs[0][0]++
	if vs[2][0] == vs[0][0] || vs[3][0] == vs[0][0] {
		t.Fatal("repeated texts share one vector slice")
	}
}
