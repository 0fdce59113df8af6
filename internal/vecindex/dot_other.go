//go:build !amd64 || purego

package vecindex

// asmDots reports that this build has no assembly kernel, so the portable Go
// kernel is used.
func asmDots() dotsFunc { return nil }
