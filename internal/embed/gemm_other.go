//go:build !amd64 || purego

package embed

// asmKernel reports that this build has no assembly kernel, so the portable
// Go kernel is used.
func asmKernel() kernelFunc { return nil }
