package vecindex

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/offheap"
)

// benchCorpus is a seeded index of clustered 512-d vectors (100 documents per
// topic) and queries from the same distribution, built once per size.
type benchCorpus struct {
	ix      *Index
	queries [][]float32
}

var (
	benchMu      sync.Mutex
	benchCorpora = map[int]*benchCorpus{}
)

func corpusOf(b testing.TB, n int) *benchCorpus {
	benchMu.Lock()
	defer benchMu.Unlock()
	if c := benchCorpora[n]; c != nil {
		return c
	}
	g := newClustered(uint64(n), 512, max(n/100, 1))
	c := &benchCorpus{ix: New(512)}
	for id := range uint32(n) {
		mustPut(b, c.ix, id, g.next())
	}
	for range 256 {
		c.queries = append(c.queries, g.next())
	}
	benchCorpora[n] = c
	return c
}

// reportCPU starts measuring process CPU time; the function it returns
// reports it per operation.
func reportCPU(b *testing.B) func() {
	cpu0, ok := processCPU()
	return func() {
		if cpu1, _ := processCPU(); ok && b.N > 0 {
			b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

// timed runs op b.N times and reports the median and 99th-percentile latency
// and the process CPU time per operation.
func timed(b *testing.B, op func(i int)) {
	lat := make([]time.Duration, 0, b.N)
	cpu0, cpuOK := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		op(i)
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	if cpu1, _ := processCPU(); cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

// filters returns the benchmark pre-filters over ids [0, n): a quarter of
// the ids scattered at random (a scope or tag filter) and the newest quarter
// (a time range, since slots are allocated in insertion order).
func filters(n int) map[string]*Filter {
	r := rand.New(rand.NewPCG(11, 11))
	scattered, recent := NewFilter(n), NewFilter(n)
	for id := range uint32(n) {
		if r.IntN(4) == 0 {
			scattered.Add(id)
		}
		if int(id) >= n*3/4 {
			recent.Add(id)
		}
	}
	return map[string]*Filter{"all": nil, "filter25-scattered": scattered, "filter25-recent": recent}
}

// BenchmarkSearch times top-10 searches. "serial" forces one goroutine,
// "parallel" splits every scan over GOMAXPROCS goroutines, "default" uses the
// index's own thresholds, "exact" is default without the coarse pass and
// "exact-serial" and "exact-parallel" force its split as above.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		for fname, f := range filters(n) {
			for _, mode := range []string{"default", "exact", "exact-serial", "exact-parallel", "serial", "parallel"} {
				b.Run(fmt.Sprintf("%dk/%s/%s", n/1000, fname, mode), func(b *testing.B) {
					c := corpusOf(b, n)
					old, oldC, oldCoarse := c.ix.parallelMin, c.ix.coarseParallelMin, c.ix.coarseDots
					defer func() { c.ix.parallelMin, c.ix.coarseParallelMin, c.ix.coarseDots = old, oldC, oldCoarse }()
					if strings.HasPrefix(mode, "exact") {
						c.ix.coarseDots = nil
					}
					switch strings.TrimPrefix(mode, "exact-") {
					case "serial":
						c.ix.parallelMin, c.ix.coarseParallelMin = 1<<30, 1<<30
					case "parallel":
						c.ix.parallelMin, c.ix.coarseParallelMin = 1, 1
					}
					timed(b, func(i int) {
						if h := c.ix.Search(c.queries[i%len(c.queries)], 10, f); len(h) != 10 {
							b.Fatalf("%d hits", len(h))
						}
					})
				})
			}
		}
	}
}

// BenchmarkSearchFunc is the 25 % scattered filter given as a predicate over a
// caller's per-document table, as the memory engine would write it, against
// the same filter built by the caller into a Filter for each query.
func BenchmarkSearchFunc(b *testing.B) {
	const n = 100000
	r := rand.New(rand.NewPCG(11, 11))
	type item struct {
		scope uint32
		ts    int64
	}
	items := make([]item, n)
	for i := range items {
		items[i] = item{scope: uint32(r.IntN(4)), ts: int64(i)}
	}
	match := func(id uint32) bool { return int(id) < len(items) && items[id].scope == 0 }
	b.Run("predicate", func(b *testing.B) {
		c := corpusOf(b, n)
		timed(b, func(i int) { c.ix.SearchFunc(c.queries[i%len(c.queries)], 10, match) })
	})
	b.Run("filter-built-per-query", func(b *testing.B) {
		c := corpusOf(b, n)
		f := NewFilter(n)
		timed(b, func(i int) {
			f.Reset()
			for id := range uint32(len(items)) {
				if match(id) {
					f.Add(id)
				}
			}
			c.ix.Search(c.queries[i%len(c.queries)], 10, f)
		})
	})
}

// BenchmarkScore scores 100 candidate ids, as hybrid ranking does for
// keyword hits.
func BenchmarkScore(b *testing.B) {
	c := corpusOf(b, 100000)
	r := rand.New(rand.NewPCG(3, 3))
	ids := make([]uint32, 100)
	for i := range ids {
		ids[i] = uint32(r.IntN(100000))
	}
	timed(b, func(i int) { c.ix.Score(c.queries[i%len(c.queries)], ids) })
}

// BenchmarkPut measures writes: new documents into a growing index, and
// replacing documents of a 100k index.
func BenchmarkPut(b *testing.B) {
	g := newClustered(5, 512, 100)
	vecs := make([][]float32, 1024)
	for i := range vecs {
		vecs[i] = g.next()
	}
	b.Run("new", func(b *testing.B) {
		ix := New(512)
		defer reportCPU(b)()
		for i := 0; b.Loop(); i++ {
			if err := ix.Put(uint32(i%(MaxID+1)), vecs[i%len(vecs)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("replace-100k", func(b *testing.B) {
		c := corpusOf(b, 100000)
		defer reportCPU(b)()
		for i := 0; b.Loop(); i++ {
			if err := c.ix.Put(uint32(i*7919%100000), vecs[i%len(vecs)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMemory reports the index's own accounting (Bytes) and the live
// heap measured by the runtime, per document, for 100k documents.
func BenchmarkMemory(b *testing.B) {
	const n = 100000
	g := newClustered(9, 512, 1000)
	vecs := make([][]float32, 4096)
	for i := range vecs {
		vecs[i] = g.next()
	}
	for b.Loop() {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		ix := New(512)
		for id := range uint32(n) {
			mustPut(b, ix, id, vecs[id%uint32(len(vecs))])
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(ix.Bytes())/n, "bytes/doc")
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/n, "heap-bytes/doc")
		runtime.KeepAlive(ix)
	}
}

// BenchmarkKernel times the dot-product kernels alone on 256 rows of 512
// codes that stay in the L2 cache (ns/doc is per row), and on 100k rows
// streamed from memory in the order a search reads them.
func BenchmarkKernel(b *testing.B) {
	const dim = 512
	r := rand.New(rand.NewPCG(1, 2))
	q := make([]int16, dim)
	for i := range q {
		q[i] = int16(r.IntN(1 << 16))
	}
	for name, k := range kernels() {
		for _, rows := range []int{256, 100 * blockSize} {
			b.Run(fmt.Sprintf("%s/rows=%d", name, rows), func(b *testing.B) {
				var blocks [][]int8
				for len(blocks)*blockSize < rows {
					c := make([]int8, min(rows, blockSize)*dim)
					for j := range c {
						c[j] = int8(r.IntN(255) - 127)
					}
					blocks = append(blocks, c)
				}
				ids := allIDs(min(rows, blockSize))
				out := make([]int32, len(ids))
				defer reportCPU(b)()
				for b.Loop() {
					for _, c := range blocks {
						k(q, c, dim, ids, out)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/doc")
			})
		}
	}
}

// BenchmarkAccuracy reports, for each data set, the largest and the root mean
// square difference between the index's scores and exact float cosine over
// every (query, document) pair, and the mean top-10 recall against exact
// float search. Run it with -benchtime 1x; the brute-force reference takes
// about a minute at 100k documents.
func BenchmarkAccuracy(b *testing.B) {
	sets := []struct {
		name string
		docs func() ([][]float32, [][]float32)
	}{
		{"clustered-100k-1000topics", func() ([][]float32, [][]float32) { return clusteredSet(100000, 1000, 100) }},
		{"clustered-100k-100topics", func() ([][]float32, [][]float32) { return clusteredSet(100000, 100, 100) }},
		{"isotropic-100k", func() ([][]float32, [][]float32) {
			r := rand.New(rand.NewPCG(4, 4))
			docs, qs := make([][]float32, 100000), make([][]float32, 100)
			for i := range docs {
				docs[i] = randUnit(r, 512)
			}
			for i := range qs {
				qs[i] = randUnit(r, 512)
			}
			return docs, qs
		}},
		{"hash-embedder-20k", func() ([][]float32, [][]float32) {
			m := embed.NewHash(embed.HashDim)
			return embedAll(b, m, sentences(1, 20000)), embedAll(b, m, sentences(2, 100))
		}},
		{"use-lite-2k", func() ([][]float32, [][]float32) {
			m, err := embed.NewUSELite()
			if err != nil {
				b.Fatal(err)
			}
			return embedAll(b, m, sentences(1, 2000)), embedAll(b, m, sentences(2, 100))
		}},
	}
	for _, s := range sets {
		b.Run(s.name, func(b *testing.B) {
			docs, qs := s.docs()
			for b.Loop() {
				worst, rms, rec := accuracy(b, docs, qs)
				b.ReportMetric(worst, "worst-err")
				b.ReportMetric(rms, "rms-err")
				b.ReportMetric(rec, "recall@10")
			}
		})
	}
}

func clusteredSet(n, topics, nq int) (docs, queries [][]float32) {
	g := newClustered(uint64(n+topics), 512, topics)
	docs, queries = make([][]float32, n), make([][]float32, nq)
	for i := range docs {
		docs[i] = g.next()
	}
	for i := range queries {
		queries[i] = g.next()
	}
	return docs, queries
}

// BenchmarkEncodeCoarse times the 2-bit codes of one 512-long row, which a
// start computes for every vector of its snapshot.
func BenchmarkEncodeCoarse(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	codes := make([]int8, 512)
	for i := range codes {
		codes[i] = int8(r.IntN(255) - 127)
	}
	out := make([]byte, coarseStride(len(codes)))
	for b.Loop() {
		encodeCoarse(codes, out)
	}
}

// BenchmarkCoarseKernel times the coarse kernel (2-bit codes, 512
// dimensions) over one block (in cache) and over 100 blocks (from memory).
func BenchmarkCoarseKernel(b *testing.B) {
	k := asmCoarse()
	if k == nil {
		b.Skip("no coarse assembly kernel on this CPU or build")
	}
	const dim = 512
	stride := coarseStride(dim)
	r := rand.New(rand.NewPCG(1, 2))
	q := make([]int8, 4*stride)
	for i := range q {
		q[i] = int8(r.IntN(256) - 128)
	}
	for _, rows := range []int{blockSize, 100 * blockSize} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			var planes [][]byte
			slab := offheap.NewSlab(rows*stride, nil) // as an index read back holds them
			defer slab.Done()
			for len(planes)*blockSize < rows {
				p := offheap.Take(slab, &planes, blockSize*stride)
				if p == nil {
					p = make([]byte, blockSize*stride)
				}
				for j := range p {
					p[j] = byte(r.Uint32())
				}
				planes = append(planes, p)
			}
			ids := allIDs(blockSize)
			out := make([]int32, len(ids))
			defer reportCPU(b)()
			for b.Loop() {
				for _, p := range planes {
					k(q, p, stride, ids, out)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/doc")
		})
	}
}

// BenchmarkSearchEachStore times a store's pass: two requests in one scan
// (k 5 and k 17 over every document, as two filters), with the coarse pass
// ("default") and without it ("exact").
func BenchmarkSearchEachStore(b *testing.B) {
	const n = 100000
	c := corpusOf(b, n)
	all1, all2 := NewFilter(n), NewFilter(n)
	for id := range uint32(n) {
		all1.Add(id)
		all2.Add(id)
	}
	for _, mode := range []string{"default", "exact"} {
		b.Run(mode, func(b *testing.B) {
			old := c.ix.coarseDots
			defer func() { c.ix.coarseDots = old }()
			if mode == "exact" {
				c.ix.coarseDots = nil
			}
			timed(b, func(i int) {
				c.ix.SearchEach(c.queries[i%len(c.queries)], []Request{{K: 5, Filter: all1}, {K: 17, Filter: all2}})
			})
		})
	}
}

// BenchmarkRerankPages times what the coarse pass's rerank reads: 2,000
// scattered rows (20 per block, ascending) of 100 blocks of int8 codes,
// different rows each time (64 sets: 64 MB, out of cache), with the blocks'
// arrays as mappings of their own ("own") or parts of one slab in huge
// pages ("slab", how an index read back holds them).
func BenchmarkRerankPages(b *testing.B) {
	const dim, nb, sets = 512, 100, 64
	k := New(dim).dots
	r := rand.New(rand.NewPCG(1, 2))
	q := make([]int16, dim)
	for i := range q {
		q[i] = int16(r.IntN(255) - 127)
	}
	idss := make([][]uint32, nb*sets)
	for i := range idss {
		ids := make([]uint32, 20)
		for j := range ids {
			ids[j] = uint32(r.IntN(blockSize))
		}
		slices.Sort(ids)
		idss[i] = ids
	}
	for _, mode := range []string{"own", "slab"} {
		b.Run(mode, func(b *testing.B) {
			ix := New(dim)
			var slab *offheap.Slab
			if mode == "slab" {
				slab = ix.blocksSlab(nb)
				defer slab.Done()
			}
			blocks := make([]*block, nb)
			for i := range blocks {
				blocks[i] = ix.newBlock(slab)
				for j := range blocks[i].codes {
					blocks[i].codes[j] = int8(r.IntN(255) - 127)
				}
			}
			out := make([]int32, 20)
			defer reportCPU(b)()
			it := 0
			for b.Loop() {
				it++
				for i, blk := range blocks {
					k(q, blk.codes, dim, idss[(it%sets)*nb+i], out)
				}
			}
			runtime.KeepAlive(blocks)
		})
	}
}
