package embed

import (
	"context"
	"runtime"
	"slices"
	"testing"

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

// matrices lists the model's weight matrices.
func (m *USELite) matrices() []*matrix {
	out := []*matrix{m.tanhW}
	for i := range m.layers {
		L := &m.layers[i]
		out = append(out, L.qkv, L.out, L.res, L.ffn1, L.ffn2)
	}
	return slices.DeleteFunc(out, func(w *matrix) bool { return w == nil })
}
