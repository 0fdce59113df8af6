//go:build amd64 && !purego

package vecindex

import "golang.org/x/sys/cpu"

// dotsAVX2 is dotsGo in AVX2 assembly (dot_amd64.s). It trusts its
// arguments; dotsAsm checks them first.
//
//go:noescape
func dotsAVX2(q *int16, n int, codes *int8, stride int, ids *uint32, m int, out *int32)

func dotsAsm(q []int16, codes []int8, stride int, ids []uint32, out []int32) {
	if len(ids) == 0 {
		return
	}
	checkDots(q, codes, stride, ids, out)
	if len(q) == 0 {
		clear(out[:len(ids)])
		return
	}
	dotsAVX2(&q[0], len(q), &codes[0], stride, &ids[0], len(ids), &out[0])
}

func asmDots() dotsFunc {
	if cpu.X86.HasAVX2 {
		return dotsAsm
	}
	return nil
}
