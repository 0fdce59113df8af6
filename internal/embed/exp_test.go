package embed

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// The softmax's exp (expShifted, AVX-512 where the CPU has it) gives
// float32(math.Exp(float64(v - mx))): over 4M values across the range
// softmax scores take (and the edges: 0, underflow to float32 subnormals
// and zero), at most one in a million differs, by one float32 unit.
func TestExpShiftedMatchesMathExp(t *testing.T) {
	if !asm512 {
		t.Skip("no assembly exp on this CPU or build")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var total, differ int
	check := func(row []float32, mx float32) {
		want := append([]float32(nil), row...)
		expShiftedGo(want, mx)
		got := append([]float32(nil), row...)
		expShifted(got, mx)
		for i := range want {
			total++
			if got[i] == want[i] {
				continue
			}
			differ++
			if d := int64(math.Float32bits(got[i])) - int64(math.Float32bits(want[i])); d > 1 || d < -1 {
				t.Fatalf("exp(%v - %v) = %v, math.Exp %v", row[i], mx, got[i], want[i])
			}
		}
	}
	edges := []float32{0, -1e-30, -0.34657359, 0.34657359, -87.33654, -88.72284, -103.27893, -103.97, -104, -150, -745, -800, 1, 10, 88}
	for len(edges) > 0 {
		check(edges[:min(len(edges), 8)], 0)
		edges = edges[min(len(edges), 8):]
	}
	for total < 4_000_000 {
		n := 1 + r.IntN(130)
		row := make([]float32, n)
		scale := []float64{0.01, 1, 10, 60}[r.IntN(4)]
		mx := float32(math.Inf(-1))
		for i := range row {
			row[i] = float32(r.NormFloat64() * scale)
			mx = max(mx, row[i])
		}
		check(row, mx)
	}
	if differ > total/1_000_000 {
		t.Fatalf("%d of %d values differ from math.Exp's", differ, total)
	}
	t.Logf("%d of %d values differ from math.Exp's by one float32 unit", differ, total)
}

// The model's vectors are the same bits with the assembly exp and layer
// norm loop as with math.Exp and the Go loop, for the reference texts,
// each alone and in one batch (with AMX where the CPU has it).
func TestExpAsmSameVectors(t *testing.T) {
	if !asm512 {
		t.Skip("no assembly exp on this CPU or build")
	}
	m, err := NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range loadReference(t) {
		texts = append(texts, c.Text)
	}
	embedAll := func(asm bool) [][]float32 {
		defer func(was bool) { asm512 = was }(asm512)
		asm512 = asm
		out, err := m.EmbedBatch(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts[:8] {
			v, err := m.Embed(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	want, got := embedAll(false), embedAll(true)
	for i := range want {
		for j := range want[i] {
			if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
				t.Fatalf("vector %d differs at %d: %v, with math.Exp %v", i, j, got[i][j], want[i][j])
			}
		}
	}
}

// normRow (AVX-512 where the CPU has it) writes the bits normRowGo writes,
// whatever the row's length.
func TestNormRowMatchesGo(t *testing.T) {
	if !asm512 {
		t.Skip("no AVX-512 loop on this CPU or build")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 600; n++ {
		x, scale, bias := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], scale[i], bias[i] = float32(r.NormFloat64()*4), float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		mean, rs := float32(r.NormFloat64()), float32(r.Float64()*3)
		want, got := make([]float32, n), make([]float32, n)
		normRowGo(want, x, mean, rs, scale, bias)
		normRow(got, x, mean, rs, scale, bias)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n %d: o[%d] = %v, Go %v", n, i, got[i], want[i])
			}
		}
	}
}
