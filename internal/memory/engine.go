package memory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// Sources a memory can have.
const (
	sourceConversation = "conversation"
	sourceNote         = "note"
	sourceUserProfile  = "user_profile"
	sourceSummary      = "summary"
	sourceLesson       = "lesson"
)

// Sources lists the valid values of a memory's source.
var Sources = []string{sourceConversation, sourceNote, sourceUserProfile, sourceSummary, sourceLesson}

// Options configures the engine.
type Options struct {
	// MaxContentBytes bounds a memory's text (default 32 KiB).
	MaxContentBytes int
	// DefaultScope is used when a request and its session name no scope.
	DefaultScope string
	// Location is the user's time zone for time phrases (default time.Local).
	Location *time.Location
	// LoadWait bounds how long a request waits for the index to finish loading.
	LoadWait time.Duration
	// Now is the clock (default time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

// Engine is the memory engine. Safe for concurrent use.
type Engine struct {
	store  *mongostore.Store
	scopes *scopes.Registry
	opts   Options
	log    *slog.Logger
	ix     *index

	// writeMu serialises writes so that duplicate checks, forgets and
	// updates see each other's effects in order.
	writeMu sync.Mutex

	ready    chan struct{}
	loadErr  error
	loaded   atomic.Int64
	expected atomic.Int64

	access  *accessTracker
	started atomic.Bool
}

// New creates an engine; call Start to load its index.
func New(store *mongostore.Store, reg *scopes.Registry, opts Options) *Engine {
	if opts.MaxContentBytes <= 0 {
		opts.MaxContentBytes = 32 << 10
	}
	if opts.DefaultScope == "" {
		opts.DefaultScope = scopes.Global
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.LoadWait <= 0 {
		opts.LoadWait = 5 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Engine{store: store, scopes: reg, opts: opts, log: opts.Logger, ix: newIndex(), ready: make(chan struct{})}
	e.access = newAccessTracker(store, opts.Logger, opts.Now)
	return e
}

// Start loads the index in the background and starts the access tracker.
// It returns at once; requests wait for the load (bounded by LoadWait).
func (e *Engine) Start(ctx context.Context) {
	if !e.started.CompareAndSwap(false, true) {
		return
	}
	go e.access.run()
	go func() {
		start := time.Now()
		err := e.load(ctx)
		e.loadErr = err
		close(e.ready)
		if err != nil {
			e.log.Error("memory index load failed", "err", err)
			return
		}
		e.log.Info("memory index loaded", "memories", e.loaded.Load(), "duration", time.Since(start).Round(time.Millisecond))
	}()
}

// Close flushes pending access updates.
func (e *Engine) Close(ctx context.Context) error {
	if !e.started.Load() {
		return nil
	}
	return e.access.close(ctx)
}

// Ready reports whether the index is loaded.
func (e *Engine) Ready() bool {
	select {
	case <-e.ready:
		return e.loadErr == nil
	default:
		return false
	}
}

// LoadProgress reports how many documents the index holds of how many expected.
func (e *Engine) LoadProgress() (loaded, expected int64) { return e.loaded.Load(), e.expected.Load() }

// wait blocks until the index is loaded, at most LoadWait.
func (e *Engine) wait(ctx context.Context) error {
	select {
	case <-e.ready:
		if e.loadErr != nil {
			return fmt.Errorf("memory index failed to load: %w", e.loadErr)
		}
		return nil
	default:
	}
	t := time.NewTimer(e.opts.LoadWait)
	defer t.Stop()
	select {
	case <-e.ready:
		if e.loadErr != nil {
			return fmt.Errorf("memory index failed to load: %w", e.loadErr)
		}
		return nil
	case <-t.C:
		loaded, expected := e.LoadProgress()
		return fmt.Errorf("%w (%d of about %d memories indexed); try again in a few seconds", ErrLoading, loaded, expected)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *Engine) load(ctx context.Context) error {
	n1, err := e.store.Memories.EstimatedCount(ctx)
	if err != nil {
		return err
	}
	n2, err := e.store.Summaries.EstimatedCount(ctx)
	if err != nil {
		return err
	}
	e.expected.Store(n1 + n2)
	err = e.store.Memories.Iterate(ctx, 1000, func(batch []mongostore.Memory) error {
		for i := range batch {
			e.ix.put(docFromMemory(&batch[i]))
		}
		e.loaded.Add(int64(len(batch)))
		return nil
	})
	if err != nil {
		return err
	}
	return e.store.Summaries.Iterate(ctx, 1000, func(batch []mongostore.Summary) error {
		for i := range batch {
			e.ix.put(docFromSummary(&batch[i]))
		}
		e.loaded.Add(int64(len(batch)))
		return nil
	})
}

// Reload rebuilds the index from the database (after a restore).
func (e *Engine) Reload(ctx context.Context) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	fresh := newIndex()
	old := e.ix
	e.ix = fresh
	e.loaded.Store(0)
	if err := e.load(ctx); err != nil {
		e.ix = old
		return err
	}
	return e.scopes.Reload(ctx)
}

// now is the engine's clock, in UTC, at the database's millisecond precision.
func (e *Engine) now() time.Time { return e.opts.Now().UTC().Truncate(time.Millisecond) }

// Scopes exposes the scope registry the engine uses.
func (e *Engine) Scopes() *scopes.Registry { return e.scopes }

// Location is the user's time zone.
func (e *Engine) Location() *time.Location { return e.opts.Location }

// errIsNotFound reports whether a store error means a missing document.
func errIsNotFound(err error) bool { return errors.Is(err, mongostore.ErrNotFound) }
