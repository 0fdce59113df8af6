//go:build amd64 && !purego

package vecindex

// coarseVNNI is coarseDotsGo in AVX-512 VNNI assembly (coarse_amd64.s). It
// trusts its arguments; coarseAsmVNNI checks them first.
//
//go:noescape
func coarseVNNI(q *int8, chunks int, plane *byte, stride int, ids *uint32, m int, out *int32)

func coarseAsmVNNI(q []int8, plane []byte, stride int, ids []uint32, out []int32) {
	if len(ids) == 0 {
		return
	}
	checkCoarse(q, plane, stride, ids, out)
	coarseVNNI(&q[0], stride/64, &plane[0], stride, &ids[0], len(ids), &out[0])
}

// asmCoarse returns the coarse kernel for this CPU, nil when it has none
// fast enough for the coarse pass to pay (the search is then exact
// throughout).
func asmCoarse() coarseFunc {
	if hasVNNI {
		return coarseAsmVNNI
	}
	return nil
}

// coarsePickAVX512 is coarsePickGo in AVX-512 assembly (coarse_amd64.s),
// sixteen rows at a time: the scores by VCVTDQ2PS and VMULPS (the same
// rounding as Go's conversion and product), the weights gathered by slot,
// the rows kept packed by VPCOMPRESSD in a register and stored sixteen at a
// time (it may write outIDs and outP past the count it returns, never past
// n). It trusts its arguments.
//
//go:noescape
func coarsePickAVX512(dots *int32, ids *uint32, n int, cw *float32, sum3 int32, cut float32, outIDs *uint32, outP *float32) int

// coarsePick is coarsePickGo, in assembly where the CPU has AVX-512 (every
// CPU with the coarse kernel).
func coarsePick(dots []int32, ids []uint32, cw []float32, sum3 int32, cut float32, outIDs []uint32, outP []float32) int {
	if !hasVNNI || len(ids) == 0 {
		return coarsePickGo(dots, ids, cw, sum3, cut, outIDs, outP)
	}
	checkPick(dots, ids, cw, outIDs, outP)
	return coarsePickAVX512(&dots[0], &ids[0], len(ids), &cw[0], sum3, cut, &outIDs[0], &outP[0])
}

// coarsePickAVX512 masks slots with 1023: a block has 1024 slots.
var _ [blockSize - 1024]struct{}
var _ [1024 - blockSize]struct{}
