//go:build !amd64 || purego

package vecindex

// asmDots reports that this build has no assembly kernel, so the portable Go
// kernel is used.
func asmDots() dotsFunc { return nil }

// asmKernels lists the assembly kernels, none here.
func asmKernels() map[string]dotsFunc { return nil }
