package vecindex

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/infmem/infmem/internal/embed"
)

// TestCoarseLayout checks encodeCoarse's layout and levels against a plain
// reading of them: a one-hot query on dimension i makes the kernel return
// that dimension's code, which must be the quantiser's level of codes[i].
func TestCoarseLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{1, 63, 256, 300, 512} {
		codes := make([]int8, dim)
		for i := range codes {
			codes[i] = int8(r.IntN(255) - 127)
		}
		stride := coarseStride(dim)
		plane := make([]byte, stride)
		scale := encodeCoarse(codes, plane)
		var ss float64
		for _, c := range codes {
			ss += float64(c) * float64(c)
		}
		sigma := math.Sqrt(ss / float64(dim))
		if d := float64(scale) - 0.5*sigma; d > 1e-3 || d < -1e-3 {
			t.Fatalf("dim %d: scale %v, want σ/2 = %v", dim, scale, 0.5*sigma)
		}
		q := make([]int8, 4*stride)
		out := make([]int32, 1)
		for i, c := range codes {
			clear(q)
			q[i/256*256+i%256] = 1
			coarseDotsGo(q, plane, stride, []uint32{0}, out)
			x := float64(c)
			want := int32(3)
			switch {
			case x < -0.98*sigma:
				want = 0
			case x < 0:
				want = 1
			case x < 0.98*sigma:
				want = 2
			}
			if out[0] != want {
				t.Fatalf("dim %d, component %d = %d (σ %.1f): code %d, want %d", dim, i, c, sigma, out[0], want)
			}
		}
	}
	zero := make([]byte, coarseStride(8))
	if s := encodeCoarse(make([]int8, 8), zero); s != 0 || !bytes.Equal(zero, make([]byte, len(zero))) {
		t.Fatalf("zero row: scale %v, codes %v", s, zero)
	}
}

// TestCoarseKernels checks every coarse kernel this CPU runs against the
// portable one, on random codes, queries of full range, and scattered ids.
func TestCoarseKernels(t *testing.T) {
	k := asmCoarse()
	if k == nil {
		t.Skip("no coarse assembly kernel on this CPU or build")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{1, 256, 300, 512, 1024} {
		stride := coarseStride(dim)
		const rows = 300
		plane := make([]byte, rows*stride)
		for i := range plane {
			plane[i] = byte(r.Uint32())
		}
		q := make([]int8, 4*stride)
		for i := range q {
			q[i] = int8(r.IntN(256) - 128)
		}
		for _, m := range []int{0, 1, 3, 4, 5, 17, rows} {
			ids := make([]uint32, m)
			for j := range ids {
				ids[j] = uint32(r.IntN(rows))
			}
			want, got := make([]int32, m), make([]int32, m)
			coarseDotsGo(q, plane, stride, ids, want)
			k(q, plane, stride, ids, got)
			if !slices.Equal(got, want) {
				t.Fatalf("dim %d, %d ids: assembly %v, Go %v", dim, m, got, want)
			}
		}
	}
}

// withCoarse returns an empty index whose searches take the coarse pass from
// min candidates, keeping keep (and 2·k at least), with the portable kernel
// where the CPU has no assembly one.
func withCoarse(dim, min, keep int) *Index {
	ix := New(dim)
	if ix.coarseDots == nil {
		ix.coarseDots = coarseDotsGo
	}
	ix.coarseMin, ix.coarseKeep, ix.coarsePerK = min, keep, 2
	return ix
}

// TestCoarseSearch: with the coarse pass, USE-lite sentence vectors give the
// exact top 10 and filtered top 5 (the same hits and scores as an exact
// index) for nearly every query while keeping 60 of 3,000 documents, after
// replacements and removals, and over a persisted copy (whose coarse codes
// are rebuilt on reading). Several requests in one scan answer what each
// would alone, or, over one set, share a selection as exact; k above
// coarseMaxK stays exact.
func TestCoarseSearch(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("embedding 3,100 sentences with USE-lite takes seconds")
	}
	m, err := embed.NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	docs := embedAll(t, m, sentences(11, 3000))
	queries := embedAll(t, m, sentences(12, 100))
	exact, coarse := New(m.Dim()), withCoarse(m.Dim(), 1000, 60)
	exact.coarseDots = nil
	for i, v := range docs {
		mustPut(t, exact, uint32(i), v)
		mustPut(t, coarse, uint32(i), v)
	}
	for i := 0; i < len(docs); i += 7 { // replace some, remove others
		if i%2 == 0 {
			exact.Remove(uint32(i))
			coarse.Remove(uint32(i))
		} else {
			mustPut(t, exact, uint32(i), docs[(i*31)%len(docs)])
			mustPut(t, coarse, uint32(i), docs[(i*31)%len(docs)])
		}
	}
	var buf bytes.Buffer
	if _, err := coarse.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	read, err := Read(&buf, m.Dim())
	if err != nil {
		t.Fatal(err)
	}
	read.coarseDots, read.coarseMin, read.coarseKeep, read.coarsePerK = coarse.coarseDots, coarse.coarseMin, coarse.coarseKeep, coarse.coarsePerK
	words := make([]uint64, (len(docs)+63)/64)
	for i := range len(docs) {
		if i%3 != 0 {
			words[i/64] |= 1 << (i % 64)
		}
	}
	half, halfCopy := FilterOf(words), FilterOf(slices.Clone(words))
	smallSet := NewFilter(len(docs)) // below coarseMin (1,000)
	for i := 0; i < len(docs); i += 4 {
		smallSet.Add(uint32(i))
	}
	indexes := map[string]*Index{"coarse": coarse, "read": read}
	if asmCoarse() == nil {
		// Read builds the coarse codes only where New gives a kernel.
		delete(indexes, "read")
	}
	for name, ix := range indexes {
		same, sameSet := 0, 0
		for _, q := range queries {
			if slices.Equal(ix.Search(q, 10, nil), exact.Search(q, 10, nil)) && slices.Equal(ix.Search(q, 5, half), exact.Search(q, 5, half)) {
				same++
			}
			// Several requests over different sets in one scan: each
			// answers what it would alone (its own selection, scored
			// once for all).
			reqs := []Request{{K: 10}, {K: 5, Filter: half}}
			got := ix.SearchEach(q, reqs)
			for i, r := range reqs {
				if alone := ix.Search(q, r.K, r.Filter); !slices.Equal(got[i], alone) {
					t.Fatalf("%s: request %d of %v: %v, alone %v", name, i, reqs, got[i], alone)
				}
			}
			// Over the same set (a store's two passes in one scope): one
			// selection for both, as exact as either alone.
			reqs = []Request{{K: 5, Filter: half}, {K: 12, Filter: halfCopy}}
			want, got := exact.SearchEach(q, reqs), ix.SearchEach(q, reqs)
			if slices.Equal(got[0], want[0]) && slices.Equal(got[1], want[1]) {
				sameSet++
			}
			// A request below the coarse minimum beside one above it (a
			// store in a small scope, its search set large): the first
			// scored exactly, the second as alone.
			reqs = []Request{{K: 5, Filter: smallSet}, {K: 10}}
			got = ix.SearchEach(q, reqs)
			if alone := exact.Search(q, 5, smallSet); !slices.Equal(got[0], alone) {
				t.Fatalf("%s: the small request: %v, exact %v", name, got[0], alone)
			}
			if alone := ix.Search(q, 10, nil); !slices.Equal(got[1], alone) {
				t.Fatalf("%s: the large request: %v, alone %v", name, got[1], alone)
			}
			// k above coarseMaxK: exact.
			reqs = []Request{{K: 150}, {K: 5, Filter: half}}
			want, got = exact.SearchEach(q, reqs), ix.SearchEach(q, reqs)
			for i := range reqs {
				if !slices.Equal(got[i], want[i]) {
					t.Fatalf("%s: request %d of %v differs from the exact search", name, i, reqs)
				}
			}
		}
		t.Logf("%s: %d of %d queries give the exact top 10 and filtered top 5, %d the exact pair over one set", name, same, len(queries), sameSet)
		if same < 98 || sameSet < 98 {
			t.Errorf("%s: only %d and %d of %d queries give the exact results", name, same, sameSet, len(queries))
		}
	}
	// Below coarseMin the search is the exact scan.
	small := withCoarse(m.Dim(), len(docs)+1, 200)
	for i, v := range docs {
		mustPut(t, small, uint32(i), v)
	}
	plain := New(m.Dim())
	plain.coarseDots = nil
	for i, v := range docs {
		mustPut(t, plain, uint32(i), v)
	}
	for _, q := range queries[:10] {
		if got, want := small.Search(q, 10, nil), plain.Search(q, 10, nil); !slices.Equal(got, want) {
			t.Fatalf("below coarseMin: %v, exact %v", got, want)
		}
	}
}

// TestKthLargest checks the selection against sorting, with many ties.
func TestKthLargest(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for range 2000 {
		n := 1 + r.IntN(300)
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(r.IntN(1 + r.IntN(50)))
		}
		k := 1 + r.IntN(n)
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		want := sorted[n-k]
		if got := kthLargest(slices.Clone(xs), k); got != want {
			t.Fatalf("%v, k %d: %v, want %v", xs, k, got, want)
		}
	}
}

// TestKthLargestKey checks the histogram selection against sorting, and
// keepBest against the quickselect it replaced: scores with many ties,
// negative ones, both zeros, infinities, spreads from one value to the
// whole float range; and that a bound is at most the k-th largest, keeping
// at least k.
func TestKthLargestKey(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var sc selScratch
	for trial := range 3000 {
		n := 1 + r.IntN(3000)
		if trial%10 == 0 {
			n = 8000 + r.IntN(1024)
		}
		xs := make([]float32, n)
		for i := range xs {
			switch trial % 6 {
			case 0:
				xs[i] = float32(r.IntN(1 + r.IntN(50))) // ties
			case 1:
				xs[i] = float32(r.NormFloat64()) * 1e3
			case 2:
				xs[i] = float32(700 + 400*r.Float64()*r.Float64()) // as coarse scores
			case 3:
				xs[i] = math.Float32frombits(r.Uint32() &^ (0xff << 23)) // tiny and zero, both signs
				if r.IntN(5) == 0 {
					xs[i] = float32(math.Copysign(0, float64(r.IntN(2)*2-1)))
				}
			case 4:
				xs[i] = []float32{float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32, -math.MaxFloat32, 1}[r.IntN(5)]
			case 5:
				xs[i] = 3.5
			}
		}
		k := 1 + r.IntN(n)
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		want := sorted[n-k]
		keys := make([]uint32, n)
		for i, x := range xs {
			keys[i] = floatKey(x)
		}
		if got := keyFloat(kthLargestKey(slices.Clone(keys), k, false, &sc.hist)); got != want {
			t.Fatalf("trial %d (n %d, k %d): %v, want %v", trial, n, k, got, want)
		}
		b := keyFloat(kthLargestKey(slices.Clone(keys), k, true, &sc.hist))
		kept := 0
		for _, x := range xs {
			if !(x < b) {
				kept++
			}
		}
		if b > want || kept < k {
			t.Fatalf("trial %d (n %d, k %d): bound %v keeps %d, the k-th is %v", trial, n, k, b, kept, want)
		}
		// keepBest, exact: what the quickselect kept.
		cs := make([]cand, n)
		for i, x := range xs {
			cs[i] = cand{id: uint32(i), p: x}
		}
		got, cut := keepBest(slices.Clone(cs), k, false, &sc)
		if n > k && cut != want || !slices.Equal(got, pruneCands(slices.Clone(cs), want)) && n > k {
			t.Fatalf("trial %d: keepBest cut %v, want %v", trial, cut, want)
		}
	}
	for x := range 5000 { // the key order is the float order
		a, b := math.Float32frombits(uint32(x)*858993), math.Float32frombits(r.Uint32())
		if a != a || b != b {
			continue
		}
		if (a < b) != (floatKey(a) < floatKey(b)) && !(a == 0 && b == 0) || keyFloat(floatKey(a)) != a {
			t.Fatalf("keys of %v, %v: %x, %x", a, b, floatKey(a), floatKey(b))
		}
	}
}

// TestPruneCands checks the cut against a filter that drops what scores
// below it, keeping the rest in order; ties with the cut stay.
func TestPruneCands(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for range 2000 {
		n := r.IntN(300)
		cs := make([]cand, n)
		for i := range cs {
			cs[i] = cand{id: uint32(r.IntN(1 << 20)), dot: int32(r.IntN(1000)), p: float32(r.IntN(1 + r.IntN(50)))}
		}
		cut := float32(r.IntN(50))
		var want []cand
		for _, c := range cs {
			if c.p >= cut {
				want = append(want, c)
			}
		}
		if got := pruneCands(slices.Clone(cs), cut); !slices.Equal(got, want) {
			t.Fatalf("cut %v of %v: %v, want %v", cut, cs, got, want)
		}
	}
}

// TestCoarseTakesStorePasses: a store's two requests in one scan take the
// coarse pass when each would alone, and sameSet tells equal sets.
func TestCoarseTakesStorePasses(t *testing.T) {
	ix := withCoarse(8, 100, 10)
	two := []scanReq{{k: 5, n: 200}, {k: 17, n: 200}}
	if !ix.useCoarse(200, two) {
		t.Error("a store's two requests over 200 candidates do not take the coarse pass")
	}
	a, b, c := FilterOf([]uint64{5, 0}), FilterOf([]uint64{5}), FilterOf([]uint64{5, 1})
	// A small request beside a large one: the scan takes the coarse pass
	// when the small one reads at most half of what it reads.
	if !ix.useCoarse(200, []scanReq{{k: 5, n: 50, f: a}, {k: 17, n: 200}}) {
		t.Error("a small scope's request beside a large one does not take the coarse pass")
	}
	for _, reqs := range [][]scanReq{
		{{k: 5, n: 200}, {k: 17, n: 50}},                          // below the minimum over every document
		{{k: 5, n: 50, f: a}, {k: 17, n: 60, f: b}},               // no request would take it alone
		{{k: 5, n: 200}, {k: coarseMaxK + 1, n: 200}},             // k above coarseMaxK over every document
		{{k: 5, n: 200, f: a}, {k: coarseMaxK + 1, n: 150, f: b}}, // the exact one reads too much
	} {
		if ix.useCoarse(200, reqs) {
			t.Errorf("%+v takes the coarse pass", reqs)
		}
	}
	if ix.useCoarse(150, []scanReq{{k: 5, n: 90, f: a}, {k: 17, n: 150}}) {
		t.Error("a small request reading more than half the scan takes the coarse pass")
	}
	for _, tc := range []struct {
		f, g *Filter
		same bool
	}{{nil, nil, true}, {a, nil, false}, {nil, a, false}, {a, a, true}, {a, b, true}, {b, a, true}, {a, c, false}, {c, b, false}} {
		if got := sameSet(tc.f, tc.g); got != tc.same {
			t.Errorf("sameSet(%v, %v) = %v", tc.f, tc.g, got)
		}
	}
}

// pickGuard is how many entries past n TestCoarsePick checks coarsePick
// leaves alone: one store of sixteen.
const pickGuard = 16

// TestCoarsePick checks the coarse pass's score-and-cut step (in assembly
// where the CPU has it) against the portable loop it replaced: the same
// slots and the same score bits, on random dot products (some wrapping in
// int32 as Go's do), weights (some zero), cuts (-Inf, and exact scores so
// that p == cut is kept), every tail length and a whole block, and that it
// writes nothing past the rows it was given.
func TestCoarsePick(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	cw := make([]float32, blockSize)
	for i := range cw {
		cw[i] = float32(r.Float64() * 1e-3)
		if i%97 == 0 {
			cw[i] = 0
		}
	}
	ns := []int{0, 1, 2, 15, 16, 17, 31, 33, 100, blockSize}
	for trial := range 400 {
		n := ns[trial%len(ns)]
		ids := make([]uint32, n)
		dots := make([]int32, n)
		for j := range ids {
			ids[j] = uint32(r.IntN(blockSize))
			dots[j] = int32(r.IntN(40000) - 20000)
			if trial%7 == 0 {
				dots[j] = int32(r.Uint32()) // wraps in 2·dot
			}
		}
		if trial%3 == 0 {
			slices.Sort(ids)
		}
		sum3 := int32(r.IntN(3000) - 1500)
		cut := float32(math.Inf(-1))
		switch {
		case trial%4 == 1 && n > 0:
			j := r.IntN(n)
			cut = float32(2*dots[j]-sum3) * cw[ids[j]] // that row is kept
		case trial%4 == 2:
			cut = float32(r.Float64()*20 - 10)
		case trial%4 == 3:
			cut = float32(r.Float64() * 2)
		}
		wantIDs, wantP := make([]uint32, n), make([]float32, n)
		// Past n, guards the assembly must leave alone (it may use
		// [m, n) as scratch).
		gotIDs, gotP := make([]uint32, n+pickGuard), make([]float32, n+pickGuard)
		for j := n; j < n+pickGuard; j++ {
			gotIDs[j], gotP[j] = 0xdeadbeef, -7
		}
		wm := coarsePickGo(dots, ids, cw, sum3, cut, wantIDs, wantP)
		gm := coarsePick(dots, ids, cw, sum3, cut, gotIDs[:n], gotP[:n])
		for j := n; j < n+pickGuard; j++ {
			if gotIDs[j] != 0xdeadbeef || gotP[j] != -7 {
				t.Fatalf("trial %d (n %d): wrote row %d past the %d rows", trial, n, j, n)
			}
		}
		if gm != wm || !slices.Equal(gotIDs[:gm], wantIDs[:wm]) {
			t.Fatalf("trial %d (n %d, cut %v): %d kept %v, want %d %v", trial, n, cut, gm, gotIDs[:gm], wm, wantIDs[:wm])
		}
		for j := range wm {
			if math.Float32bits(gotP[j]) != math.Float32bits(wantP[j]) {
				t.Fatalf("trial %d: row %d score %v, want %v", trial, j, gotP[j], wantP[j])
			}
		}
	}
}
