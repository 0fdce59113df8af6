package webui

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// BenchmarkFirstView times what the page asks for before it shows
// anything, on a real data root (BENCHMARKS.md, "Web UI (issue 16)"):
//
//	go run ./cmd/infmem-bench seed --data-dir D --n 100000   # or a copy of one
//	INFMEM_UI_BENCH_ROOT=D go test ./internal/webui/ -run '^$' -bench FirstView -benchtime 20x
//
// The root is opened read-mostly (the page's reads write nothing; the
// engine's start-up may write its index snapshot), so point it at a copy.
// Each request goes through the real listener, guards and JSON, one after
// the other (a browser sends some of them in parallel: this is the upper
// bound).
func BenchmarkFirstView(b *testing.B) {
	path := os.Getenv("INFMEM_UI_BENCH_ROOT")
	if path == "" {
		b.Skip("set INFMEM_UI_BENCH_ROOT to a (copy of a) seeded data root")
	}
	ctx := context.Background()
	root, err := dataroot.Prepare(path)
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	octx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	store, err := mongostore.Open(octx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: root, Database: "claude_memory", Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close(context.Background())
	reg, err := scopes.Load(octx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		b.Fatal(err)
	}
	emb, err := embed.NewUSELite()
	if err != nil {
		b.Fatal(err)
	}
	eng := memory.New(store, reg, memory.Options{Embedder: emb, Logger: log})
	start := time.Now()
	eng.Start(ctx)
	defer eng.Close(context.Background())
	select {
	case <-eng.Loaded():
	case <-time.After(10 * time.Minute):
		b.Fatal("the index did not load")
	}
	st, err := eng.Stats(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d memories, index loaded in %v", st.TotalMemories, time.Since(start).Round(time.Millisecond))

	s := New(Options{Memory: ready(eng), Logger: log})
	defer s.Close()
	link, err := s.Open()
	if err != nil {
		b.Fatal(err)
	}
	br := launch(b, link)
	get := func(path string) {
		code, body := br.do(http.MethodGet, path, nil, nil)
		if code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, code, body)
		}
	}
	// The search view (the page's landing): the page, its script and
	// style, the session, the scopes for the filter, the header's counts.
	searchView := []string{"/", "/app.js", "/app.css", "/api/session", "/api/scopes", "/api/stats"}
	// Browse adds the timeline and the first page of 50.
	browseView := []string{"/api/session", "/api/scopes", "/api/stats", "/api/timeline", "/api/memories?limit=50&offset=0"}
	run := func(name string, paths []string) {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				for _, p := range paths {
					get(p)
				}
			}
		})
	}
	run("search-view", searchView)
	run("browse-view", browseView)
	run("timeline", []string{"/api/timeline"})
	run("stats", []string{"/api/stats"})
	run("scopes", []string{"/api/scopes"})
	run("search-query", []string{"/api/search?" + url.Values{"q": {"what did we decide about the deadline"}, "limit": {"20"}}.Encode()})
	// The timeline as it was: an Engine.List per bar (up to 60) and two
	// for its edges, for comparison.
	b.Run("timeline-per-bar-lists", func(b *testing.B) {
		for range b.N {
			first, _ := edge(ctx, eng, memory.ListRequest{Limit: 1}, "oldest")
			last, _ := edge(ctx, eng, memory.ListRequest{Limit: 1}, "newest")
			_, from, step := bucketing(*first, *last)
			for i := 0; i < maxBuckets && !from.After(*last); i++ {
				to := step(from)
				if _, err := eng.List(ctx, memory.ListRequest{From: from, To: to, Limit: 1}); err != nil {
					b.Fatal(err)
				}
				from = to
			}
		}
	})
}

// edge is the timestamp of the oldest or newest memory a listing holds
// (what the timeline used to list for).
func edge(ctx context.Context, eng *memory.Engine, req memory.ListRequest, sort string) (*time.Time, error) {
	req.Sort = sort
	res, err := eng.List(ctx, req)
	if err != nil || len(res.Memories) == 0 {
		return nil, err
	}
	t := res.Memories[0].Timestamp
	return &t, nil
}
