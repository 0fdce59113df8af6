package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/infmem/infmem/internal/embed"
)

// benchEmbedCache, when set, is a file that keeps embeddings by text hash
// between engine runs (the model is deterministic, so a vector computed
// once is the vector): re-running a recall set after a ranking change
// skips the model. Empty: no cache.
var benchEmbedCache string

// cachedEmbedder answers from the cache file and embeds (and appends)
// only texts it has not seen.
type cachedEmbedder struct {
	embed.Embedder
	mu   sync.Mutex
	vecs map[[16]byte][]float32
	w    *bufio.Writer
	f    *os.File
}

func defaultEmbedCache(model string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "infmem-bench", "embeddings-"+model+".bin")
}

// newCachedEmbedder opens (or creates) the cache at path for e's model;
// a record is the text's 16-byte hash and the vector's float32s.
func newCachedEmbedder(e embed.Embedder, path string) (*cachedEmbedder, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	c := &cachedEmbedder{Embedder: e, vecs: map[[16]byte][]float32{}, f: f}
	dim := e.Dim()
	rec := make([]byte, 16+4*dim)
	r := bufio.NewReaderSize(f, 1<<20)
	var good int64
	for {
		if _, err := io.ReadFull(r, rec); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			f.Close()
			return nil, err
		}
		var k [16]byte
		copy(k[:], rec)
		v := make([]float32, dim)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(rec[16+4*i:]))
		}
		c.vecs[k] = v
		good += int64(len(rec))
	}
	// A torn last record (an interrupted run) is cut off.
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	c.w = bufio.NewWriterSize(f, 1<<20)
	return c, nil
}

func (c *cachedEmbedder) key(text string) [16]byte {
	h := sha256.Sum256([]byte(c.ModelID() + "\x00" + text))
	var k [16]byte
	copy(k[:], h[:])
	return k
}

func (c *cachedEmbedder) put(k [16]byte, v []float32) {
	c.vecs[k] = v
	c.w.Write(k[:])
	var b [4]byte
	for _, x := range v {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		c.w.Write(b[:])
	}
}

func (c *cachedEmbedder) Embed(ctx context.Context, text string) ([]float32, error) {
	k := c.key(text)
	c.mu.Lock()
	v, ok := c.vecs[k]
	c.mu.Unlock()
	if ok {
		return append([]float32(nil), v...), nil
	}
	v, err := c.Embedder.Embed(ctx, text)
	if err != nil {
		return nil, err
	}
	if len(v) != c.Dim() {
		return nil, fmt.Errorf("embedding of %d values, want %d", len(v), c.Dim())
	}
	c.mu.Lock()
	c.put(k, append([]float32(nil), v...))
	c.mu.Unlock()
	return v, nil
}

func (c *cachedEmbedder) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
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

// Close writes what is new to the file.
func (c *cachedEmbedder) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.w.Flush()
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	return err
}
