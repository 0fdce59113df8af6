package embed

import (
	"encoding/binary"
	"runtime"
	"sync"
)

// Matrix products are done by a 6×16 micro-kernel: it adds A·B to a 6-row,
// 16-column block of C, reading 6 rows of A and one "panel" of B, that is 16
// consecutive columns of B stored as k rows of 16 contiguous floats. Weight
// matrices are packed into panels once at load so the kernel streams them;
// activations keep their plain row-major layout with row counts padded to a
// multiple of 6 so there is no remainder case.
const (
	kernRows = 6
	kernCols = 16
)

// kernelFunc adds A·B to C for a 6×16 block: a holds 6 rows of k values with
// stride lda, b is one packed panel (k×16), c holds 6 rows of 16 with stride
// ldc.
type kernelFunc func(k int, a []float32, lda int, b []float32, c []float32, ldc int)

// kernel6x16Go is the portable micro-kernel, also the reference the
// assembly kernel is tested against.
func kernel6x16Go(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	_ = a[(kernRows-1)*lda+k-1]
	_ = b[k*kernCols-1]
	_ = c[(kernRows-1)*ldc+kernCols-1]
	for r := range kernRows {
		var acc [kernCols]float32
		ar := a[r*lda : r*lda+k]
		for kk, av := range ar {
			br := b[kk*kernCols : kk*kernCols+kernCols : kk*kernCols+kernCols]
			acc[0] += av * br[0]
			acc[1] += av * br[1]
			acc[2] += av * br[2]
			acc[3] += av * br[3]
			acc[4] += av * br[4]
			acc[5] += av * br[5]
			acc[6] += av * br[6]
			acc[7] += av * br[7]
			acc[8] += av * br[8]
			acc[9] += av * br[9]
			acc[10] += av * br[10]
			acc[11] += av * br[11]
			acc[12] += av * br[12]
			acc[13] += av * br[13]
			acc[14] += av * br[14]
			acc[15] += av * br[15]
		}
		cr := c[r*ldc : r*ldc+kernCols : r*ldc+kernCols]
		for j := range acc {
			cr[j] += acc[j]
		}
	}
}

// bestKernel returns the fastest kernel this CPU can run.
func bestKernel() kernelFunc {
	if k := asmKernel(); k != nil {
		return k
	}
	return kernel6x16Go
}

// packPanels lays out the k×n row-major matrix src (row stride lds) as
// ceil(n/16) panels of k×16, zero-filling columns past n.
func packPanels(dst, src []float32, k, n, lds int) {
	np := (n + kernCols - 1) / kernCols
	for p := range np {
		panel := dst[p*k*kernCols : (p+1)*k*kernCols]
		c0 := p * kernCols
		w := min(kernCols, n-c0)
		for kk := range k {
			row := panel[kk*kernCols : (kk+1)*kernCols]
			copy(row[:w], src[kk*lds+c0:kk*lds+c0+w])
			clear(row[w:])
		}
	}
}

// packPanelsT packs the transpose of the n×k row-major matrix src (row stride
// lds), i.e. the k×n matrix srcᵀ, as packPanels would.
func packPanelsT(dst, src []float32, k, n, lds int) {
	np := (n + kernCols - 1) / kernCols
	for p := range np {
		panel := dst[p*k*kernCols : (p+1)*k*kernCols]
		c0 := p * kernCols
		w := min(kernCols, n-c0)
		for j := range w {
			s := src[(c0+j)*lds : (c0+j)*lds+k]
			for kk, v := range s {
				panel[kk*kernCols+j] = v
			}
		}
		for j := w; j < kernCols; j++ {
			for kk := range k {
				panel[kk*kernCols+j] = 0
			}
		}
	}
}

// f16KernelFunc is kernelFunc for a panel of IEEE fp16 values.
type f16KernelFunc func(k int, a []float32, lda int, b []uint16, c []float32, ldc int)

// parallelMinWork is the multiply-add count below which splitting a product
// across goroutines costs more in scheduling than it saves.
const parallelMinWork = 1 << 18

// splitPanels runs fn over panel ranges covering [0, np), in parallel across
// GOMAXPROCS goroutines when the product is large enough to pay for it.
func splitPanels(np, work int, fn func(p0, p1 int)) {
	workers := min(runtime.GOMAXPROCS(0), np)
	if work < parallelMinWork || workers < 2 {
		fn(0, np)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		p0, p1 := w*np/workers, (w+1)*np/workers
		wg.Go(func() { fn(p0, p1) })
	}
	wg.Wait()
}

// rowBlock bounds how many rows of A one pass keeps hot while it sweeps the
// panels, so A stays in L2 when many sentences are embedded together.
const rowBlock = 48

// gemmPanels adds A·B to C for panels [p0, p1): A is m×k (row stride lda,
// m a multiple of 6), B is packed as panels of k×16, C has row stride ldc.
// kern12, when not nil, is kern over twelve rows (the same sums in the
// same order), used for every whole twelve rows.
func gemmPanels(kern, kern12 kernelFunc, m, k, p0, p1 int, a []float32, lda int, b []float32, c []float32, ldc int) {
	for r0 := 0; r0 < m; r0 += rowBlock {
		r1 := min(m, r0+rowBlock)
		for p := p0; p < p1; p++ {
			panel := b[p*k*kernCols : (p+1)*k*kernCols]
			r := r0
			if kern12 != nil {
				for ; r+2*kernRows <= r1; r += 2 * kernRows {
					kern12(k, a[r*lda:], lda, panel, c[r*ldc+p*kernCols:], ldc)
				}
			}
			for ; r < r1; r += kernRows {
				kern(k, a[r*lda:], lda, panel, c[r*ldc+p*kernCols:], ldc)
			}
		}
	}
}

// matrix is a k×n weight matrix (n a multiple of 16) packed into panels,
// as fp16 when the CPU can widen halves inside the kernel (half the memory
// and bandwidth), otherwise as fp32.
type matrix struct {
	k, n   int
	panels []float32
	kern   kernelFunc
	half   []uint16
	kern16 f16KernelFunc
	// kern12, when set, is kern16 over twelve rows at once (AVX-512), and
	// kernPair over twelve rows and two adjacent panels: mulAdd uses them
	// for every whole twelve rows (kernPair for pairs of panels), kern16
	// for the rest. Every element of C gets the same sums in the same order
	// from each.
	kern12, kernPair f16KernelFunc
	// bf, when set, holds the weights as bf16 for the AMX tile unit
	// (packBF16Pairs), and every product goes through mulAddBF16; half,
	// panels and the kernels are then unused.
	bf []uint16
	// vdp makes bf's products with VDPBF16PS (vdpGemmPair) instead of on
	// the tile unit.
	vdp bool
	// share, when not nil, runs the VDPBF16PS products of fewer than
	// amxSplitMinRows rows (a query, a stored text) pair of panels by pair
	// of panels with its worker (share.go).
	share *sharer
}

// setKern12 gives w the twelve-row kernels when kern12 is not nil (and w
// holds fp16 panels).
func (w *matrix) setKern12(kern12 f16KernelFunc) {
	if kern12 == nil || w.half == nil {
		return
	}
	w.kern12, w.kernPair = kern12, asmF16Kernel12x32()
}

// newMatrix packs the row-major fp16 matrix data (k×n, little-endian) for
// kern16, or decoded to fp32 for kern when kern16 is nil.
func newMatrix(data []byte, k, n int, kern kernelFunc, kern16 f16KernelFunc) *matrix {
	m := &matrix{k: k, n: n, kern: kern, kern16: kern16}
	np := n / kernCols
	if kern16 != nil {
		m.half = weightsU16(m, k*n, nil)
		for p := range np {
			for kk := range k {
				dst := m.half[(p*k+kk)*kernCols : (p*k+kk+1)*kernCols]
				src := data[2*(kk*n+p*kernCols):]
				for j := range dst {
					dst[j] = binary.LittleEndian.Uint16(src[2*j:])
				}
			}
		}
		return m
	}
	m.panels = make([]float32, k*n)
	for p := range np {
		for kk := range k {
			off := kk*n + p*kernCols
			decodeF16(m.panels[(p*k+kk)*kernCols:(p*k+kk+1)*kernCols], data[2*off:2*(off+kernCols)])
		}
	}
	return m
}

// mulAddReLU is mulAdd of relu(A), leaving A so: the bf16 products apply
// the ReLU as they round A, without a pass of their own over it.
func (w *matrix) mulAddReLU(m int, a []float32, lda int, c []float32, ldc int) {
	if w.bf != nil {
		w.mulAddBF16Act(m, a, lda, nil, c, ldc, true)
		return
	}
	for r := range m {
		relu(a[r*lda : r*lda+w.k])
	}
	w.mulAdd(m, a, lda, c, ldc)
}

// mulBias sets C to bias + A·W for m rows (bias has w.n values): with
// AMX the tiles start from the bias, without a pass filling C first.
func (w *matrix) mulBias(m int, a []float32, lda int, bias, c []float32, ldc int) {
	if w.bf != nil {
		w.mulAddBF16Act(m, a, lda, bias[:w.n], c, ldc, false)
		return
	}
	for r := range m {
		copy(c[r*ldc:r*ldc+w.n], bias)
	}
	w.mulAdd(m, a, lda, c, ldc)
}

// mulAdd adds A·W to C for m rows (a multiple of 6) of A (stride lda) and C
// (stride ldc).
func (w *matrix) mulAdd(m int, a []float32, lda int, c []float32, ldc int) {
	if w.bf != nil {
		w.mulAddBF16(m, a, lda, c, ldc)
		return
	}
	np := w.n / kernCols
	size := w.k * kernCols
	splitPanels(np, m*w.k*w.n, func(p0, p1 int) {
		for r0 := 0; r0 < m; r0 += rowBlock {
			r1 := min(m, r0+rowBlock)
			for p := p0; p < p1; p++ {
				c0 := p * kernCols
				if w.half != nil && w.kernPair != nil && p+1 < p1 {
					// Two panels, the columns c0..c0+31.
					pair := w.half[p*size : (p+2)*size]
					r := r0
					for ; r+2*kernRows <= r1; r += 2 * kernRows {
						w.kernPair(w.k, a[r*lda:], lda, pair, c[r*ldc+c0:], ldc)
					}
					for ; r < r1; r += kernRows {
						w.kern16(w.k, a[r*lda:], lda, pair[:size], c[r*ldc+c0:], ldc)
						w.kern16(w.k, a[r*lda:], lda, pair[size:], c[r*ldc+c0+kernCols:], ldc)
					}
					p++
					continue
				}
				if w.half != nil {
					panel := w.half[p*size : (p+1)*size]
					r := r0
					if w.kern12 != nil {
						for ; r+2*kernRows <= r1; r += 2 * kernRows {
							w.kern12(w.k, a[r*lda:], lda, panel, c[r*ldc+c0:], ldc)
						}
					}
					for ; r < r1; r += kernRows {
						w.kern16(w.k, a[r*lda:], lda, panel, c[r*ldc+c0:], ldc)
					}
					continue
				}
				panel := w.panels[p*size : (p+1)*size]
				for r := r0; r < r1; r += kernRows {
					w.kern(w.k, a[r*lda:], lda, panel, c[r*ldc+c0:], ldc)
				}
			}
		}
	})
	runtime.KeepAlive(w) // w.half may be mapped outside the heap (weightsU16)
}
