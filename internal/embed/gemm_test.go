package embed

import (
	"context"
	"github.com/infmem/infmem/internal/f16"

	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

func randMat(r *rand.Rand, n int) []float32 {
	m := make([]float32, n)
	for i := range m {
		m[i] = float32(r.NormFloat64())
	}
	return m
}

// randHalves returns n random fp16 values of moderate magnitude as bytes,
// and the same values as float32.
func randHalves(r *rand.Rand, n int) ([]byte, []float32) {
	b := make([]byte, 2*n)
	f := make([]float32, n)
	for i := range f {
		h := uint16(0x2000+r.IntN(0x2000)) | uint16(r.IntN(2))<<15
		binary.LittleEndian.PutUint16(b[2*i:], h)
		f[i] = f16.ToFloat32(h)
	}
	return b, f
}

// kernel6x16F16Go is the portable meaning of the fp16 kernel, the reference
// the assembly is tested against.
func kernel6x16F16Go(k int, a []float32, lda int, b []uint16, c []float32, ldc int) {
	panel := make([]float32, k*kernCols)
	for i := range panel {
		panel[i] = f16.ToFloat32(b[i])
	}
	kernel6x16Go(k, a, lda, panel, c, ldc)
}

// naiveMul is C = A·B for row-major A (m×k) and B (k×n).
func naiveMul(a, b []float32, m, k, n int) []float64 {
	c := make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s float64
			for kk := range k {
				s += float64(a[i*k+kk]) * float64(b[kk*n+j])
			}
			c[i*n+j] = s
		}
	}
	return c
}

type testKernels struct {
	name   string
	kern   kernelFunc
	kern16 f16KernelFunc // nil: weights decoded to fp32
	kern12 f16KernelFunc // nil: kern16 for every row
	amx    bool          // weight products in bf16 on the AMX tile unit
	vdp    bool          // weight products in bf16 by VDPBF16PS
}

// model builds the model with tk's kernels.
func (tk testKernels) model() (*USELite, error) {
	return newUSELiteBF16(useLiteBlob, tk.kern, tk.kern16, tk.kern12, tk.amx, tk.vdp)
}

// allKernels lists every kernel configuration this build and CPU can run.
func allKernels() []testKernels {
	ks := []testKernels{{"go", kernel6x16Go, nil, nil, false, false}, {"go-f16", kernel6x16Go, kernel6x16F16Go, nil, false, false}}
	if k := asmKernel(); k != nil {
		ks = append(ks, testKernels{"asm", k, nil, nil, false, false})
		if k16 := asmF16Kernel(); k16 != nil {
			ks = append(ks, testKernels{"asm-f16", k, k16, nil, false, false})
			if k12 := asmF16Kernel12(); k12 != nil {
				ks = append(ks, testKernels{"asm-f16-avx512", k, k16, k12, false, false})
			}
		}
	}
	return ks
}

func checkMulAdd(t *testing.T, tk testKernels, m, k, n int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	a := randMat(r, m*k)
	wb, w := randHalves(r, k*n)
	bias := randMat(r, n)
	mat := newMatrix(wb, k, n, tk.kern, tk.kern16)
	mat.setKern12(tk.kern12)
	mp := roundUp(m, kernRows)
	ap := make([]float32, mp*k)
	copy(ap, a)
	c := make([]float32, mp*n)
	fillRows(c, bias, mp)
	mat.mulAdd(mp, ap, k, c, n)
	want := naiveMul(a, w, m, k, n)
	for i := range m {
		for j := range n {
			wv := want[i*n+j] + float64(bias[j])
			got := float64(c[i*n+j])
			if math.Abs(got-wv) > 1e-4*math.Sqrt(float64(k))*(1+math.Abs(wv)) {
				t.Fatalf("%s m=%d k=%d n=%d: C[%d][%d] = %v, want %v", tk.name, m, k, n, i, j, got, wv)
			}
		}
	}
}

func TestMatrixMulAddMatchesNaive(t *testing.T) {
	// {13, 512, 160} and {18, 1536, 48} are large enough to run in parallel.
	shapes := [][3]int{{1, 1, 16}, {6, 1, 16}, {5, 3, 32}, {6, 256, 768}, {13, 512, 160}, {18, 1536, 48}, {7, 33, 48}, {130, 64, 128}}
	for _, tk := range allKernels() {
		for i, s := range shapes {
			checkMulAdd(t, tk, s[0], s[1], s[2], uint64(i))
		}
	}
}

// TestGemmPanelsOddWidths covers the attention products, whose widths are
// sentence lengths and are zero-padded to whole panels.
func TestGemmPanelsOddWidths(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, tk := range allKernels() {
		for _, s := range [][3]int{{1, 1, 1}, {5, 3, 7}, {7, 33, 40}, {130, 64, 130}} {
			m, k, n := s[0], s[1], s[2]
			a := randMat(r, roundUp(m, kernRows)*k)
			b := randMat(r, k*n)
			ldc := roundUp(n, kernCols)
			packed := make([]float32, k*ldc)
			packPanels(packed, b, k, n, n)
			c := make([]float32, roundUp(m, kernRows)*ldc)
			gemmPanels(tk.kern, nil, roundUp(m, kernRows), k, 0, ldc/kernCols, a, k, packed, c, ldc)
			want := naiveMul(a, b, m, k, n)
			for i := range m {
				for j := range n {
					if d := math.Abs(float64(c[i*ldc+j]) - want[i*n+j]); d > 1e-4*math.Sqrt(float64(k))*(1+math.Abs(want[i*n+j])) {
						t.Fatalf("%s %v: C[%d][%d] = %v, want %v", tk.name, s, i, j, c[i*ldc+j], want[i*n+j])
					}
				}
			}
		}
	}
}

// TestAsmKernelsMatchGo checks the assembly against the portable kernels
// directly, on strides that are not multiples of anything convenient, and
// that it writes nothing outside its 6×16 block.
func TestAsmKernelsMatchGo(t *testing.T) {
	asm, asm16 := asmKernel(), asmF16Kernel()
	if asm == nil {
		t.Skip("no assembly kernel on this CPU or build")
	}
	r := rand.New(rand.NewPCG(7, 7))
	compare := func(name string, k, ldc int, c0, c1 []float32) {
		t.Helper()
		for i := range c0 {
			col := i % ldc
			if col >= kernCols {
				if c0[i] != c1[i] {
					t.Fatalf("%s k=%d: wrote outside its block at element %d", name, k, i)
				}
				continue
			}
			if d := math.Abs(float64(c0[i] - c1[i])); d > 1e-4*math.Sqrt(float64(k)) {
				t.Fatalf("%s k=%d: element %d: go %v, asm %v", name, k, i, c0[i], c1[i])
			}
		}
	}
	for _, k := range []int{1, 2, 3, 17, 64, 255, 1536} {
		lda, ldc := k+5, kernCols+3
		a := randMat(r, kernRows*lda)
		b := randMat(r, k*kernCols)
		c0 := randMat(r, kernRows*ldc)
		c1 := append([]float32(nil), c0...)
		kernel6x16Go(k, a, lda, b, c0, ldc)
		asm(k, a, lda, b, c1, ldc)
		compare("f32", k, ldc, c0, c1)

		if asm16 == nil {
			continue
		}
		hb, _ := randHalves(r, k*kernCols)
		halves := make([]uint16, k*kernCols)
		for i := range halves {
			halves[i] = binary.LittleEndian.Uint16(hb[2*i:])
		}
		c2 := append([]float32(nil), c0...)
		c3 := append([]float32(nil), c0...)
		kernel6x16F16Go(k, a, lda, halves, c2, ldc)
		asm16(k, a, lda, halves, c3, ldc)
		compare("f16", k, ldc, c2, c3)
	}
}

func TestPackPanelsT(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	n, k, lds := 21, 10, 13
	src := randMat(r, n*lds)
	got := make([]float32, k*32)
	packPanelsT(got, src, k, n, lds)
	// The transpose, materialised, then packed normally.
	tr := make([]float32, k*n)
	for i := range n {
		for kk := range k {
			tr[kk*n+i] = src[i*lds+kk]
		}
	}
	want := make([]float32, k*32)
	packPanels(want, tr, k, n, n)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("element %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

// TestAVX512KernelSameBitsAsAVX2 checks that the twelve-row AVX-512 kernel
// gives bit for bit what two calls of the six-row AVX2 kernel give (each
// element gets the same fused multiply-adds in the same order), and that it
// writes nothing outside its 12×16 block; and that a whole matrix product
// with it is bit for bit the one without it, on row counts with and without
// a six-row tail.
func TestAVX512KernelSameBitsAsAVX2(t *testing.T) {
	k16, k12 := asmF16Kernel(), asmF16Kernel12()
	if k12 == nil {
		t.Skip("no AVX-512 kernel on this CPU or build")
	}
	r := rand.New(rand.NewPCG(12, 16))
	for _, k := range []int{1, 2, 3, 17, 64, 255, 512, 1536} {
		lda, ldc := k+5, kernCols+3
		a := randMat(r, 2*kernRows*lda)
		hb, _ := randHalves(r, k*kernCols)
		halves := make([]uint16, k*kernCols)
		for i := range halves {
			halves[i] = binary.LittleEndian.Uint16(hb[2*i:])
		}
		c0 := randMat(r, 2*kernRows*ldc)
		c1 := append([]float32(nil), c0...)
		k16(k, a, lda, halves, c0, ldc)
		k16(k, a[kernRows*lda:], lda, halves, c0[kernRows*ldc:], ldc)
		k12(k, a, lda, halves, c1, ldc)
		for i := range c0 {
			if math.Float32bits(c0[i]) != math.Float32bits(c1[i]) {
				t.Fatalf("k=%d: element %d (row %d, column %d): avx2 %v, avx512 %v", k, i, i/ldc, i%ldc, c0[i], c1[i])
			}
		}
	}
	for _, m := range []int{6, 12, 18, 48, 54, 96, 102} {
		k, n := 512, 80 // five panels: two pairs and one alone
		wb, _ := randHalves(r, k*n)
		a := randMat(r, m*k)
		with := newMatrix(wb, k, n, asmKernel(), k16)
		with.setKern12(k12)
		without := newMatrix(wb, k, n, asmKernel(), k16)
		c0, c1 := make([]float32, m*n), make([]float32, m*n)
		without.mulAdd(m, a, k, c0, n)
		with.mulAdd(m, a, k, c1, n)
		for i := range c0 {
			if math.Float32bits(c0[i]) != math.Float32bits(c1[i]) {
				t.Fatalf("m=%d: C[%d][%d]: without %v, with %v", m, i/n, i%n, c0[i], c1[i])
			}
		}
	}
}

// BenchmarkF16Kernels compares the fp16 kernels on one 12×16 block at k=512
// (GFLOP/s), the inner step of every product of the model.
func BenchmarkF16Kernels(b *testing.B) {
	k16, k12 := asmF16Kernel(), asmF16Kernel12()
	if k16 == nil {
		b.Skip("no fp16 assembly kernel")
	}
	r := rand.New(rand.NewPCG(1, 2))
	const k = 512
	a := randMat(r, 2*kernRows*k)
	hb, _ := randHalves(r, k*kernCols)
	halves := make([]uint16, k*kernCols)
	for i := range halves {
		halves[i] = binary.LittleEndian.Uint16(hb[2*i:])
	}
	c := make([]float32, 2*kernRows*kernCols)
	flops := func(b *testing.B) {
		b.ReportMetric(float64(b.N)*2*12*16*k/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	b.Run("avx2-6x16", func(b *testing.B) {
		for b.Loop() {
			k16(k, a, k, halves, c, kernCols)
			k16(k, a[kernRows*k:], k, halves, c[kernRows*kernCols:], kernCols)
		}
		flops(b)
	})
	if k12 == nil {
		return
	}
	b.Run("avx512-12x16", func(b *testing.B) {
		for b.Loop() {
			k12(k, a, k, halves, c, kernCols)
		}
		flops(b)
	})
	k32 := asmF16Kernel12x32()
	h2 := append(halves, halves...)
	c2 := make([]float32, 2*kernRows*2*kernCols)
	b.Run("avx512-12x32", func(b *testing.B) {
		for b.Loop() {
			k32(k, a, k, h2, c2, 2*kernCols)
		}
		b.ReportMetric(float64(b.N)*2*12*32*k/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

func TestAVX512PairKernelSameBits(t *testing.T) {
	k16, k32 := asmF16Kernel(), asmF16Kernel12x32()
	if k32 == nil {
		t.Skip("no AVX-512 kernel on this CPU or build")
	}
	r := rand.New(rand.NewPCG(12, 32))
	for _, k := range []int{1, 2, 3, 17, 64, 255, 512, 1536} {
		lda, ldc := k+5, 2*kernCols+3
		a := randMat(r, 2*kernRows*lda)
		hb, _ := randHalves(r, 2*k*kernCols)
		halves := make([]uint16, 2*k*kernCols)
		for i := range halves {
			halves[i] = binary.LittleEndian.Uint16(hb[2*i:])
		}
		c0 := randMat(r, 2*kernRows*ldc)
		c1 := append([]float32(nil), c0...)
		for _, rr := range []int{0, kernRows} {
			for _, p := range []int{0, 1} {
				k16(k, a[rr*lda:], lda, halves[p*k*kernCols:], c0[rr*ldc+p*kernCols:], ldc)
			}
		}
		k32(k, a, lda, halves, c1, ldc)
		for i := range c0 {
			if math.Float32bits(c0[i]) != math.Float32bits(c1[i]) {
				t.Fatalf("k=%d: element %d (row %d, column %d): avx2 %v, avx512 %v", k, i, i/ldc, i%ldc, c0[i], c1[i])
			}
		}
	}
}

// TestAVX512ModelSameBits: the model with the AVX-512 kernels embeds the
// reference texts, one at a time and in batches, to exactly the vectors it
// gives with the AVX2 kernel alone.
func TestAVX512ModelSameBits(t *testing.T) {
	k12 := asmF16Kernel12()
	if k12 == nil {
		t.Skip("no AVX-512 kernel on this CPU or build")
	}
	with, err := newUSELite(useLiteBlob, asmKernel(), asmF16Kernel(), k12)
	if err != nil {
		t.Fatal(err)
	}
	without, err := newUSELite(useLiteBlob, asmKernel(), asmF16Kernel(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range loadReference(t) {
		texts = append(texts, c.Text)
	}
	ctx := context.Background()
	for _, batch := range [][]string{texts[:1], texts[:7], texts} {
		a, err := with.EmbedBatch(ctx, batch)
		if err != nil {
			t.Fatal(err)
		}
		b, err := without.EmbedBatch(ctx, batch)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			for j := range a[i] {
				if math.Float32bits(a[i][j]) != math.Float32bits(b[i][j]) {
					t.Fatalf("batch of %d, text %d, component %d: %v with AVX-512, %v without", len(batch), i, j, a[i][j], b[i][j])
				}
			}
		}
	}
}

// TestAVX512F32KernelSameBits: the attention products give the same bits
// with the twelve-row AVX-512 float32 kernel as with the AVX2 one alone.
func TestAVX512F32KernelSameBits(t *testing.T) {
	k12 := asmKernel12()
	if k12 == nil {
		t.Skip("no AVX-512 kernel on this CPU or build")
	}
	r := rand.New(rand.NewPCG(12, 12))
	for _, s := range [][3]int{{12, 1, 16}, {18, 33, 40}, {60, 64, 130}, {132, 128, 132}} {
		m, k, n := s[0], s[1], s[2]
		a := randMat(r, m*k)
		b := randMat(r, k*n)
		ldc := roundUp(n, kernCols)
		packed := make([]float32, k*ldc)
		packPanels(packed, b, k, n, n)
		c0 := randMat(r, m*ldc)
		c1 := append([]float32(nil), c0...)
		gemmPanels(asmKernel(), nil, m, k, 0, ldc/kernCols, a, k, packed, c0, ldc)
		gemmPanels(asmKernel(), k12, m, k, 0, ldc/kernCols, a, k, packed, c1, ldc)
		for i := range c0 {
			if math.Float32bits(c0[i]) != math.Float32bits(c1[i]) {
				t.Fatalf("m=%d k=%d n=%d: element %d: %v with AVX2, %v with AVX-512", m, k, n, i, c0[i], c1[i])
			}
		}
	}
}
