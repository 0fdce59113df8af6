package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// benchModel is the embedding model benchmarks use (use-lite, hash, none).
var benchModel = "use-lite"

// newBenchEngine builds and starts a memory engine as the daemon does,
// embedding with e (nil: keyword only).
func newBenchEngine(ctx context.Context, store *mongostore.Store, reg *scopes.Registry, e embed.Embedder, log *slog.Logger) (*memory.Engine, error) {
	opts := memory.Options{Logger: log}
	if e != nil {
		opts.Embedder = e
		if benchEmbedCache != "" {
			if sharedCache == nil {
				c, err := newCachedEmbedder(e, benchEmbedCache)
				if err != nil {
					return nil, fmt.Errorf("embedding cache: %w", err)
				}
				sharedCache = c
			}
			opts.Embedder = sharedCache
		}
	}
	eng := memory.New(store, reg, opts)
	eng.Start(ctx)
	return eng, nil
}

// sharedCache is the embedding cache every bench engine of this run
// shares (see benchEmbedCache).
var sharedCache *cachedEmbedder

// closeCache writes the cache's new vectors to its file.
func closeCache() error {
	if sharedCache == nil {
		return nil
	}
	err := sharedCache.Close()
	sharedCache = nil
	return err
}
