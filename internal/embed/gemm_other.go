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
