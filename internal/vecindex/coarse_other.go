//go:build !amd64 || purego

package vecindex

// asmCoarse reports that this build has no coarse kernel: searches scan
// every candidate's int8 codes.
func asmCoarse() coarseFunc { return nil }
