package embed

import (
	"encoding/binary"
	"math"
	"runtime"
	"sync"

	"github.com/infmem/infmem/internal/f16"
)

// bf16 ("brain float") keeps a float32's sign and 8-bit exponent and the top
// 7 bits of its mantissa. On CPUs with AMX (amx.go) the weight matrices are
// held as bf16 and each product's activations are rounded to bf16 before the
// tile unit multiplies them; every product of two bf16 values is exact in
// float32, and the sums are float32.

// toBF16 rounds v to the nearest bf16 (ties to even), as VCVTNE2PS2BF16
// does: a denormal input becomes a zero of the same sign, a NaN stays a
// (quiet) NaN.
func toBF16(v float32) uint16 {
	b := math.Float32bits(v)
	switch {
	case b&0x7f800000 == 0:
		return uint16(b>>16) & 0x8000
	case b&0x7fffffff > 0x7f800000:
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// fromBF16 widens a bf16 value to float32 (exact).
func fromBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// toBF16RowGo is toBF16 over a row.
func toBF16RowGo(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = toBF16(v)
	}
}

// toBF16ReLURowGo is toBF16RowGo of relu(src): a negative value (or
// negative zero) rounds to +0.
func toBF16ReLURowGo(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		if math.Float32bits(v)>>31 != 0 {
			dst[i] = 0
			continue
		}
		dst[i] = toBF16(v)
	}
}

// bf16Block is the tile unit's block: a product runs over 32 rows of
// activations by 32 columns of weights (two 16×16 tiles each way) and 32
// values of k (one 64-byte tile row of bf16) at a time.
const bf16Block = 32

// packBF16Pairs lays out the row-major fp16 matrix data (k×n, little-endian,
// k and n multiples of 32) for the tile unit: panels of 16 columns, each k/2
// rows of 16 pairs (W[2i][j], W[2i+1][j]) as bf16, so that one 16×64-byte
// tile of a panel holds 32 values of k for 16 columns, the layout
// TDPBF16PS multiplies by. out holds k*n values.
func packBF16Pairs(out []uint16, data []byte, k, n int) []uint16 {
	np := n / kernCols
	for p := range np {
		panel := out[p*k*kernCols : (p+1)*k*kernCols]
		for kk := range k {
			src := data[2*(kk*n+p*kernCols):]
			for j := range kernCols {
				h := binary.LittleEndian.Uint16(src[2*j:])
				panel[(kk/2)*2*kernCols+2*j+kk%2] = toBF16(f16.ToFloat32(h))
			}
		}
	}
	return out
}

// amxSplitMinRows is how many rows a product on the tile unit needs before
// its panels are split across goroutines. Below it (a query, one stored
// text) the products are bound by reading the weights (10 MB per text), and
// one core reads them about as fast as two: the split only doubled the CPU
// and took the second core from the rest of the caller's work (a store's
// database write and vector scan run beside its embedding).
// The VDPBF16PS products keep the rule: on a loaded machine (load 18, two
// cores) one goroutine embedded a query in 0.87–0.92 ms p50 against
// 1.13–1.25 ms split, and a stored text after a cache flush in 1.66–1.74
// against 2.0–2.27 ms (BenchmarkEmbedQuery/avx512-bf16, BenchmarkEmbedCold).
const amxSplitMinRows = 128

// bf16Pool holds the activations of a product rounded to bf16.
var bf16Pool = sync.Pool{New: func() any { return new([]uint16) }}

// mulAddBF16 adds A·W to C on the tile unit: A (m rows, stride lda) is
// rounded to bf16 once, padded with zero rows to a multiple of 32, and each
// pair of panels is one call of the assembly, which sweeps every 32 rows.
// The padding rows of C (up to 31 past m) are read and written back with
// nothing added; when c's capacity does not reach them, the last rows go
// through a copy.
func (w *matrix) mulAddBF16(m int, a []float32, lda int, c []float32, ldc int) {
	w.mulAddBF16Act(m, a, lda, nil, c, ldc, false)
}

// vdpRows is the row block of the AVX-512 BF16 products (vdpGemmPair):
// a product pads its rows to a multiple of four, not of 32 as on the tile
// unit, since the vector unit spends its time on every padding row.
const vdpRows = 4

// mulAddBF16Act is mulAddBF16, of relu(A) when relu is set (A unchanged),
// and with bias not nil C = bias + A·W (C's rows are not read). The
// products run on the tile unit, or with VDPBF16PS when w.vdp is set.
func (w *matrix) mulAddBF16Act(m int, a []float32, lda int, bias, c []float32, ldc int, relu bool) {
	k, n := w.k, w.n
	blk := bf16Block
	if w.vdp {
		blk = vdpRows
	}
	mp := roundUp(m, blk)
	bufp := bf16Pool.Get().(*[]uint16)
	defer bf16Pool.Put(bufp)
	if cap(*bufp) < mp*k {
		*bufp = make([]uint16, mp*k)
	}
	ab := (*bufp)[:mp*k]
	for r := range m {
		if relu {
			toBF16ReLURow(ab[r*k:(r+1)*k], a[r*lda:r*lda+k])
		} else {
			toBF16Row(ab[r*k:(r+1)*k], a[r*lda:r*lda+k])
		}
	}
	clear(ab[m*k:])

	cc := c[:cap(c)]
	var tail []float32
	if need := (mp-1)*ldc + n; len(cc) < need {
		// Rows from full on go through tail, a copy with room.
		full := m / blk * blk
		tail = make([]float32, blk*ldc)
		copy(tail, cc[full*ldc:min(len(cc), m*ldc)])
		defer copy(cc[full*ldc:min(len(cc), m*ldc)], tail)
		cc = cc[:full*ldc]
		mp = full
	}
	pairs := n / (2 * kernCols)
	size := 2 * k * kernCols
	pair := func(p int) {
		b := w.bf[p*size : (p+1)*size]
		var bp []float32
		if bias != nil {
			bp = bias[p*2*kernCols : (p+1)*2*kernCols]
		}
		if w.vdp {
			if mp > 0 {
				vdpGemmPair(ab, k, b, k, cc[p*2*kernCols:], ldc, mp, bp)
			}
			if tail != nil {
				vdpGemmPair(ab[mp*k:], k, b, k, tail[p*2*kernCols:], ldc, blk, bp)
			}
			return
		}
		if mp > 0 {
			amxGemmPair(ab, k, b, k, cc[p*2*kernCols:], ldc, mp/bf16Block, bp)
		}
		if tail != nil {
			amxGemmPair(ab[mp*k:], k, b, k, tail[p*2*kernCols:], ldc, 1, bp)
		}
	}
	if w.vdp && w.share != nil && m < amxSplitMinRows {
		// Pair by pair with the sharer's worker (share.go); a batch's
		// larger products keep the split below.
		w.share.do(pairs, pair)
	} else {
		work := m * k * n
		if m < amxSplitMinRows {
			work = 0 // one goroutine: see amxSplitMinRows
		}
		splitPanels(pairs, work, func(p0, p1 int) {
			for p := p0; p < p1; p++ {
				pair(p)
			}
		})
	}
	runtime.KeepAlive(w) // w.bf may be mapped outside the heap (weightsU16)
}
