//go:build amd64 && !purego

#include "textflag.h"

#define prefetchDist 4

// func coarseVNNI(q *int8, chunks int, plane *byte, stride int, ids *uint32, m int, out *int32)
//
// For each of the m ids: out = Σ q[i]·u[i] over chunks·256 dimensions, u
// being the 2-bit codes of row = plane + id·stride (coarse.go's layout:
// byte b of a 64-byte chunk holds dimensions b, 64+b, 128+b and 192+b of
// the chunk's 256, two bits each from the lowest). A chunk is one load,
// four shifts and masks, and four VPDPBUSD (unsigned codes times signed
// query bytes, four products summed into each int32 lane), alternating two
// accumulators. The row four ids ahead is prefetched.
TEXT ·coarseVNNI(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), SI
	MOVQ chunks+8(FP), CX
	MOVQ plane+16(FP), DX
	MOVQ stride+24(FP), R8
	MOVQ ids+32(FP), R9
	MOVQ m+40(FP), R10
	MOVQ out+48(FP), R11

	TESTQ R10, R10
	JZ    cdone
	TESTQ CX, CX
	JZ    cdone

	MOVL         $0x03030303, AX
	VPBROADCASTD AX, Z7

cdoc:
	CMPQ  R10, $prefetchDist
	JBE   cnoprefetch
	MOVL  (prefetchDist*4)(R9), AX
	IMULQ R8, AX
	LEAQ  (DX)(AX*1), DI
	XORQ  BX, BX

cprefetch:
	PREFETCHT0 (DI)(BX*1)
	ADDQ       $64, BX
	CMPQ       BX, R8
	JB         cprefetch

cnoprefetch:
	MOVL  (R9), AX
	IMULQ R8, AX
	LEAQ  (DX)(AX*1), DI
	MOVQ  SI, R12
	MOVQ  CX, R13

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

cchunk:
	VMOVDQU64 (DI), Z2
	VPANDD    Z7, Z2, Z3
	VPDPBUSD  (R12), Z3, Z0
	VPSRLW    $2, Z2, Z4
	VPANDD    Z7, Z4, Z4
	VPDPBUSD  64(R12), Z4, Z1
	VPSRLW    $4, Z2, Z5
	VPANDD    Z7, Z5, Z5
	VPDPBUSD  128(R12), Z5, Z0
	VPSRLW    $6, Z2, Z6
	VPANDD    Z7, Z6, Z6
	VPDPBUSD  192(R12), Z6, Z1
	ADDQ      $64, DI
	ADDQ      $256, R12
	DECQ      R13
	JNZ       cchunk

	VPADDD        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0x4e, X0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0xb1, X0, X1
	VPADDD        X1, X0, X0
	VMOVD         X0, AX
	MOVL          AX, (R11)

	ADDQ $4, R9
	ADDQ $4, R11
	DECQ R10
	JNZ  cdoc

cdone:
	VZEROUPPER
	RET
