// Package testenv owns what tests across packages share to stand up real
// infmem pieces: a fresh data root and an open store on the embedded engine
// (or on INFMEM_TEST_MONGODB_URI when a test asks for every engine), each
// named after the test.
package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/mongostore"
)

// Root prepares a fresh data root in the test's temp dir.
func Root(t testing.TB) dataroot.Root {
	t.Helper()
	r, err := dataroot.Prepare(filepath.Join(t.TempDir(), "root"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// DBName derives a valid, unique database name from the test's name.
func DBName(t testing.TB) string {
	n := nonName.ReplaceAllString(t.Name(), "_")
	if len(n) > 50 {
		sum := sha256.Sum256([]byte(t.Name()))
		n = n[:40] + "_" + hex.EncodeToString(sum[:4])
	}
	return n
}

// Logger writes warnings and errors to the test log.
func Logger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(writer{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type writer struct{ t testing.TB }

func (w writer) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// Store opens the embedded engine on a fresh data root with a database named
// after the test, closed when the test ends.
func Store(t testing.TB) *mongostore.Store {
	t.Helper()
	return StoreAt(t, Root(t))
}

// StoreAt opens the embedded engine on root, closed when the test ends.
func StoreAt(t testing.TB, root dataroot.Root) *mongostore.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: root, Database: DBName(t), Logger: Logger(t)})
	if err != nil {
		t.Fatalf("open embedded store: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return s
}

// Context is a context that ends with the test (or after a minute).
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
