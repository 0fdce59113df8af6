package memory

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory/memindex"
)

// bench100k is an engine, without a database, whose index holds 100k
// memories in 8 scopes, a third of them turns of conversations of 20:
// 12–40 pseudo-words each (a Zipf draw from 20,000), random unit vectors.
// It also returns queries of 3–6 of the index's words.
func bench100k(b *testing.B) (*Engine, []string) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 20000)
	syl := []string{"ka", "lo", "mi", "ra", "ten", "vor", "sa", "ne", "tri", "pol", "du", "fe", "gan", "ish", "or", "bel", "zu", "wen"}
	for i := range vocab {
		var w strings.Builder
		for j := 0; j < 2+rng.IntN(3); j++ {
			w.WriteString(syl[rng.IntN(len(syl))])
		}
		vocab[i] = w.String()
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 2, uint64(len(vocab)-1))
	e := New(nil, nil, Options{Embedder: embed.NewHash(embed.HashDim)})
	close(e.ready)
	ix := e.index()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		var t strings.Builder
		t.WriteString("Alice decided")
		for j := 10 + rng.IntN(28); j > 0; j-- {
			t.WriteByte(' ')
			t.WriteString(vocab[zipf.Uint64()])
		}
		fmt.Fprintf(&t, " (note %d)", i)
		v := make([]float32, embed.HashDim)
		var norm float64
		for j := range v {
			v[j] = float32(rng.NormFloat64())
			norm += float64(v[j] * v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		ts := base.Add(time.Duration(rng.IntN(730*24)) * time.Hour)
		conv := ""
		if i%3 == 0 {
			conv = fmt.Sprintf("c%d", i/60)
		}
		ix.Put(memindex.Doc{ID: bson.NewObjectID(), Kind: memindex.KindMemory, Text: t.String(), Source: sourceNote, Scope: fmt.Sprintf("scope%d", i%8),
			Conv: conv, TS: ts, Created: ts, Importance: 0.5, Key: contentKey(t.String()), Vec: v})
	}
	queries := make([]string, 64)
	for i := range queries {
		var q []string
		for j := 3 + rng.IntN(4); j > 0; j-- {
			q = append(q, vocab[20+rng.IntN(2000)])
		}
		queries[i] = strings.Join(q, " ")
	}
	return e, queries
}

// BenchmarkRank100k times the ranking of one query over 100k memories
// (keyword and vector candidates, neighbours, scores, confidences), without
// the database: what a retrieval costs the engine before its results are
// read by _id. The query is embedded by the hash embedder so that the
// figure is the ranking's own.
func BenchmarkRank100k(b *testing.B) {
	e, queries := bench100k(b)
	benchRank(b, e, queries)
}

// BenchmarkRank100kTypo: each query has one word no memory holds, a
// letter of it dropped (the typo alternatives' scan).
func BenchmarkRank100kTypo(b *testing.B) {
	e, queries := bench100k(b)
	for i, q := range queries {
		w := strings.Fields(q)
		if len(w[0]) > 4 {
			w[0] = w[0][:2] + w[0][3:]
		} else {
			w[0] += "x"
		}
		queries[i] = strings.Join(w, " ")
	}
	benchRank(b, e, queries)
}

// BenchmarkRank100kPeriod: each query names a period ("in March 2024"),
// whose memories join the candidates.
func BenchmarkRank100kPeriod(b *testing.B) {
	e, queries := bench100k(b)
	for i := range queries {
		queries[i] += " in March 2024"
	}
	benchRank(b, e, queries)
}

func benchRank(b *testing.B, e *Engine, queries []string) {
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if _, err := e.rank(ctx, queries[i%len(queries)], nil, memindex.Filter{}, 5, ModeHybrid); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkSnapshot100k times writing the index of 100k memories to its
// snapshot file and reading it back (the start-up load from a snapshot,
// without the database).
func BenchmarkSnapshot100k(b *testing.B) {
	e, _ := bench100k(b)
	p := filepath.Join(b.TempDir(), SnapshotFile)
	h := e.snapshotHeader("bench")
	if err := e.index().WriteFile(p, h); err != nil {
		b.Fatal(err)
	}
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			if err := e.index().WriteFile(p, h); err != nil {
				b.Fatal(err)
			}
		}
	})
	if fi, err := os.Stat(p); err == nil {
		b.Logf("snapshot of 100k memories: %.1f MB", float64(fi.Size())/(1<<20))
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := memindex.ReadFile(p, h, time.UTC); err != nil {
				b.Fatal(err)
			}
		}
	})
}
