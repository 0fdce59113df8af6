//go:build amd64 && !purego

package vecindex

import "golang.org/x/sys/cpu"

// dotsAVX2 is dotsGo in AVX2 assembly (dot_amd64.s). It trusts its
// arguments; dotsAsm checks them first.
//
//go:noescape
func dotsAVX2(q *int16, n int, codes *int8, stride int, ids *uint32, m int, out *int32)

// dotsVNNI is dotsAVX2 on AVX-512 VNNI (VPDPWSSD on 512-bit registers):
// the same sums, in about a third of the instructions.
//
//go:noescape
func dotsVNNI(q *int16, n int, codes *int8, stride int, ids *uint32, m int, out *int32)

// dotsKernel is the signature dotsAVX2 and dotsVNNI share.
type dotsKernel func(q *int16, n int, codes *int8, stride int, ids *uint32, m int, out *int32)

// checked runs an assembly kernel with its arguments checked first.
func (k dotsKernel) checked(q []int16, codes []int8, stride int, ids []uint32, out []int32) {
	if len(ids) == 0 {
		return
	}
	checkDots(q, codes, stride, ids, out)
	if len(q) == 0 {
		clear(out[:len(ids)])
		return
	}
	k(&q[0], len(q), &codes[0], stride, &ids[0], len(ids), &out[0])
}

func dotsAsm(q []int16, codes []int8, stride int, ids []uint32, out []int32) {
	dotsKernel(dotsAVX2).checked(q, codes, stride, ids, out)
}

func dotsAsmVNNI(q []int16, codes []int8, stride int, ids []uint32, out []int32) {
	dotsKernel(dotsVNNI).checked(q, codes, stride, ids, out)
}

// hasVNNI: the CPU and OS give AVX-512 F, BW and VNNI (cpu checks that
// the OS saves the 512-bit registers).
var hasVNNI = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VNNI

func asmDots() dotsFunc {
	switch {
	case hasVNNI:
		return dotsAsmVNNI
	case cpu.X86.HasAVX2:
		return dotsAsm
	}
	return nil
}

// asmKernels lists every assembly kernel this CPU runs, for the tests.
func asmKernels() map[string]dotsFunc {
	ks := map[string]dotsFunc{}
	if cpu.X86.HasAVX2 {
		ks["avx2"] = dotsAsm
	}
	if hasVNNI {
		ks["vnni"] = dotsAsmVNNI
	}
	return ks
}
