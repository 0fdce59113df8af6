//go:build amd64 && !purego

package embed

import "golang.org/x/sys/cpu"

// kernel6x16AVX2 is kernel6x16Go in AVX2/FMA assembly (gemm_amd64.s). It
// trusts its arguments; kernel6x16Asm checks them first.
//
//go:noescape
func kernel6x16AVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int)

// kernel6x16F16AVX2 is kernel6x16F16Go in AVX2/FMA/F16C assembly.
//
//go:noescape
func kernel6x16F16AVX2(k int, a *float32, lda int, b *uint16, c *float32, ldc int)

// kernel12x16F16AVX512 is kernel6x16F16AVX2 over twelve rows, in AVX-512.
//
//go:noescape
func kernel12x16F16AVX512(k int, a *float32, lda int, b *uint16, c *float32, ldc int)

// kernel12x32F16AVX512 is kernel12x16F16AVX512 over two adjacent panels.
//
//go:noescape
func kernel12x32F16AVX512(k int, a *float32, lda int, b *uint16, c *float32, ldc int)

// kernel12x16AVX512 is kernel6x16AVX2 over twelve rows, in AVX-512.
//
//go:noescape
func kernel12x16AVX512(k int, a *float32, lda int, b *float32, c *float32, ldc int)

// kernel12x16F32Asm is kernel12x16AVX512 with its arguments checked.
func kernel12x16F32Asm(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	if k <= 0 {
		return
	}
	_ = a[(2*kernRows-1)*lda+k-1]
	_ = b[k*kernCols-1]
	_ = c[(2*kernRows-1)*ldc+kernCols-1]
	kernel12x16AVX512(k, &a[0], lda, &b[0], &c[0], ldc)
}

// asmKernel12 returns the twelve-row float32 kernel (AVX-512) when the CPU
// and system can run it, else nil.
func asmKernel12() kernelFunc {
	if asmF16Kernel12() != nil {
		return kernel12x16F32Asm
	}
	return nil
}

// kernel12x32F16Asm is kernel12x32F16AVX512 with its arguments checked: b
// holds two panels, c twelve rows of 32.
func kernel12x32F16Asm(k int, a []float32, lda int, b []uint16, c []float32, ldc int) {
	if k <= 0 {
		return
	}
	_ = a[(2*kernRows-1)*lda+k-1]
	_ = b[2*k*kernCols-1]
	_ = c[(2*kernRows-1)*ldc+2*kernCols-1]
	kernel12x32F16AVX512(k, &a[0], lda, &b[0], &c[0], ldc)
}

// asmF16Kernel12x32 is asmF16Kernel12's two-panel kernel.
func asmF16Kernel12x32() f16KernelFunc {
	if asmF16Kernel12() != nil {
		return kernel12x32F16Asm
	}
	return nil
}

func kernel6x16Asm(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	if k <= 0 {
		return
	}
	// Bounds checks the assembly cannot do.
	_ = a[(kernRows-1)*lda+k-1]
	_ = b[k*kernCols-1]
	_ = c[(kernRows-1)*ldc+kernCols-1]
	kernel6x16AVX2(k, &a[0], lda, &b[0], &c[0], ldc)
}

func kernel6x16F16Asm(k int, a []float32, lda int, b []uint16, c []float32, ldc int) {
	if k <= 0 {
		return
	}
	_ = a[(kernRows-1)*lda+k-1]
	_ = b[k*kernCols-1]
	_ = c[(kernRows-1)*ldc+kernCols-1]
	kernel6x16F16AVX2(k, &a[0], lda, &b[0], &c[0], ldc)
}

// kernel12x16F16Asm is kernel12x16F16AVX512 with its arguments checked.
func kernel12x16F16Asm(k int, a []float32, lda int, b []uint16, c []float32, ldc int) {
	if k <= 0 {
		return
	}
	_ = a[(2*kernRows-1)*lda+k-1]
	_ = b[k*kernCols-1]
	_ = c[(2*kernRows-1)*ldc+kernCols-1]
	kernel12x16F16AVX512(k, &a[0], lda, &b[0], &c[0], ldc)
}

// asmF16Kernel12 returns the twelve-row fp16 kernel when the CPU has
// AVX-512 (F for the arithmetic, BW/VL as every AVX-512 CPU that is not a
// Xeon Phi has) and the operating system saves the ZMM registers, else nil.
func asmF16Kernel12() f16KernelFunc {
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasF16C && asmF16Kernel() != nil {
		return kernel12x16F16Asm
	}
	return nil
}

func asmKernel() kernelFunc {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return kernel6x16Asm
	}
	return nil
}

func asmF16Kernel() f16KernelFunc {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C {
		return kernel6x16F16Asm
	}
	return nil
}
