// Package testenv owns what tests across packages share to stand up real
// infmem pieces: a fresh data root and an open store on the embedded engine
// (or on INFMEM_TEST_MONGODB_URI when a test asks for every engine), each
// named after the test.
package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// Context is a context that ends with the test, or at its time limit
// (Limit), so that a hung test fails on its own, naming itself, long
// before go test's -timeout ends the whole binary. It also ends
// deadlineMargin before that -timeout, for the same reason.
func Context(t testing.TB) context.Context {
	limit, err := Limit()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), limit,
		fmt.Errorf("testenv: the test's time limit (%v; %s scales it) ran out", limit, EnvTimeScale))
	t.Cleanup(cancel)
	if td, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := td.Deadline(); ok && time.Until(end) > 2*deadlineMargin {
			ctx, cancel = context.WithDeadlineCause(ctx, end.Add(-deadlineMargin),
				errors.New("testenv: go test's -timeout is near"))
			t.Cleanup(cancel)
		}
	}
	return ctx
}

// EnvTimeScale names a number that scales every test's time limit, for a
// machine slower or busier than CI's two cores (INFMEM_TEST_TIME_SCALE=3
// triples it).
const EnvTimeScale = "INFMEM_TEST_TIME_SCALE"

const (
	// baseLimit is what one test of the embedded engine needs at most,
	// with room to spare, on two cores without the race detector.
	baseLimit = time.Minute
	// raceScale: the race detector makes these tests several times
	// slower (every store and search is many goroutines and channel
	// operations, in the test and in the engine it embeds); under it, on
	// two busy cores, the heaviest took more than baseLimit.
	raceScale = 5
	// maxLimit bounds what EnvTimeScale can ask for.
	maxLimit = 24 * time.Hour
	// deadlineMargin is kept between a test's context and go test's
	// -timeout, for the failure to be reported.
	deadlineMargin = 15 * time.Second
)

// Limit is a test's time limit: baseLimit times Scale.
func Limit() (time.Duration, error) {
	f, err := Scale()
	if err != nil {
		return 0, err
	}
	return time.Duration(min(float64(baseLimit)*f, float64(maxLimit))), nil
}

// Scale is what a test's time bounds are multiplied by: raceScale under
// the race detector, times EnvTimeScale when it is set (an error if it is
// not a positive number).
func Scale() (float64, error) {
	f := 1.0
	if raceEnabled {
		f = raceScale
	}
	if v := os.Getenv(EnvTimeScale); v != "" {
		g, err := strconv.ParseFloat(v, 64)
		if err != nil || !(g > 0) || math.IsInf(g, 0) {
			return 0, fmt.Errorf("testenv: %s=%q: want a positive number (2 doubles every test's time limit)", EnvTimeScale, v)
		}
		f *= g
	}
	return f, nil
}
