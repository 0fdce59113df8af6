package embed

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestShareEachChunkOnce: do runs every chunk exactly once and returns only
// after all have run, with one and with several workers, from several
// callers at once (the workers serve one caller at a time; the others run
// alone).
func TestShareEachChunkOnce(t *testing.T) {
	for _, workers := range []int{1, 3} {
		s := newSharer(workers)
		var wg sync.WaitGroup
		for c := range 3 {
			wg.Go(func() {
				for it := range 300 {
					n := 1 + (it*7+c)%40
					hits := make([]atomic.Int32, n)
					s.do(n, func(i int) {
						if it%5 == 0 {
							time.Sleep(time.Microsecond)
						}
						hits[i].Add(1)
					})
					for i := range hits {
						if h := hits[i].Load(); h != 1 {
							t.Errorf("workers=%d n=%d: chunk %d ran %d times", workers, n, i, h)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		t.Logf("workers=%d: the workers ran %d chunks", workers, s.workerChunks.Load())
	}
}

// TestShareWorkerNeverRuns: a worker that takes a product and then is not
// scheduled (here: holds it until released) does not hold up the caller,
// which runs every chunk itself; the worker, when it runs at last, finds
// nothing left and touches nothing.
func TestShareWorkerNeverRuns(t *testing.T) {
	w := &shareWorker{wake: make(chan *shareJob)}
	w.state.Store(workerPolling) // the worker goroutine is not running
	s := &sharer{ws: []*shareWorker{w}}
	const n = 16
	var ran [n]atomic.Int32
	s.do(n, func(i int) { ran[i].Add(1) })
	for i := range ran {
		if r := ran[i].Load(); r != 1 {
			t.Fatalf("chunk %d ran %d times", i, r)
		}
	}
	j := w.slot.Load()
	if j == nil || w.state.Load() != workerBusy {
		t.Fatal("the product was not handed to the polling worker")
	}
	// The worker runs at last: nothing is left for it.
	j.run(true)
	if c := s.workerChunks.Load(); c != 0 {
		t.Fatalf("the late worker ran %d chunks after the caller had finished", c)
	}
	// A parked worker that never receives is not posted to.
	w2 := &shareWorker{wake: make(chan *shareJob)}
	w2.state.Store(workerParked)
	s2 := &sharer{ws: []*shareWorker{w2}}
	var ran2 [n]atomic.Int32
	s2.do(n, func(i int) { ran2[i].Add(1) })
	for i := range ran2 {
		if r := ran2[i].Load(); r != 1 {
			t.Fatalf("parked: chunk %d ran %d times", i, r)
		}
	}
}

// TestVDPShareSameBits: the model with its products shared with one or
// three workers embeds every test text to the same bits as on one
// goroutine, alone and in batches (each dot product keeps its order).
func TestVDPShareSameBits(t *testing.T) {
	if !vdpUsable() {
		t.Skip("no AVX512-BF16 on this CPU or build")
	}
	newModel := func(s *sharer) *USELite {
		m, err := newUSELiteBF16(useLiteBlob, bestKernel(), asmF16Kernel(), asmF16Kernel12(), false, true)
		if err != nil {
			t.Fatal(err)
		}
		m.setShare(s)
		return m
	}
	one := newModel(nil)
	if one.layers[1].ffn1.share != nil {
		t.Fatal("setShare(nil) left a sharer")
	}
	texts := []string{benchQuery, "Where is the config file?", "remember that my favourite colour is blue", "a",
		strings.Repeat("the Apollo launch moved to June 5 after the review and Dana will tell the client ", 12)}
	for _, c := range loadReference(t) {
		texts = append(texts, c.Text)
	}
	ctx := context.Background()
	want := make([][]float32, len(texts))
	for i, text := range texts {
		v, err := one.Embed(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = v
	}
	same := func(label string, got, want []float32) {
		t.Helper()
		for j := range want {
			if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
				t.Fatalf("%s: dimension %d: %v shared, %v on one goroutine", label, j, got[j], want[j])
			}
		}
	}
	rounds := 3
	if raceEnabled {
		rounds = 1
	}
	for _, workers := range []int{1, 3} {
		s := newSharer(workers)
		m := newModel(s)
		if m.layers[1].ffn1.share != s || m.tanhW.share != s {
			t.Fatal("the model's matrices do not use the sharer")
		}
		for range rounds {
			for i, text := range texts {
				v, err := m.Embed(ctx, text)
				if err != nil {
					t.Fatal(err)
				}
				same(fmt.Sprintf("workers=%d text %d", workers, i), v, want[i])
			}
			vs, err := m.EmbedBatch(ctx, texts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range texts {
				same(fmt.Sprintf("workers=%d batch text %d", workers, i), vs[i], want[i])
			}
		}
		// On a loaded machine the workers may not have had a core yet (or
		// the sharer cooled down): go on embedding for up to 20 s.
		for deadline := time.Now().Add(20 * time.Second); s.workerChunks.Load() == 0 && runtime.GOMAXPROCS(0) > 1 && time.Now().Before(deadline); {
			i := len(texts) - 1
			v, err := m.Embed(ctx, texts[i])
			if err != nil {
				t.Fatal(err)
			}
			same(fmt.Sprintf("workers=%d text %d", workers, i), v, want[i])
		}
		c := s.workerChunks.Load()
		t.Logf("workers=%d: the workers ran %d chunks", workers, c)
		if c == 0 && runtime.GOMAXPROCS(0) > 1 {
			t.Errorf("workers=%d: no chunk ran on a worker in 20 s of embedding: nothing was shared", workers)
		}
	}
}

// TestCallerOffCore: a pass cools the sharer down only when its thread
// waited for its core more than shareOffCore and more than half the pass,
// so a quiet daemon's long pass that waited a millisecond or two for the
// process's own database write keeps sharing, and a loaded machine's short
// or long pass that mostly waited does not.
func TestCallerOffCore(t *testing.T) {
	ms := func(f float64) int64 { return int64(f * float64(time.Millisecond)) }
	for _, tc := range []struct {
		delay, wall float64 // ms
		want        bool
	}{
		{0, 0.6, false},
		{0.9, 1.5, false}, // most of a query's pass, but under shareOffCore
		{1.2, 1.9, true},  // a query's pass on a loaded machine
		{1.5, 4.5, false}, // a stored text's pass beside the database write
		{2.2, 4.6, false}, // ... and the collector
		{3.5, 6.0, true},  // a stored text's pass on a loaded machine
		{1.01, 2.0, true}, // just over both bounds
		{1.0, 1.9, false}, // at shareOffCore exactly
		{2.0, 4.0, false}, // exactly half the pass
	} {
		if got := callerOffCore(ms(tc.delay), ms(tc.wall)); got != tc.want {
			t.Errorf("waited %.2f ms of a %.2f ms pass: off core %v, want %v", tc.delay, tc.wall, got, tc.want)
		}
	}
}

// TestVDPSharedByDefault: NewUSELite's VDPBF16PS model shares its
// products when there is a second core.
func TestVDPSharedByDefault(t *testing.T) {
	if !vdpUsable() || amxUsable() || bf16Off() {
		t.Skip("not the VDPBF16PS model on this CPU")
	}
	m, err := NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	want := runtime.GOMAXPROCS(0) > 1
	for _, w := range m.matrices() {
		if (w.share != nil) != want {
			t.Fatalf("a %dx%d matrix: sharer %v with GOMAXPROCS %d", w.k, w.n, w.share != nil, runtime.GOMAXPROCS(0))
		}
	}
}

// shareBenchModel is the bf16 model and a sharer with one worker for the
// sharing benchmarks (skipped without AVX512-BF16).
func shareBenchModel(b *testing.B) (*USELite, *sharer) {
	if !vdpUsable() {
		b.Skip("no AVX512-BF16 on this CPU or build")
	}
	m, err := newUSELiteBF16(useLiteBlob, bestKernel(), asmF16Kernel(), asmF16Kernel12(), false, true)
	if err != nil {
		b.Fatal(err)
	}
	return m, newSharer(1)
}

// BenchmarkEmbedShare embeds texts of several lengths with the products
// on one goroutine (share=off) and shared with one worker (share=on),
// reporting the latency percentiles:
//
//	go test -run '^$' -bench EmbedShare -benchtime 2s ./internal/embed
func BenchmarkEmbedShare(b *testing.B) {
	m, s := shareBenchModel(b)
	ctx := context.Background()
	for _, words := range []int{2, 6, 12, 25, 45, 90} {
		text := strings.Repeat("the quarterly budget review moved to Thursday ", 1+words/7)
		text = strings.Join(strings.Fields(text)[:words], " ")
		n := len(m.Tokenize(text))
		for _, on := range []bool{false, true} {
			name := fmt.Sprintf("tokens=%d/share=off", n)
			if on {
				name = fmt.Sprintf("tokens=%d/share=on", n)
				m.setShare(s)
			} else {
				m.setShare(nil)
			}
			b.Run(name, func(b *testing.B) {
				c0, w0, k0 := s.workerChunks.Load(), s.waitNanos.Load(), s.cools[0].Load()+s.cools[1].Load()+s.cools[2].Load()
				lat := make([]time.Duration, 0, b.N)
				for b.Loop() {
					t0 := time.Now()
					if _, err := m.Embed(ctx, text); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
				}
				reportPercentiles(b, lat)
				b.ReportMetric(float64(s.workerChunks.Load()-c0)/float64(b.N), "worker-chunks/op")
				b.ReportMetric(float64(s.waitNanos.Load()-w0)/1e3/float64(b.N), "wait-us/op")
				b.ReportMetric(float64(s.cools[0].Load()+s.cools[1].Load()+s.cools[2].Load()-k0)/float64(b.N), "cools/op")
			})
		}
	}
}

// BenchmarkEmbedShareAB alternates the products on one goroutine and
// shared, text by text, so both see the same load, and reports each one's
// latency percentiles (p50-off-ms, p50-on-ms, ...):
//
//	go test -run '^$' -bench EmbedShareAB -benchtime 400x ./internal/embed
func BenchmarkEmbedShareAB(b *testing.B) {
	m, s := shareBenchModel(b)
	ctx := context.Background()
	for _, words := range []int{12, 45, 90} {
		text := strings.Repeat("the quarterly budget review moved to Thursday ", 1+words/7)
		text = strings.Join(strings.Fields(text)[:words], " ")
		b.Run(fmt.Sprintf("tokens=%d", len(m.Tokenize(text))), func(b *testing.B) {
			var lat [2][]time.Duration
			i := 0
			var k0 [3]int64
			for c := range k0 {
				k0[c] = s.cools[c].Load()
			}
			for b.Loop() {
				on := i % 2
				if on == 1 {
					m.setShare(s)
				} else {
					m.setShare(nil)
				}
				t0 := time.Now()
				if _, err := m.Embed(ctx, text); err != nil {
					b.Fatal(err)
				}
				lat[on] = append(lat[on], time.Since(t0))
				i++
			}
			for on, name := range []string{"off", "on"} {
				l := lat[on]
				if len(l) == 0 {
					continue
				}
				slices.Sort(l)
				b.ReportMetric(float64(l[len(l)/2].Microseconds())/1000, "p50-"+name+"-ms")
				b.ReportMetric(float64(l[len(l)*9/10].Microseconds())/1000, "p90-"+name+"-ms")
			}
			for c, name := range []string{"held", "offcore", "caller"} {
				b.ReportMetric(float64(s.cools[c].Load()-k0[c]), "cools-"+name)
			}
		})
	}
}

// TestShareExpect: expect wakes a parked worker, which polls for the
// announced product and parks again when none comes; a cooling sharer
// wakes nothing; products shared after hints still run each chunk once.
func TestShareExpect(t *testing.T) {
	var nilSharer *sharer
	nilSharer.expect() // no workers: nothing to do
	s := newSharer(1)
	w := s.ws[0]
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(100 * time.Microsecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("the worker to park", func() bool { return w.state.Load() == workerParked })
	// The worker marks itself parked just before it blocks on its wake
	// channel; a hint sent in between finds no receiver and is dropped (a
	// hint only, by design). On a busy machine the worker can sit in that
	// gap for a while (CI, 2026-11-29), so the hint is repeated until one
	// is taken: an expect that never wakes a parked worker still fails.
	waitFor("the hint to wake the worker", func() bool {
		if s.hinted.Load() == 0 {
			s.expect()
		}
		return s.hinted.Load() == 1
	})
	// No product comes: it parks again after about shareExpect.
	waitFor("the worker to park again", func() bool { return w.state.Load() == workerParked })

	s.coolUntil.Store(shareNow() + int64(time.Hour))
	s.expect()
	time.Sleep(20 * time.Millisecond)
	if h := s.hinted.Load(); h != 1 {
		t.Fatalf("a cooling sharer woke its worker (%d hints taken)", h)
	}
	s.coolUntil.Store(0)

	for it := range 200 {
		s.expect()
		if it%3 == 0 {
			time.Sleep(time.Duration(it%7) * 100 * time.Microsecond)
		}
		n := 2 + it%30
		hits := make([]atomic.Int32, n)
		s.do(n, func(i int) { hits[i].Add(1) })
		for i := range hits {
			if h := hits[i].Load(); h != 1 {
				t.Fatalf("n=%d: chunk %d ran %d times", n, i, h)
			}
		}
	}
	t.Logf("hints taken %d, chunks on the worker %d", s.hinted.Load(), s.workerChunks.Load())
}
