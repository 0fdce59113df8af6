package embed

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestLazySlowLoader(t *testing.T) {
	release := make(chan struct{})
	l := NewLazy(func() (Embedder, error) {
		<-release
		return NewHash(16), nil
	})
	// NewLazy returned although the loader is blocked.
	if l.Ready() || l.Err() != nil {
		t.Fatalf("before load: Ready %v Err %v", l.Ready(), l.Err())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := l.Embed(ctx, "x"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Embed while loading: %v, want deadline exceeded", err)
	}
	if _, err := l.EmbedBatch(ctx, []string{"x"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("EmbedBatch while loading: %v, want deadline exceeded", err)
	}

	close(release)
	e, err := l.Wait(context.Background())
	if err != nil || e == nil {
		t.Fatalf("Wait: %v, %v", e, err)
	}
	if !l.Ready() || l.Err() != nil || l.ModelID() != "hash-16-v1" || l.Dim() != 16 {
		t.Errorf("after load: Ready %v Err %v ModelID %q Dim %d", l.Ready(), l.Err(), l.ModelID(), l.Dim())
	}
	got, err := l.Embed(context.Background(), "hello")
	want, _ := NewHash(16).Embed(context.Background(), "hello")
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Embed after load: %v, %v", got, err)
	}
	vs, err := l.EmbedBatch(context.Background(), []string{"hello", "x"})
	if err != nil || len(vs) != 2 || !slices.Equal(vs[0], want) {
		t.Errorf("EmbedBatch after load: %v, %v", vs, err)
	}
}

func TestLazyFailingLoader(t *testing.T) {
	boom := errors.New("weights missing")
	l := NewLazy(func() (Embedder, error) { return nil, boom })
	if _, err := l.Wait(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("Wait: %v", err)
	}
	if l.Ready() || !errors.Is(l.Err(), boom) {
		t.Errorf("Ready %v Err %v", l.Ready(), l.Err())
	}
	if _, err := l.Embed(context.Background(), "x"); !errors.Is(err, boom) {
		t.Errorf("Embed: %v", err)
	}
	if _, err := l.EmbedBatch(context.Background(), []string{"x"}); !errors.Is(err, boom) {
		t.Errorf("EmbedBatch: %v", err)
	}
	if l.ModelID() != "" || l.Dim() != 0 {
		t.Errorf("ModelID %q Dim %d after a failed load", l.ModelID(), l.Dim())
	}
}

func TestLazyNilEmbedderIsAnError(t *testing.T) {
	l := NewLazy(func() (Embedder, error) { return New("none") })
	if _, err := l.Wait(context.Background()); err == nil {
		t.Error("a loader returning no embedder must be an error")
	}
}

func TestLazyWithUSELite(t *testing.T) {
	l := NewLazy(func() (Embedder, error) { return New("use-lite") })
	v, err := l.Embed(context.Background(), "hello world")
	if err != nil || len(v) != 512 || l.ModelID() != USELiteModelID {
		t.Fatalf("Embed: %d dims, %v, model %q", len(v), err, l.ModelID())
	}
}
