package main

import (
	"context"
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
func newBenchEngine(ctx context.Context, store *mongostore.Store, reg *scopes.Registry, e embed.Embedder, log *slog.Logger) *memory.Engine {
	opts := memory.Options{Logger: log}
	if e != nil {
		opts.Embedder = e
	}
	eng := memory.New(store, reg, opts)
	eng.Start(ctx)
	return eng
}
