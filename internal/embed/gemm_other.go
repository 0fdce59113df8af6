//go:build !amd64 || purego

package embed

// asmKernel reports that this build has no assembly kernel, so the portable
// Go kernel is used.
func asmKernel() kernelFunc { return nil }

// asmF16Kernel reports that this build cannot read fp16 weights in place, so
// they are decoded to fp32 at load.
func asmF16Kernel() f16KernelFunc { return nil }

// asmF16Kernel12 reports that this build has no twelve-row kernel.
func asmF16Kernel12() f16KernelFunc { return nil }

// asmF16Kernel12x32 reports that this build has no two-panel kernel.
func asmF16Kernel12x32() f16KernelFunc { return nil }

// amxUsable reports that this build has no tile-unit kernel.
func amxUsable() bool { return false }

// amxGemmPair is never called: no matrix holds bf16 panels in this build.
func amxGemmPair(a []uint16, lda int, b []uint16, k int, c []float32, ldc int, rowPairs int, bias []float32) {
	panic("embed: no AMX kernel in this build")
}

// toBF16Row rounds src to bf16 into dst.
func toBF16Row(dst []uint16, src []float32) { toBF16RowGo(dst, src) }

// toBF16ReLURow rounds relu(src) to bf16 into dst.
func toBF16ReLURow(dst []uint16, src []float32) { toBF16ReLURowGo(dst, src) }

// asmKernel12 reports that this build has no twelve-row float32 kernel.
func asmKernel12() kernelFunc { return nil }

// expShifted sets row[i] = float32(math.Exp(float64(row[i] - mx))).
func expShifted(row []float32, mx float32) { expShiftedGo(row, mx) }

// asm512: no AVX-512 softmax or layer-norm loop in this build.
var asm512 = false

// normRow is layerNormOut's loop.
func normRow(o, x []float32, mean, rs float32, scale, bias []float32) {
	normRowGo(o, x, mean, rs, scale, bias)
}

// vdpUsable reports that this build has no AVX-512 BF16 kernel.
func vdpUsable() bool { return false }

// vdpGemmPair is never called: no matrix uses it in this build.
func vdpGemmPair(a []uint16, lda int, b []uint16, k int, c []float32, ldc int, rows int, bias []float32) {
	panic("embed: no AVX-512 BF16 kernel in this build")
}
