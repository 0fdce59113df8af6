//go:build !amd64 || purego

package vecindex

// asmCoarse reports that this build has no coarse kernel: searches scan
// every candidate's int8 codes.
func asmCoarse() coarseFunc { return nil }

// coarsePick is coarsePickGo: this build has no coarse kernel.
func coarsePick(dots []int32, ids []uint32, cw []float32, sum3 int32, cut float32, outIDs []uint32, outP []float32) int {
	return coarsePickGo(dots, ids, cw, sum3, cut, outIDs, outP)
}
