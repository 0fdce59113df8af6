//go:build amd64 && !purego

package embed

import (
	"sync"

	"golang.org/x/sys/cpu"
)

// amxPairBF16 adds A·B to C for rowPairs blocks of 32 rows and one pair of
// panels (32 columns), on the AMX tile unit (amx_amd64.s): a is bf16, k
// columns used, row stride lda; b is two packBF16Pairs panels; c is float32
// with row stride ldc; with bias (32 values) not nil, C = bias + A·B. k
// must be a positive multiple of 32. It loads the
// tile configuration cfg first and releases the tiles before it returns,
// so no tile state outlives the call.
//
//go:noescape
func amxPairBF16(cfg *byte, a *uint16, lda int, b *uint16, k int, c *float32, ldc int, rowPairs int, bias *float32)

// cvtBF16AVX512 rounds n float32 (n a positive multiple of 32) to bf16 with
// VCVTNE2PS2BF16.
//
//go:noescape
func cvtBF16AVX512(dst *uint16, src *float32, n int)

// cvtBF16ReLUAVX512 is cvtBF16AVX512 of max(src, +0).
//
//go:noescape
func cvtBF16ReLUAVX512(dst *uint16, src *float32, n int)

// amxConfig is the tile configuration (palette 1): tiles 0–3 hold a 32×32
// block of C as four 16×16 float32 tiles, 4–5 two 16-row blocks of A and
// 6–7 two panels' 16 pairs of k rows, every tile 16 rows of 64 bytes.
var amxConfig = func() (cfg [64]byte) {
	cfg[0] = 1
	for t := range 8 {
		cfg[16+2*t] = 64
		cfg[48+t] = 16
	}
	return cfg
}()

// amxGemmPair is amxPairBF16 with its arguments checked; bias is nil or
// holds the pair's 32 bias values.
func amxGemmPair(a []uint16, lda int, b []uint16, k int, c []float32, ldc int, rowPairs int, bias []float32) {
	if k <= 0 || k%bf16Block != 0 || rowPairs <= 0 || lda < k || ldc < 2*kernCols {
		panic("embed: bad AMX product shape")
	}
	_ = a[(rowPairs*bf16Block-1)*lda+k-1]
	_ = b[2*k*kernCols-1]
	_ = c[(rowPairs*bf16Block-1)*ldc+2*kernCols-1]
	var bp *float32
	if bias != nil {
		_ = bias[2*kernCols-1]
		bp = &bias[0]
	}
	amxPairBF16(&amxConfig[0], &a[0], lda, &b[0], k, &c[0], ldc, rowPairs, bp)
}

// toBF16Row rounds src to bf16 into dst.
func toBF16Row(dst []uint16, src []float32) {
	n := len(src) &^ (bf16Block - 1)
	if n > 0 && vdpUsable() {
		_ = dst[n-1]
		cvtBF16AVX512(&dst[0], &src[0], n)
	}
	toBF16RowGo(dst[n:], src[n:])
}

// toBF16ReLURow rounds relu(src) to bf16 into dst.
func toBF16ReLURow(dst []uint16, src []float32) {
	n := len(src) &^ (bf16Block - 1)
	if n > 0 && vdpUsable() {
		_ = dst[n-1]
		cvtBF16ReLUAVX512(&dst[0], &src[0], n)
	}
	toBF16ReLURowGo(dst[n:], src[n:])
}

var amxOnce struct {
	sync.Once
	ok bool
}

// amxUsable reports whether this process can use the tile unit for bf16
// products: the CPU has AMX-BF16 (and AVX512-BF16 for the rounding) and
// the operating system granted the process the tile data state
// (requestAMX: Linux's arch_prctl; other systems: no).
func amxUsable() bool {
	amxOnce.Do(func() {
		amxOnce.ok = cpu.X86.HasAMXTile && cpu.X86.HasAMXBF16 && cpu.X86.HasAVX512BF16 &&
			cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && requestAMX()
	})
	return amxOnce.ok
}
