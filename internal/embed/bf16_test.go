package embed

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestToBF16(t *testing.T) {
	for _, c := range []struct {
		in   float32
		want uint16
	}{
		{1, 0x3f80}, {-2, 0xc000}, {0, 0}, {float32(math.Copysign(0, -1)), 0x8000},
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie, even below
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie, even above
		{math.Float32frombits(0x3f808001), 0x3f81},
		{math.Float32frombits(0x00400000), 0},      // denormal: zero
		{math.Float32frombits(0x80400000), 0x8000}, // negative denormal
		{math.MaxFloat32, 0x7f80},                  // rounds up to infinity
		{float32(math.Inf(-1)), 0xff80},
	} {
		if got := toBF16(c.in); got != c.want {
			t.Errorf("toBF16(%v = %#x) = %#x, want %#x", c.in, math.Float32bits(c.in), got, c.want)
		}
	}
	if got := toBF16(float32(math.NaN())); got&0x7f80 != 0x7f80 || got&0x7f == 0 {
		t.Errorf("toBF16(NaN) = %#x, not a NaN", got)
	}
}

// TestToBF16RowSameBits: the AVX-512 rounding (VCVTNE2PS2BF16) gives the
// bits toBF16 gives, for ordinary values, ties, denormals and extremes.
func TestToBF16RowSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 16))
	src := make([]float32, 32*64+7)
	for i := range src {
		switch i % 4 {
		case 0:
			src[i] = float32(r.NormFloat64())
		case 1:
			src[i] = math.Float32frombits(r.Uint32()&0xffff0000 | 0x8000) // a tie
		case 2:
			src[i] = math.Float32frombits(r.Uint32() &^ 0x7f800000 >> uint(r.IntN(2)*24)) // denormals and tiny
		default:
			b := r.Uint32()
			if b&0x7f800000 == 0x7f800000 {
				b &^= 0x00800000 // finite
			}
			src[i] = math.Float32frombits(b)
		}
	}
	got := make([]uint16, len(src))
	toBF16Row(got, src)
	for i, v := range src {
		if want := toBF16(v); got[i] != want {
			t.Fatalf("element %d (%#x): %#x, want %#x", i, math.Float32bits(v), got[i], want)
		}
	}
	// The model's activations are finite; a NaN's ReLU is not specified.
	for i, v := range src {
		if math.IsNaN(float64(v)) {
			src[i] = 1
		}
	}
	src[0], src[1] = float32(math.Copysign(0, -1)), 0
	toBF16ReLURow(got, src)
	want := make([]uint16, len(src))
	relu(src)
	toBF16RowGo(want, src)
	for i := range src {
		if got[i] != want[i] {
			t.Fatalf("ReLU, element %d (%#x): %#x, want %#x", i, math.Float32bits(src[i]), got[i], want[i])
		}
	}
}

// bf16MulAddRef is the meaning of mulAddBF16: C += bf16(A)·bf16(W), each
// product exact, summed in float64.
func bf16MulAddRef(a []float32, w []float32, m, k, n int, c []float64) {
	for i := range m {
		for j := range n {
			var s float64
			for kk := range k {
				s += float64(fromBF16(toBF16(a[i*k+kk]))) * float64(fromBF16(toBF16(w[kk*n+j])))
			}
			c[i*n+j] += s
		}
	}
}

// TestAMXMulAddMatchesReference: the tile-unit product agrees with the
// exact sum of the same bf16 products to within float32 accumulation
// (a relative 1e-5 of the sum of the terms' magnitudes), for row counts
// that do and do not fill whole 32-row blocks, with C in place and
// through the tail copy.
func TestAMXMulAddMatchesReference(t *testing.T) {
	if !amxUsable() {
		t.Skip("no AMX-BF16 on this CPU, build or system")
	}
	r := rand.New(rand.NewPCG(32, 32))
	for _, s := range [][3]int{{1, 32, 32}, {6, 256, 768}, {31, 64, 64}, {32, 512, 96}, {33, 1536, 64}, {70, 512, 1536}, {256, 256, 512}} {
		m, k, n := s[0], s[1], s[2]
		wb, w := randHalves(r, k*n)
		mat := &matrix{k: k, n: n, bf: packBF16Pairs(make([]uint16, k*n), wb, k, n)}
		mulAddMatchesRef(t, r, mat, w, m, k, n, bf16Block)
	}
}

// TestAMXModelNearFP32: the model with its weight products in bf16 on the
// tile unit embeds the reference texts close to the float32 model (cosine
// at least 0.9995 each; measured: minimum 0.99994, mean 0.99997), and a
// text gets the same bits alone and in any batch.
func TestAMXModelNearFP32(t *testing.T) {
	if !amxUsable() {
		t.Skip("no AMX-BF16 on this CPU, build or system")
	}
	bf, err := newUSELiteAMX(useLiteBlob, bestKernel(), asmF16Kernel(), asmF16Kernel12(), true)
	if err != nil {
		t.Fatal(err)
	}
	f32, err := newUSELite(useLiteBlob, bestKernel(), asmF16Kernel(), asmF16Kernel12())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range loadReference(t) {
		texts = append(texts, c.Text)
	}
	nearFP32(t, bf, f32, texts, 0.9995, "bf16")
}

// TestAMXEnvOff: INFMEM_EMBED_AMX=off gives the float32 model, bit for bit.
func TestAMXEnvOff(t *testing.T) {
	t.Setenv(AMXEnv, "off")
	if Kernel() == "AMX bf16" {
		t.Fatalf("Kernel() = %q with %s=off", Kernel(), AMXEnv)
	}
	m, err := NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	if m.amx {
		t.Fatal("the model uses AMX despite the variable")
	}
	ref, err := newUSELite(useLiteBlob, bestKernel(), asmF16Kernel(), asmF16Kernel12())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.Embed(t.Context(), benchQuery)
	b, _ := ref.Embed(t.Context(), benchQuery)
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("component %d: %v, want %v", i, a[i], b[i])
		}
	}
}

// BenchmarkAMXMulAdd times whole weight products on the tile unit, in the
// shapes of the model's largest (feed-forward) products.
func BenchmarkAMXMulAdd(b *testing.B) {
	if !amxUsable() {
		b.Skip("no AMX-BF16 on this CPU, build or system")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range [][3]int{{32, 512, 1536}, {256, 512, 1536}, {256, 1536, 512}} {
		m, k, n := s[0], s[1], s[2]
		wb, _ := randHalves(r, k*n)
		mat := &matrix{k: k, n: n, bf: packBF16Pairs(make([]uint16, k*n), wb, k, n)}
		a := randMat(r, m*k)
		c := make([]float32, m*n)
		b.Run(fmt.Sprintf("m=%d/k=%d/n=%d", m, k, n), func(b *testing.B) {
			for b.Loop() {
				mat.mulAdd(m, a, k, c, n)
			}
			b.ReportMetric(float64(b.N)*2*float64(m*k*n)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestAMXMulBiasSameBits: starting the tiles from the bias gives the bits
// that filling C with it and adding the product gives, in place and
// through the tail copy.
func TestAMXMulBiasSameBits(t *testing.T) {
	if !amxUsable() {
		t.Skip("no AMX-BF16 on this CPU, build or system")
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, s := range [][3]int{{6, 256, 768}, {33, 512, 64}, {64, 64, 1536}} {
		m, k, n := s[0], s[1], s[2]
		wb, _ := randHalves(r, k*n)
		mat := &matrix{k: k, n: n, bf: packBF16Pairs(make([]uint16, k*n), wb, k, n)}
		a, bias := randMat(r, m*k), randMat(r, n)
		for _, rows := range []int{m, roundUp(m, bf16Block)} {
			c1, c2 := make([]float32, rows*n), randMat(r, rows*n)
			fillRows(c1, bias, m)
			mat.mulAdd(m, a, k, c1[:m*n], n)
			mat.mulBias(m, a, k, bias, c2[:m*n], n)
			for i := range m * n {
				if math.Float32bits(c1[i]) != math.Float32bits(c2[i]) {
					t.Fatalf("m=%d k=%d n=%d rows=%d: element %d: %v filled, %v from the bias", m, k, n, rows, i, c1[i], c2[i])
				}
			}
		}
	}
}

// TestAMXSplitSameBits: a product of fewer than amxSplitMinRows rows runs
// on one goroutine and a larger one is split across goroutines by panels;
// each row of C gets the same bits either way.
func TestAMXSplitSameBits(t *testing.T) {
	if !amxUsable() {
		t.Skip("no AMX-BF16 on this CPU, build or system")
	}
	r := rand.New(rand.NewPCG(9, 9))
	const big = amxSplitMinRows + 37
	for _, s := range [][2]int{{256, 768}, {512, 1536}, {1536, 512}} {
		k, n := s[0], s[1]
		wb, _ := randHalves(r, k*n)
		mat := &matrix{k: k, n: n, bf: packBF16Pairs(make([]uint16, k*n), wb, k, n)}
		a, bias := randMat(r, big*k), randMat(r, n)
		all := make([]float32, roundUp(big, bf16Block)*n)
		mat.mulBias(big, a, k, bias, all, n)
		for _, rows := range [][2]int{{0, 1}, {0, 20}, {big - 33, big}, {100, amxSplitMinRows - 1}} {
			m := rows[1] - rows[0]
			part := make([]float32, roundUp(m, bf16Block)*n)
			mat.mulBias(m, a[rows[0]*k:], k, bias, part, n)
			for i := range m * n {
				if math.Float32bits(part[i]) != math.Float32bits(all[rows[0]*n+i]) {
					t.Fatalf("k=%d n=%d rows %d-%d: element %d: %v alone, %v in the %d-row product", k, n, rows[0], rows[1], i, part[i], all[rows[0]*n+i], big)
				}
			}
		}
	}
}

// nearFP32 checks that bf embeds every text within cosine bound of the
// float32 model f32 (the empty text aside), logs the minimum and mean, and
// that a text gets the same bits alone, in a batch of 7 and in the whole
// batch.
func nearFP32(t *testing.T, bf, f32 *USELite, texts []string, bound float64, label string) {
	t.Helper()
	ctx := context.Background()
	got, err := bf.EmbedBatch(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := f32.EmbedBatch(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	minCos, sum, n := 2.0, 0.0, 0
	for i := range got {
		if ref[i][0] == 0 && ref[i][1] == 0 {
			continue // the empty text
		}
		cos := dot(got[i], ref[i])
		sum += cos
		n++
		minCos = min(minCos, cos)
		if cos < bound {
			t.Errorf("%q: cosine %.5f between %s and float32 vectors", texts[i], cos, label)
		}
	}
	t.Logf("%s against float32, %d texts: minimum cosine %.7f, mean %.7f", label, n, minCos, sum/float64(n))
	for _, size := range []int{1, 7} {
		for i := 0; i+size <= len(texts); i += size {
			part, err := bf.EmbedBatch(ctx, texts[i:i+size])
			if err != nil {
				t.Fatal(err)
			}
			for j := range part {
				for d := range part[j] {
					if math.Float32bits(part[j][d]) != math.Float32bits(got[i+j][d]) {
						t.Fatalf("text %d: component %d is %v in a batch of %d, %v in the whole batch", i+j, d, part[j][d], size, got[i+j][d])
					}
				}
			}
		}
	}
}

// mulAddMatchesRef checks mat.mulAdd (C += A·W, m×k by k×n) against the
// float64 reference of the bf16-rounded products, with C exactly m rows and
// with C's rows rounded up to block.
func mulAddMatchesRef(t *testing.T, r *rand.Rand, mat *matrix, w []float32, m, k, n, block int) {
	t.Helper()
	a := randMat(r, m*k)
	for _, roomy := range []bool{false, true} {
		rows := m
		if roomy {
			rows = roundUp(m, block)
		}
		c := randMat(r, rows*n)
		want := make([]float64, m*n)
		for i := range want {
			want[i] = float64(c[i])
		}
		bf16MulAddRef(a, w, m, k, n, want)
		mat.mulAdd(m, a, k, c[:m*n], n)
		for i := range m {
			for j := range n {
				var mag float64
				for kk := range k {
					mag += math.Abs(float64(a[i*k+kk]) * float64(w[kk*n+j]))
				}
				if d := math.Abs(float64(c[i*n+j]) - want[i*n+j]); d > 1e-5*(mag+1) {
					t.Fatalf("m=%d k=%d n=%d roomy=%v: C[%d][%d] = %v, want %v", m, k, n, roomy, i, j, c[i*n+j], want[i*n+j])
				}
			}
		}
	}
}
