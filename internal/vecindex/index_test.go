package vecindex

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/infmem/infmem/internal/embed"
)

func randUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var ss float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		ss += x * x
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(ss))
	}
	return v
}

func allIDs(n int) []uint32 {
	ids := make([]uint32, n)
	for i := range ids {
		ids[i] = uint32(i)
	}
	return ids
}

func mustPut(t testing.TB, ix *Index, id uint32, v []float32) {
	t.Helper()
	if err := ix.Put(id, v); err != nil {
		t.Fatal(err)
	}
}

func TestNewPanicsOnBadDim(t *testing.T) {
	for _, d := range []int{0, -1, MaxDim + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%d) did not panic", d)
				}
			}()
			New(d)
		}()
	}
}

func TestQueryMaxNeverOverflows(t *testing.T) {
	for _, dim := range []int{1, 2, 512, 516, 517, 768, 1024, 4096, MaxDim} {
		q := queryMaxFor(dim)
		if q < 1 || q > math.MaxInt16 {
			t.Fatalf("dim %d: qmax %d out of int16", dim, q)
		}
		if int64(dim)*docMax*int64(q) > math.MaxInt32 {
			t.Errorf("dim %d: qmax %d can overflow", dim, q)
		}
	}
	if q := queryMaxFor(512); q != math.MaxInt16 {
		t.Errorf("dim 512 query codes limited to ±%d", q)
	}
}

// TestQuantizeRoundTrip checks the stored codes: the dequantised vector is
// unit length and, at realistic dimensions, each component is within about
// half a code step (max|x|/127) of the normalised input.
func TestQuantizeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dim := range []int{1, 3, 17, 512, 1000} {
		ix := New(dim)
		for id := range uint32(50) {
			v := randUnit(r, dim)
			scaleBy := float32(math.Exp(r.NormFloat64() * 5)) // not unit length
			in := make([]float32, dim)
			for i := range v {
				in[i] = v[i] * scaleBy
			}
			mustPut(t, ix, id, in)
			got, ok := ix.Get(id)
			if !ok {
				t.Fatalf("Get(%d) missing", id)
			}
			var top, ss float64
			for i, x := range v {
				top = max(top, math.Abs(float64(x)))
				ss += float64(got[i]) * float64(got[i])
			}
			if math.Abs(ss-1) > 1e-5 {
				t.Fatalf("dim %d id %d: dequantised norm² %v", dim, id, ss)
			}
			if c := exactCosine(got, v); c < 1-1e-4 {
				t.Fatalf("dim %d id %d: cosine to the input %v", dim, id, c)
			}
			if dim < 17 {
				continue // renormalising moves few, large components further
			}
			step := top / docMax
			for i := range v {
				if d := math.Abs(float64(got[i]) - float64(v[i])); d > step*0.6 {
					t.Fatalf("dim %d id %d comp %d: got %v, want %v ± %v", dim, id, i, got[i], v[i], step/2)
				}
			}
		}
	}
}

func TestPutRejects(t *testing.T) {
	ix := New(4)
	for name, tc := range map[string]struct {
		id uint32
		v  []float32
	}{
		"short":  {1, []float32{1, 2, 3}},
		"long":   {1, []float32{1, 2, 3, 4, 5}},
		"nan":    {1, []float32{1, float32(math.NaN()), 0, 0}},
		"inf":    {1, []float32{1, float32(math.Inf(-1)), 0, 0}},
		"big id": {MaxID + 1, []float32{1, 0, 0, 0}},
	} {
		if err := ix.Put(tc.id, tc.v); err == nil {
			t.Errorf("%s: Put succeeded", name)
		} else if !strings.HasPrefix(err.Error(), "vecindex: put") {
			t.Errorf("%s: error %q does not say what failed", name, err)
		}
	}
	if ix.Len() != 0 || ix.Has(1) {
		t.Error("a rejected Put changed the index")
	}
	mustPut(t, ix, MaxID, []float32{0, 0, 1, 0})
	if !ix.Has(MaxID) || ix.Len() != 1 {
		t.Error("MaxID not stored")
	}
	if h := ix.Search([]float32{0, 0, 1, 0}, 1, nil); len(h) != 1 || h[0].ID != MaxID {
		t.Errorf("search for MaxID: %v", h)
	}
}

func TestPutReplaceRemove(t *testing.T) {
	ix := New(8)
	a := []float32{1, 0, 0, 0, 0, 0, 0, 0}
	b := []float32{0, 1, 0, 0, 0, 0, 0, 0}
	mustPut(t, ix, 5, a)
	mustPut(t, ix, 2000, a) // second block
	if ix.Len() != 2 || !ix.Has(5) || !ix.Has(2000) || ix.Has(6) || ix.Has(1<<20) {
		t.Fatalf("after two puts: Len %d", ix.Len())
	}
	mustPut(t, ix, 5, b)
	if ix.Len() != 2 {
		t.Fatalf("replace changed Len to %d", ix.Len())
	}
	if s := ix.Score(a, []uint32{5, 2000, 7}); s[0] != 0 || math.Abs(float64(s[1])-1) > 1e-6 || s[2] != 0 {
		t.Errorf("scores after replace: %v", s)
	}
	ix.Remove(5)
	ix.Remove(5)
	ix.Remove(123456)
	if ix.Len() != 1 || ix.Has(5) {
		t.Fatalf("after remove: Len %d Has(5) %v", ix.Len(), ix.Has(5))
	}
	if _, ok := ix.Get(5); ok {
		t.Error("Get of a removed id succeeded")
	}
	if h := ix.Search(b, 10, nil); len(h) != 1 || h[0].ID != 2000 {
		t.Errorf("search after remove: %v", h)
	}
	ix.Remove(2000)
	if ix.Len() != 0 || len(ix.blocks) != 0 {
		t.Errorf("empty index keeps %d blocks", len(ix.blocks))
	}
	if h := ix.Search(b, 10, nil); h != nil {
		t.Errorf("search of an empty index: %v", h)
	}
	mustPut(t, ix, 5, a) // the freed block comes back
	if h := ix.Search(a, 10, nil); len(h) != 1 || h[0].ID != 5 {
		t.Errorf("search after re-put: %v", h)
	}
}

func TestZeroVectors(t *testing.T) {
	ix := New(3)
	mustPut(t, ix, 0, []float32{0, 0, 0})
	mustPut(t, ix, 1, []float32{0, 3, 4})
	if !ix.Has(0) {
		t.Fatal("zero vector not stored")
	}
	if v, _ := ix.Get(0); !slices.Equal(v, []float32{0, 0, 0}) {
		t.Errorf("Get zero vector: %v", v)
	}
	h := ix.Search([]float32{0, 1, 0}, 10, nil)
	if len(h) != 2 || h[0].ID != 1 || math.Abs(float64(h[0].Score)-0.6) > 0.01 || h[1].ID != 0 || h[1].Score != 0 {
		t.Errorf("search with a stored zero vector: %v", h)
	}
	if h := ix.Search([]float32{0, 0, 0}, 10, nil); h != nil {
		t.Errorf("zero query matched %v", h)
	}
	if h := ix.Search([]float32{float32(math.NaN()), 0, 0}, 10, nil); h != nil {
		t.Errorf("NaN query matched %v", h)
	}
	if s := ix.Score([]float32{0, 0, 0}, []uint32{0, 1}); !slices.Equal(s, []float32{0, 0}) {
		t.Errorf("zero query scores %v", s)
	}
}

func TestQueryLengthPanics(t *testing.T) {
	ix := New(3)
	for name, f := range map[string]func(){
		"Search":     func() { ix.Search([]float32{1, 2}, 1, nil) },
		"SearchFunc": func() { ix.SearchFunc([]float32{1, 2}, 1, nil) },
		"Score":      func() { ix.Score([]float32{1, 2, 3, 4}, nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s with a wrong-length query did not panic", name)
				}
			}()
			f()
		}()
	}
}

// sortedScores is the reference for Search: every allowed document scored by
// Score, fully sorted.
func sortedScores(ix *Index, q []float32, ids []uint32, allow func(uint32) bool) []Hit {
	s := ix.Score(q, ids)
	var all []Hit
	for i, id := range ids {
		if ix.Has(id) && (allow == nil || allow(id)) {
			all = append(all, Hit{id, s[i]})
		}
	}
	slices.SortFunc(all, compareHits)
	return all
}

// TestSearchMatchesFullSort checks the top-k selection, the filters and the
// parallel split against scoring every document and sorting, with many exact
// ties (duplicate vectors) and holes (removed ids, absent blocks).
func TestSearchMatchesFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const dim, n = 40, 5000
	ix := New(dim)
	pool := make([][]float32, 50) // few distinct vectors: many ties
	for i := range pool {
		pool[i] = randUnit(r, dim)
	}
	for id := range uint32(n) {
		if id/blockSize == 2 {
			continue // an absent block
		}
		mustPut(t, ix, id, pool[r.IntN(len(pool))])
	}
	for id := uint32(0); id < n; id += 7 {
		ix.Remove(id)
	}
	ids := allIDs(n + 10)
	allow := func(id uint32) bool { return id%4 == 1 || id > 4500 }
	f := NewFilter(0)
	for id := range uint32(n + 100) {
		if allow(id) {
			f.Add(id)
		}
	}
	narrow, other, empty := NewFilter(0), NewFilter(0), NewFilter(0)
	for id := range uint32(n) {
		if id%4 == 1 && id%3 == 0 { // within f
			narrow.Add(id)
		}
		if id%5 == 2 { // partly outside f
			other.Add(id)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, par := range []struct {
		name string
		min  int
	}{{"serial", 1 << 30}, {"parallel", 1}} {
		ix.parallelMin = par.min
		for qi := range 20 {
			q := pool[qi]
			if qi%2 == 1 {
				q = randUnit(r, dim)
			}
			for _, k := range []int{1, 3, 10, 100, 0, n * 2} {
				want := sortedScores(ix, q, ids, nil)
				wantF := sortedScores(ix, q, ids, allow)
				if k > 0 {
					want, wantF = want[:min(k, len(want))], wantF[:min(k, len(wantF))]
				}
				if got := ix.Search(q, k, nil); !slices.Equal(got, want) {
					t.Fatalf("%s k=%d unfiltered: got %v…, want %v…", par.name, k, got[:min(5, len(got))], want[:min(5, len(want))])
				}
				if got := ix.Search(q, k, f); !slices.Equal(got, wantF) {
					t.Fatalf("%s k=%d filter: got %v…, want %v…", par.name, k, got[:min(5, len(got))], wantF[:min(5, len(wantF))])
				}
				if got := ix.SearchFunc(q, k, allow); !slices.Equal(got, wantF) {
					t.Fatalf("%s k=%d predicate: got %v…, want %v…", par.name, k, got[:min(5, len(got))], wantF[:min(5, len(wantF))])
				}
				// One scan for several searches gives each what Search gives.
				for ri, reqs := range [][]Request{
					{{k, f}, {3, narrow}},
					{{3, narrow}, {k, f}, {k + 1, empty}, {5, nil}},
					{{k, narrow}, {1, other}},
				} {
					got := ix.SearchEach(q, reqs)
					for j, r := range reqs {
						if want := ix.Search(q, r.K, r.Filter); !slices.Equal(got[j], want) {
							t.Fatalf("%s k=%d: SearchEach set %d request %d: got %v…, want %v…", par.name, k, ri, j, got[j][:min(5, len(got[j]))], want[:min(5, len(want))])
						}
					}
				}
			}
		}
	}
	if got := ix.Search(pool[0], 10, NewFilter(10)); got != nil {
		t.Errorf("empty filter matched %v", got)
	}
	if got := ix.SearchFunc(pool[0], 10, nil); !slices.Equal(got, ix.Search(pool[0], 10, nil)) {
		t.Errorf("SearchFunc with nil predicate differs from Search")
	}
}

func TestTiesByID(t *testing.T) {
	ix := New(16)
	r := rand.New(rand.NewPCG(9, 9))
	v := randUnit(r, 16)
	for _, id := range []uint32{3000, 7, 1025, 8, 0} {
		mustPut(t, ix, id, v)
	}
	h := ix.Search(v, 4, nil)
	if ids := []uint32{h[0].ID, h[1].ID, h[2].ID, h[3].ID}; !slices.Equal(ids, []uint32{0, 7, 8, 1025}) {
		t.Errorf("tied hits in order %v", ids)
	}
	for _, x := range h {
		if x.Score != h[0].Score {
			t.Errorf("identical vectors scored differently: %v", h)
		}
	}
}

func TestSearchFuncMayCallBack(t *testing.T) {
	ix := New(2)
	mustPut(t, ix, 1, []float32{1, 0})
	mustPut(t, ix, 2, []float32{0, 1})
	calls := 0
	h := ix.SearchFunc([]float32{1, 1}, 5, func(id uint32) bool {
		calls++
		return ix.Has(id) && id == 2 // re-enters the index
	})
	if len(h) != 1 || h[0].ID != 2 || calls != 2 {
		t.Errorf("hits %v after %d calls", h, calls)
	}
}

func TestFilter(t *testing.T) {
	var f Filter
	for _, id := range []uint32{0, 63, 64, 1000, 70000} {
		f.Add(id)
	}
	f.Remove(63)
	f.Remove(1 << 30)
	for _, id := range []uint32{0, 64, 1000, 70000} {
		if !f.Has(id) {
			t.Errorf("Has(%d) false", id)
		}
	}
	for _, id := range []uint32{1, 63, 65, 999, 1 << 30} {
		if f.Has(id) {
			t.Errorf("Has(%d) true", id)
		}
	}
	if f.Len() != 4 {
		t.Errorf("Len %d", f.Len())
	}
	f.Reset()
	if f.Len() != 0 || f.Has(0) {
		t.Error("Reset left ids")
	}
	f.Add(5)
	if f.Len() != 1 || !f.Has(5) || f.Has(64) {
		t.Error("reuse after Reset")
	}
	g := NewFilter(100)
	g.Add(99)
	g.Add(5000)
	if !g.Has(99) || !g.Has(5000) || g.Len() != 2 {
		t.Error("NewFilter growth")
	}
}

func TestBytesPerDoc(t *testing.T) {
	const dim, n = 512, 10 * blockSize
	ix := New(dim)
	r := rand.New(rand.NewPCG(1, 1))
	v := randUnit(r, dim)
	for id := range uint32(n) {
		mustPut(t, ix, id, v)
	}
	per := float64(ix.Bytes()) / n
	t.Logf("%.1f bytes per document at dimension %d", per, dim)
	// Codes, refinement bits, two scales: 512 + 64 + 8, plus the live bit
	// and the block headers; where the coarse pass runs, its 2-bit codes
	// and weight: 128 + 4.
	budget := 600.0
	if ix.coarseDots != nil {
		budget += 132
	}
	if per > budget {
		t.Errorf("%.1f bytes per document, budget %.0f", per, budget)
	}
}

// accuracy compares the index with exact float search over docs, for the
// queries given: the largest score error over every (query, document) pair,
// its root mean square, and the mean recall of the top 10.
func accuracy(t testing.TB, docs, queries [][]float32) (worst, rms, rec float64) {
	t.Helper()
	ix := New(len(docs[0]))
	for i, d := range docs {
		mustPut(t, ix, uint32(i), d)
	}
	ids := allIDs(len(docs))
	var ss float64
	for _, q := range queries {
		for i, s := range ix.Score(q, ids) {
			e := math.Abs(float64(s) - exactCosine(q, docs[i]))
			worst = max(worst, e)
			ss += e * e
		}
		hits := ix.Search(q, 10, nil)
		// The two-phase search must return exactly the top 10 by the
		// scores Score reports.
		if want := sortedScores(ix, q, ids, nil)[:min(10, len(ids))]; !slices.Equal(hits, want) {
			t.Fatalf("Search %v, top 10 by Score %v", hits, want)
		}
		rec += recall(hits, exactTopK(docs, q, 10, nil), docs, q)
	}
	return worst, math.Sqrt(ss / float64(len(queries)*len(docs))), rec / float64(len(queries))
}

func checkAccuracy(t *testing.T, docs, queries [][]float32, minRecall float64) {
	t.Helper()
	worst, rms, rec := accuracy(t, docs, queries)
	t.Logf("%d docs, %d queries: worst score error %.5f, rms %.5f, top-10 recall %.4f", len(docs), len(queries), worst, rms, rec)
	if worst > 0.01 {
		t.Errorf("worst score error %.5f > 0.01", worst)
	}
	if rec < minRecall-1e-9 {
		t.Errorf("top-10 recall %.4f < %v", rec, minRecall)
	}
}

func TestAccuracyClustered(t *testing.T) {
	skipUnderRace(t)
	n, nq := 20000, 200
	if testing.Short() {
		n, nq = 5000, 50
	}
	g := newClustered(1, 512, n/100)
	docs := make([][]float32, n)
	for i := range docs {
		docs[i] = g.next()
	}
	queries := make([][]float32, nq)
	for i := range queries {
		queries[i] = g.next()
	}
	checkAccuracy(t, docs, queries, 0.99)
}

// TestAccuracyIsotropic is the adversarial case rather than a realistic one:
// uniformly random vectors and queries have no neighbourhood structure, so a
// query's top ten scores lie within about 0.002 of each other and of the
// next ones, and any quantiser reorders them. Sentence embeddings are not
// like this (TestAccuracyUSELite); the bar here is lower and the figure is
// reported in BENCHMARKS.md.
func TestAccuracyIsotropic(t *testing.T) {
	skipUnderRace(t)
	r := rand.New(rand.NewPCG(2, 2))
	docs := make([][]float32, 5000)
	for i := range docs {
		docs[i] = randUnit(r, 512)
	}
	queries := make([][]float32, 50)
	for i := range queries {
		queries[i] = randUnit(r, 512)
	}
	checkAccuracy(t, docs, queries, 0.98)
}

// skipUnderRace skips the accuracy tests under the race detector, which
// slows their brute-force reference a hundredfold; they run one search at a
// time, and TestSearchMatchesFullSort covers the parallel scan under -race.
func skipUnderRace(t *testing.T) {
	if raceEnabled {
		t.Skip("single-goroutine accuracy test; slow under the race detector")
	}
}

func embedAll(t testing.TB, m embed.Embedder, texts []string) [][]float32 {
	t.Helper()
	vs, err := m.EmbedBatch(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func sentences(seed uint64, n int) []string {
	g := &sentenceGen{rng: rand.New(rand.NewPCG(seed, 3))}
	out := make([]string, n)
	for i := range out {
		out[i] = g.next()
	}
	return out
}

func TestAccuracyHashEmbedder(t *testing.T) {
	skipUnderRace(t)
	m := embed.NewHash(embed.HashDim)
	checkAccuracy(t, embedAll(t, m, sentences(1, 5000)), embedAll(t, m, sentences(2, 100)), 0.99)
}

func TestAccuracyUSELite(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("embedding 1,100 sentences with USE-lite takes seconds")
	}
	m, err := embed.NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	checkAccuracy(t, embedAll(t, m, sentences(1, 1000)), embedAll(t, m, sentences(2, 100)), 0.99)
}

// TestConcurrentReadersWriters runs writers (put, replace, remove) against
// searches, scores and reads; run it with -race. Each writer owns a range of
// ids, so the final state is known and checked.
func TestConcurrentReadersWriters(t *testing.T) {
	t.Run("exact", func(t *testing.T) { concurrentReadersWriters(t, New(64)) })
	// The coarse pass from 100 candidates, keeping 20.
	t.Run("coarse", func(t *testing.T) { concurrentReadersWriters(t, withCoarse(64, 100, 20)) })
}

func concurrentReadersWriters(t *testing.T, ix *Index) {
	const dim, writers, perWriter, rounds = 64, 2, 600, 3
	ix.parallelMin, ix.coarseParallelMin = 100, 100 // exercise the parallel scan too
	r := rand.New(rand.NewPCG(7, 7))
	vecs := make([][]float32, 64)
	for i := range vecs {
		vecs[i] = randUnit(r, dim)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range rounds {
				for i := range perWriter {
					id := uint32(w*perWriter + i)
					if err := ix.Put(id, vecs[(i+round)%len(vecs)]); err != nil {
						t.Error(err)
						return
					}
					if i%5 == 0 {
						ix.Remove(id)
					}
				}
			}
		}()
	}
	var readers sync.WaitGroup
	for rd := range 3 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			f := NewFilter(0)
			for id := uint32(rd); id < writers*perWriter; id += 3 {
				f.Add(id)
			}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				q := vecs[i%len(vecs)]
				for _, h := range ix.Search(q, 10, f) {
					if !f.Has(h.ID) {
						t.Errorf("hit %d outside the filter", h.ID)
					}
				}
				ix.SearchFunc(q, 5, func(id uint32) bool { return id%2 == 0 })
				ix.Score(q, []uint32{1, 2, 3, 5000})
				ix.Get(uint32(i % (writers * perWriter)))
				ix.Len()
				ix.Bytes()
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	if want := writers * perWriter * 4 / 5; ix.Len() != want {
		t.Errorf("Len %d, want %d", ix.Len(), want)
	}
	for w := range writers {
		for i := range perWriter {
			id := uint32(w*perWriter + i)
			v, ok := ix.Get(id)
			if ok != (i%5 != 0) {
				t.Fatalf("id %d present %v", id, ok)
			}
			if ok && exactCosine(v, vecs[(i+rounds-1)%len(vecs)]) < 0.999 {
				t.Fatalf("id %d holds a stale vector", id)
			}
		}
	}
}
