package embed

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"
)

// Cached wraps an Embedder with a bounded LRU cache of vectors keyed by the
// SHA-256 of the text, so repeated queries and re-stored memories skip the
// model. Safe for concurrent use; returned vectors are copies the caller may
// modify.
type Cached struct {
	inner Embedder
	max   int

	mu      sync.Mutex
	entries map[[sha256.Size]byte]*list.Element
	order   *list.List // front = most recently used
	hits    uint64
	misses  uint64
}

type cacheEntry struct {
	key [sha256.Size]byte
	vec []float32
}

// NewCached returns e with a cache of at most entries vectors (at least 1).
func NewCached(e Embedder, entries int) *Cached {
	return &Cached{
		inner:   e,
		max:     max(entries, 1),
		entries: make(map[[sha256.Size]byte]*list.Element),
		order:   list.New(),
	}
}

// ModelID implements Embedder.
func (c *Cached) ModelID() string { return c.inner.ModelID() }

// Dim implements Embedder.
func (c *Cached) Dim() int { return c.inner.Dim() }

// Embed implements Embedder.
func (c *Cached) Embed(ctx context.Context, text string) ([]float32, error) {
	key := sha256.Sum256([]byte(text))
	if v, ok := c.get(key); ok {
		return v, nil
	}
	v, err := c.inner.Embed(ctx, text)
	if err != nil {
		return nil, err
	}
	c.put(key, v)
	return clone(v), nil
}

// EmbedBatch implements Embedder; only the texts not in the cache go to the
// wrapped embedder, in one batch.
func (c *Cached) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	keys := make([][sha256.Size]byte, len(texts))
	var missTexts []string
	var missIdx []int
	for i, t := range texts {
		keys[i] = sha256.Sum256([]byte(t))
		if v, ok := c.get(keys[i]); ok {
			out[i] = v
			continue
		}
		missTexts = append(missTexts, t)
		missIdx = append(missIdx, i)
	}
	if len(missTexts) == 0 {
		return out, nil
	}
	vecs, err := c.inner.EmbedBatch(ctx, missTexts)
	if err != nil {
		return nil, err
	}
	for j, i := range missIdx {
		c.put(keys[i], vecs[j])
		out[i] = clone(vecs[j])
	}
	return out, nil
}

// Stats reports cache hits and misses since construction.
func (c *Cached) Stats() (hits, misses uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// Len reports how many vectors the cache holds.
func (c *Cached) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

func (c *Cached) get(key [sha256.Size]byte) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		c.misses++
		return nil, false
	}
	c.hits++
	c.order.MoveToFront(el)
	return clone(el.Value.(*cacheEntry).vec), true
}

func (c *Cached) put(key [sha256.Size]byte, v []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.entries[key] = c.order.PushFront(&cacheEntry{key: key, vec: clone(v)})
	for c.order.Len() > c.max {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.entries, oldest.Value.(*cacheEntry).key)
	}
}

func clone(v []float32) []float32 { return append([]float32(nil), v...) }
