package embed

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/infmem/infmem/internal/offheap"
)

// TestModelWeightsOutsideTheHeap: the model's packed weights (fp16 panels,
// or bf16 pairs with AMX; ~9 MB) are mapped outside the Go heap where the
// system allows it, so the server's heap goal does not grow with them
// (issue 24, RSS at 100k). The vectors are the same either way (the
// package's reference tests).
func TestModelWeightsOutsideTheHeap(t *testing.T) {
	if !offheap.Available() {
		t.Skip("no mappings outside the heap here")
	}
	if externalWeights {
		// Read from a file, the tensors the model keeps as read are
		// copied onto the heap (4.8 MB, seen in CI), which this heap
		// measure cannot tell apart from packed weights; the embedded
		// build (every other test run) checks the packed weights' place.
		t.Skip("with -tags infmem_external_model the model copies its other tensors onto the heap")
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	m, err := NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	grew := int64(heap()) - int64(before)
	var weights int
	for _, w := range m.matrices() {
		weights += 2 * (len(w.bf) + len(w.half))
	}
	if weights == 0 {
		t.Skip("this CPU's kernels keep fp32 panels")
	}
	if _, err := m.Embed(context.Background(), "the weights are read after loading"); err != nil {
		t.Fatal(err)
	}
	t.Logf("packed weights %.1f MB, heap grew %.1f MB", float64(weights)/(1<<20), float64(grew)/(1<<20))
	if grew > int64(weights)/2 {
		t.Fatalf("loading the model grew the heap by %.1f MB with %.1f MB of packed weights: they are on the heap", float64(grew)/(1<<20), float64(weights)/(1<<20))
	}
	runtime.KeepAlive(m)
}

// TestKeptScratchStaysSmall: the scratch a model keeps for good between
// passes (out of sync.Pool) is a query's or a short note's, not that of the
// longest text it has embedded (issue 24, the server's RSS).
func TestKeptScratchStaysSmall(t *testing.T) {
	m, err := NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	long := strings.Repeat("the Apollo launch moved to June 5 after the review and Dana will tell the client ", 6)
	for _, text := range []string{"when is the Apollo launch", long, "what did Dana say"} {
		if _, err := m.Embed(ctx, text); err != nil {
			t.Fatal(err)
		}
	}
	k := m.kept.Load()
	if k == nil {
		t.Fatal("no scratch kept for a query")
	}
	size := 4 * (cap(k.x0) + cap(k.h) + cap(k.qkv) + cap(k.ctx) + cap(k.a) + cap(k.f1) + cap(k.y) + cap(k.pooled))
	for _, h := range k.heads {
		size += 4 * (cap(h.scores) + cap(h.packK) + cap(h.packV) + cap(h.out))
	}
	t.Logf("kept scratch %.2f MB", float64(size)/(1<<20))
	if size > 2<<20 {
		t.Fatalf("the kept scratch holds %.2f MB after a long text: it grew to that text's pass", float64(size)/(1<<20))
	}
}

// TestBF16WeightsInOneSlab: with the bf16 kernels every weight matrix is
// carved from one slab (bf16WeightsSlab, asking for huge pages), starting
// at a 2 MiB boundary, with no matrix left to a mapping of its own.
func TestBF16WeightsInOneSlab(t *testing.T) {
	if !offheap.Available() {
		t.Skip("no mappings outside the heap here")
	}
	m, err := NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	if !m.amx && !m.vdp {
		t.Skip("this CPU runs no bf16 kernel")
	}
	ws := m.matrices()
	lo, hi := ^uintptr(0), uintptr(0)
	total := 0
	for _, w := range ws {
		if len(w.bf) == 0 {
			t.Fatalf("a %d×%d matrix has no bf16 weights", w.k, w.n)
		}
		a := uintptr(unsafe.Pointer(unsafe.SliceData(w.bf)))
		lo, hi = min(lo, a), max(hi, a+uintptr(2*len(w.bf)))
		total += 2 * len(w.bf)
	}
	if lo%(2<<20) != 0 || hi-lo > bf16WeightsSlab || total > bf16WeightsSlab {
		t.Fatalf("%d matrices, %d bytes, span [%#x, %#x): not in one 2 MiB-aligned slab of %d bytes", len(ws), total, lo, hi, bf16WeightsSlab)
	}
	if _, err := m.Embed(context.Background(), "the slab's weights are read"); err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(m)
}
