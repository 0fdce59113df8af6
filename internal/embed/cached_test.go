package embed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// countingEmbedder records every text it is asked to embed.
type countingEmbedder struct {
	mu    sync.Mutex
	calls []string
	fail  bool
}

func (c *countingEmbedder) ModelID() string { return "counting-v1" }
func (c *countingEmbedder) Dim() int        { return 2 }

func (c *countingEmbedder) Embed(_ context.Context, text string) ([]float32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail {
		return nil, errors.New("boom")
	}
	c.calls = append(c.calls, text)
	return []float32{float32(len(text)), 1}, nil
}

func (c *countingEmbedder) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, err := c.Embed(ctx, t)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (c *countingEmbedder) seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls)
}

func TestCachedHitsAndMisses(t *testing.T) {
	inner := &countingEmbedder{}
	c := NewCached(inner, 10)
	ctx := context.Background()
	if c.ModelID() != "counting-v1" || c.Dim() != 2 {
		t.Fatal("Cached must report the wrapped model")
	}
	v1, _ := c.Embed(ctx, "abc")
	v2, _ := c.Embed(ctx, "abc")
	if !slices.Equal(v1, v2) || len(inner.seen()) != 1 {
		t.Fatalf("second Embed of the same text reached the model: calls %v", inner.seen())
	}
	if h, m := c.Stats(); h != 1 || m != 1 {
		t.Errorf("stats: %d hits, %d misses", h, m)
	}
	// The caller owns returned vectors.
	v2[0] = 99
	v3, _ := c.Embed(ctx, "abc")
	if v3[0] != 3 {
		t.Error("mutating a returned vector changed the cache")
	}

	got, err := c.EmbedBatch(ctx, []string{"abc", "de", "abc", "fghi"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"abc", "de", "fghi"}; !slices.Equal(inner.seen(), want) {
		t.Errorf("model saw %v, want %v (only misses, once each)", inner.seen(), want)
	}
	for i, n := range []float32{3, 2, 3, 4} {
		if got[i][0] != n {
			t.Errorf("batch result %d = %v", i, got[i])
		}
	}
}

func TestCachedEvictsLeastRecentlyUsed(t *testing.T) {
	inner := &countingEmbedder{}
	c := NewCached(inner, 3)
	ctx := context.Background()
	for _, s := range []string{"a", "b", "c"} {
		c.Embed(ctx, s)
	}
	c.Embed(ctx, "a") // a is now the most recent; b is the oldest
	c.Embed(ctx, "d") // evicts b
	if c.Len() != 3 {
		t.Fatalf("Len %d, want 3", c.Len())
	}
	before := len(inner.seen())
	c.Embed(ctx, "a")
	c.Embed(ctx, "c")
	c.Embed(ctx, "d")
	if n := len(inner.seen()) - before; n != 0 {
		t.Errorf("recent entries were evicted: %d extra model calls", n)
	}
	c.Embed(ctx, "b")
	if last := inner.seen()[len(inner.seen())-1]; last != "b" {
		t.Error("the oldest entry was not evicted")
	}
	for i := range 100 {
		c.Embed(ctx, fmt.Sprint(i))
	}
	if c.Len() != 3 {
		t.Errorf("cache grew to %d entries", c.Len())
	}
}

func TestCachedDoesNotCacheErrors(t *testing.T) {
	inner := &countingEmbedder{fail: true}
	c := NewCached(inner, 3)
	if _, err := c.Embed(context.Background(), "x"); err == nil {
		t.Fatal("error swallowed")
	}
	if _, err := c.EmbedBatch(context.Background(), []string{"x"}); err == nil {
		t.Fatal("batch error swallowed")
	}
	if c.Len() != 0 {
		t.Error("a failure was cached")
	}
}

func TestCachedConcurrent(t *testing.T) {
	c := NewCached(NewHash(32), 16)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				s := fmt.Sprint((g + i) % 40)
				if i%5 == 0 {
					c.EmbedBatch(ctx, []string{s, "shared"})
				} else {
					c.Embed(ctx, s)
				}
			}
		})
	}
	wg.Wait()
	if c.Len() > 16 {
		t.Errorf("cache holds %d entries, bound is 16", c.Len())
	}
	want, _ := NewHash(32).Embed(ctx, "7")
	if got, _ := c.Embed(ctx, "7"); !slices.Equal(got, want) {
		t.Error("cached vector differs from a fresh one")
	}
}
