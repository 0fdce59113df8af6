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
