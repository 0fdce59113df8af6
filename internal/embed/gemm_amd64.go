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
