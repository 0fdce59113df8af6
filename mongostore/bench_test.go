package mongostore

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/infmem/infmem/internal/dataroot"
)

// benchRoot prepares a data root for a benchmark.
func benchRoot(b *testing.B) dataroot.Root {
	r, err := dataroot.Prepare(filepath.Join(b.TempDir(), "root"))
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// text300 is a realistic 300-byte memory.
var text300 = strings.Repeat("Project Apollo deadline is June 5; Alice owns the launch checklist. ", 5)[:300]

func memoryWithVector(i int) (*Memory, *IndexEntry) {
	m := newMemory(text300, "Global", "apollo", "deadline")
	vec := make([]byte, 2048) // 512 float32s
	for j := range vec {
		vec[j] = byte(i + j)
	}
	e := &IndexEntry{ID: m.ID, SourceCollection: ConversationHistory, SourceID: m.ID, Scope: m.Scope,
		Model: "bench-512", Dim: 512, Embedding: vec, Encoding: "f32", Metadata: IndexMeta{Timestamp: m.Timestamp, Tags: m.Tags}, CreatedAt: m.CreatedAt}
	return m, e
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(p(0.50), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
}

// BenchmarkEmbeddedColdStart measures start of the embedded engine to the
// first answered ping, on a data root that already holds a database, and the
// whole Open (start, connect, schema check, _id indexes).
func BenchmarkEmbeddedColdStart(b *testing.B) {
	root := benchRoot(b)
	ctx := context.Background()
	s, err := Open(ctx, Options{Mode: ModeEmbedded, Root: root})
	if err != nil {
		b.Fatal(err)
	}
	s.Close(ctx)
	b.Run("to-first-ping", func(b *testing.B) {
		for b.Loop() {
			eng, err := startEmbedded(ctx, Options{Root: root, Logger: testDiscard()})
			if err != nil {
				b.Fatal(err)
			}
			st, err := connectOnly(ctx, eng)
			if err != nil {
				b.Fatal(err)
			}
			st.Disconnect(ctx)
			eng.stop(ctx)
		}
	})
	b.Run("open-with-schema-check", func(b *testing.B) {
		for b.Loop() {
			s, err := Open(ctx, Options{Mode: ModeEmbedded, Root: root})
			if err != nil {
				b.Fatal(err)
			}
			s.Close(ctx)
		}
	})
}

// BenchmarkEmbeddedInsert writes a 300-byte memory and its 2 KB binary
// embedding (two journaled inserts: the memory and its MemoryIndex entry).
func BenchmarkEmbeddedInsert(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, Options{Mode: ModeEmbedded, Root: benchRoot(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(ctx)
	lat := make([]time.Duration, 0, 4096)
	i := 0
	for b.Loop() {
		m, e := memoryWithVector(i)
		i++
		t0 := time.Now()
		if err := s.Memories.Insert(ctx, m); err != nil {
			b.Fatal(err)
		}
		if err := s.Index.Insert(ctx, e); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportPercentiles(b, lat)
}

const bench100k = 100_000

// BenchmarkEmbedded100k loads 100k memories with their embeddings, then
// measures get-by-id and full iteration (the start-up index load).
func BenchmarkEmbedded100k(b *testing.B) {
	if os.Getenv("INFMEM_BENCH_100K") == "" {
		b.Skip("set INFMEM_BENCH_100K=1 (loading 100k memories takes minutes)")
	}
	ctx := context.Background()
	s, err := Open(ctx, Options{Mode: ModeEmbedded, Root: benchRoot(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(ctx)
	ids := make([]bson.ObjectID, 0, bench100k)
	t0 := time.Now()
	for i := 0; i < bench100k; i += 1000 {
		ms := make([]*Memory, 0, 1000)
		es := make([]*IndexEntry, 0, 1000)
		for j := 0; j < 1000; j++ {
			m, e := memoryWithVector(i + j)
			ms = append(ms, m)
			es = append(es, e)
			ids = append(ids, m.ID)
		}
		if err := s.Memories.InsertMany(ctx, ms); err != nil {
			b.Fatal(err)
		}
		if err := s.Index.InsertMany(ctx, es); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("loaded %d memories + embeddings in %v", bench100k, time.Since(t0))

	b.Run("get-by-id", func(b *testing.B) {
		lat := make([]time.Duration, 0, 4096)
		i := 0
		for b.Loop() {
			t0 := time.Now()
			if _, err := s.Memories.Get(ctx, ids[(i*7919)%len(ids)]); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
			i++
		}
		reportPercentiles(b, lat)
	})
	b.Run("iterate-memories", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if err := s.Memories.Iterate(ctx, 1000, func(batch []Memory) error { n += len(batch); return nil }); err != nil || n != bench100k {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("iterate-embeddings", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if err := s.Index.Iterate(ctx, 1000, func(batch []IndexEntry) error { n += len(batch); return nil }); err != nil || n != bench100k {
				b.Fatal(n, err)
			}
		}
	})
}

func testDiscard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// connectOnly connects and pings without the schema check.
func connectOnly(ctx context.Context, eng engine) (*mongo.Client, error) {
	c, err := mongo.Connect(clientOptions(eng, 10*time.Second))
	if err != nil {
		return nil, err
	}
	return c, c.Ping(ctx, nil)
}
