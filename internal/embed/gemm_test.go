package embed

import (
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

func checkGemm(t *testing.T, kern kernelFunc, name string, m, k, n int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	a := randMat(r, m*k)
	b := randMat(r, k*n)
	bias := randMat(r, n)
	np := (n + kernCols - 1) / kernCols
	ldc := np * kernCols
	mp := roundUp(m, kernRows)
	ap := make([]float32, mp*k)
	copy(ap, a)
	packed := make([]float32, k*ldc)
	packPanels(packed, b, k, n, n)
	c := make([]float32, mp*ldc)
	for i := range mp {
		copy(c[i*ldc:], bias)
	}
	gemm(kern, mp, k, n, ap, k, packed, c, ldc)
	want := naiveMul(a, b, m, k, n)
	for i := range m {
		for j := range n {
			w := want[i*n+j] + float64(bias[j])
			got := float64(c[i*ldc+j])
			if math.Abs(got-w) > 1e-4*math.Sqrt(float64(k))*(1+math.Abs(w)) {
				t.Fatalf("%s m=%d k=%d n=%d: C[%d][%d] = %v, want %v", name, m, k, n, i, j, got, w)
			}
		}
	}
}

func TestGemmKernelsMatchNaive(t *testing.T) {
	shapes := [][3]int{{1, 1, 1}, {6, 1, 16}, {5, 3, 7}, {6, 256, 768}, {13, 512, 160}, {18, 1536, 48}, {7, 33, 40}, {130, 64, 130}, {300, 96, 48}}
	for _, k := range benchKernels() {
		for i, s := range shapes {
			checkGemm(t, k.kern, k.name, s[0], s[1], s[2], uint64(i))
		}
	}
}

// TestAsmKernelMatchesGo checks the assembly against the portable kernel
// directly, on strides that are not multiples of anything convenient.
func TestAsmKernelMatchesGo(t *testing.T) {
	asm := asmKernel()
	if asm == nil {
		t.Skip("no assembly kernel on this CPU or build")
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, k := range []int{1, 2, 3, 17, 64, 255, 1536} {
		lda, ldc := k+5, 16+3
		a := randMat(r, 6*lda)
		b := randMat(r, k*16)
		c0 := randMat(r, 6*ldc)
		c1 := append([]float32(nil), c0...)
		kernel6x16Go(k, a, lda, b, c0, ldc)
		asm(k, a, lda, b, c1, ldc)
		for i := range c0 {
			if d := math.Abs(float64(c0[i] - c1[i])); d > 1e-4*math.Sqrt(float64(k)) {
				t.Fatalf("k=%d: element %d: go %v, asm %v", k, i, c0[i], c1[i])
			}
		}
		// Columns past 16 in each C row belong to someone else.
		for rr := range 6 {
			for j := 16; j < ldc && rr*ldc+j < len(c0); j++ {
				if c1[rr*ldc+j] != c0[rr*ldc+j] {
					t.Fatalf("k=%d: asm wrote outside its block at row %d col %d", k, rr, j)
				}
			}
		}
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
