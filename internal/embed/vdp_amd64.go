//go:build amd64 && !purego

package embed

import (
	"sync"

	"golang.org/x/sys/cpu"
)

// vdpPairBF16 adds A·B to C for rowQuads blocks of four rows and one pair
// of panels (32 columns) with AVX-512 BF16's VDPBF16PS (vdp_amd64.s): a is
// bf16, k columns used, row stride lda; b is two packBF16Pairs panels; c
// is float32 with row stride ldc; with bias (32 values) not nil, C = bias
// + A·B. k must be a positive multiple of 2.
//
//go:noescape
func vdpPairBF16(a *uint16, lda int, b *uint16, k int, c *float32, ldc int, rowQuads int, bias *float32)

// vdpGemmPair is vdpPairBF16 with its arguments checked; rows is a
// multiple of vdpRows and bias is nil or holds the pair's 32 bias values.
func vdpGemmPair(a []uint16, lda int, b []uint16, k int, c []float32, ldc int, rows int, bias []float32) {
	if k <= 0 || k%2 != 0 || rows <= 0 || rows%vdpRows != 0 || lda < k || ldc < 2*kernCols {
		panic("embed: bad AVX-512 BF16 product shape")
	}
	_ = a[(rows-1)*lda+k-1]
	_ = b[2*k*kernCols-1]
	_ = c[(rows-1)*ldc+2*kernCols-1]
	var bp *float32
	if bias != nil {
		_ = bias[2*kernCols-1]
		bp = &bias[0]
	}
	vdpPairBF16(&a[0], lda, &b[0], k, &c[0], ldc, rows/vdpRows, bp)
}

var vdpOnce struct {
	sync.Once
	ok bool
}

// vdpUsable reports whether this CPU multiplies bf16 pairs in its vector
// unit (AVX512-BF16, e.g. AMD Zen 4 and Intel's Xeons since Cooper Lake),
// with the AVX-512 the rounding and the kernel use; the operating system
// saving the ZMM registers is what AVX512F's detection checks.
func vdpUsable() bool {
	vdpOnce.Do(func() {
		vdpOnce.ok = cpu.X86.HasAVX512BF16 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW
	})
	return vdpOnce.ok
}
