package embed

import (
	"context"
	"fmt"
)

// Lazy is an Embedder whose model loads in a background goroutine, so a
// server can answer its handshake before the weights are decoded. Calls made
// before the load finishes wait for it (or for their context).
type Lazy struct {
	done chan struct{} // closed when the load has finished
	e    Embedder      // set before done is closed
	err  error         // set before done is closed
}

// NewLazy starts load in a new goroutine and returns at once. A load that
// returns (nil, nil), as New("none") does, is reported as an error because a
// Lazy must be able to embed.
func NewLazy(load func() (Embedder, error)) *Lazy {
	l := &Lazy{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		e, err := load()
		switch {
		case err != nil:
			l.err = fmt.Errorf("failed to load embedding model: %w", err)
		case e == nil:
			l.err = fmt.Errorf("failed to load embedding model: loader returned no embedder")
		default:
			l.e = e
		}
	}()
	return l
}

// Ready reports whether the model has loaded successfully.
func (l *Lazy) Ready() bool {
	select {
	case <-l.done:
		return l.err == nil
	default:
		return false
	}
}

// Err returns the load error, or nil while loading or after success.
func (l *Lazy) Err() error {
	select {
	case <-l.done:
		return l.err
	default:
		return nil
	}
}

// Wait blocks until the model has loaded or ctx is done.
func (l *Lazy) Wait(ctx context.Context) (Embedder, error) {
	select {
	case <-l.done:
		return l.e, l.err
	case <-ctx.Done():
		return nil, fmt.Errorf("embedding model still loading: %w", ctx.Err())
	}
}

// ModelID implements Embedder. It waits for the load, since the id is not
// known before, and returns "" if the load failed.
func (l *Lazy) ModelID() string {
	<-l.done
	if l.e == nil {
		return ""
	}
	return l.e.ModelID()
}

// Dim implements Embedder. It waits for the load and returns 0 if the load
// failed.
func (l *Lazy) Dim() int {
	<-l.done
	if l.e == nil {
		return 0
	}
	return l.e.Dim()
}

// Embed implements Embedder, waiting for the load first.
func (l *Lazy) Embed(ctx context.Context, text string) ([]float32, error) {
	e, err := l.Wait(ctx)
	if err != nil {
		return nil, err
	}
	return e.Embed(ctx, text)
}

// EmbedBatch implements Embedder, waiting for the load first.
func (l *Lazy) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	e, err := l.Wait(ctx)
	if err != nil {
		return nil, err
	}
	return e.EmbedBatch(ctx, texts)
}
