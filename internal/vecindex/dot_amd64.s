//go:build amd64 && !purego

#include "textflag.h"

#define prefetchDist 4

// func dotsAVX2(q *int16, n int, codes *int8, stride int, ids *uint32, m int, out *int32)
//
// For each of the m ids: out = Σ q[i]·row[i] for i < n, with row = codes +
// id·stride. Sixteen doc codes are sign-extended to int16 (VPMOVSXBW) and
// multiplied by sixteen query codes with adjacent pairs summed into eight
// int32 lanes (VPMADDWD); four accumulators cover 64 codes per step. A
// 16-code step and a scalar loop finish lengths that are not multiples of 64.
TEXT ·dotsAVX2(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ codes+16(FP), DX
	MOVQ stride+24(FP), R8
	MOVQ ids+32(FP), R9
	MOVQ m+40(FP), R10
	MOVQ out+48(FP), R11

	MOVQ CX, R12
	ANDQ $-64, R12 // codes covered by the 64-wide loop
	MOVQ CX, R13
	ANDQ $-16, R13 // codes covered by the 64- and 16-wide loops

	TESTQ R10, R10
	JZ    done

doc:
	// Prefetch the row prefetchDist ids ahead: rows picked by a filter are
	// scattered, and the hardware prefetcher cannot guess the next one.
	CMPQ  R10, $prefetchDist
	JBE   noprefetch
	MOVL  (prefetchDist*4)(R9), AX
	IMULQ R8, AX
	LEAQ  (DX)(AX*1), DI
	XORQ  BX, BX

prefetch:
	PREFETCHT0 (DI)(BX*1)
	ADDQ       $64, BX
	CMPQ       BX, CX
	JB         prefetch

noprefetch:
	MOVL  (R9), AX // zero-extends the id
	IMULQ R8, AX
	LEAQ  (DX)(AX*1), DI

	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ  BX, BX

	CMPQ BX, R12
	JAE  step16

loop64:
	VPMOVSXBW (DI)(BX*1), Y4
	VPMOVSXBW 16(DI)(BX*1), Y5
	VPMOVSXBW 32(DI)(BX*1), Y6
	VPMOVSXBW 48(DI)(BX*1), Y7
	VPMADDWD  (SI)(BX*2), Y4, Y4
	VPMADDWD  32(SI)(BX*2), Y5, Y5
	VPMADDWD  64(SI)(BX*2), Y6, Y6
	VPMADDWD  96(SI)(BX*2), Y7, Y7
	VPADDD    Y4, Y0, Y0
	VPADDD    Y5, Y1, Y1
	VPADDD    Y6, Y2, Y2
	VPADDD    Y7, Y3, Y3
	ADDQ      $64, BX
	CMPQ      BX, R12
	JB        loop64

step16:
	CMPQ BX, R13
	JAE  reduce

loop16:
	VPMOVSXBW (DI)(BX*1), Y4
	VPMADDWD  (SI)(BX*2), Y4, Y4
	VPADDD    Y4, Y0, Y0
	ADDQ      $16, BX
	CMPQ      BX, R13
	JB        loop16

reduce:
	VPADDD       Y1, Y0, Y0
	VPADDD       Y3, Y2, Y2
	VPADDD       Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX

	CMPQ BX, CX
	JAE  store

tail:
	MOVBLSX (DI)(BX*1), R14
	MOVWLSX (SI)(BX*2), R15
	IMULL   R15, R14
	ADDL    R14, AX
	INCQ    BX
	CMPQ    BX, CX
	JB      tail

store:
	MOVL AX, (R11)
	ADDQ $4, R9
	ADDQ $4, R11
	DECQ R10
	JNZ  doc

done:
	VZEROUPPER
	RET

// func dotsVNNI(q *int16, n int, codes *int8, stride int, ids *uint32, m int, out *int32)
//
// dotsAVX2 on AVX-512 VNNI: thirty-two doc codes are sign-extended to int16
// in a 512-bit register (VPMOVSXBW) and VPDPWSSD multiplies them by
// thirty-two query codes and adds adjacent pairs into sixteen int32 lanes
// of an accumulator in one instruction; four accumulators cover 128 codes
// per step. The sums are the same int32 sums (wrapping) as dotsAVX2's. The
// rest of a row (below 128 codes) takes dotsAVX2's 16-code and scalar steps.
TEXT ·dotsVNNI(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ codes+16(FP), DX
	MOVQ stride+24(FP), R8
	MOVQ ids+32(FP), R9
	MOVQ m+40(FP), R10
	MOVQ out+48(FP), R11

	MOVQ CX, R12
	ANDQ $-128, R12 // codes covered by the 128-wide loop
	MOVQ CX, R13
	ANDQ $-16, R13  // codes covered by the 128- and 16-wide loops

	TESTQ R10, R10
	JZ    vdone

vdoc:
	CMPQ  R10, $prefetchDist
	JBE   vnoprefetch
	MOVL  (prefetchDist*4)(R9), AX
	IMULQ R8, AX
	LEAQ  (DX)(AX*1), DI
	XORQ  BX, BX

vprefetch:
	PREFETCHT0 (DI)(BX*1)
	ADDQ       $64, BX
	CMPQ       BX, CX
	JB         vprefetch

vnoprefetch:
	MOVL  (R9), AX
	IMULQ R8, AX
	LEAQ  (DX)(AX*1), DI

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	XORQ   BX, BX

	CMPQ BX, R12
	JAE  vreduce512

vloop128:
	VPMOVSXBW (DI)(BX*1), Z4
	VPMOVSXBW 32(DI)(BX*1), Z5
	VPMOVSXBW 64(DI)(BX*1), Z6
	VPMOVSXBW 96(DI)(BX*1), Z7
	VPDPWSSD  (SI)(BX*2), Z4, Z0
	VPDPWSSD  64(SI)(BX*2), Z5, Z1
	VPDPWSSD  128(SI)(BX*2), Z6, Z2
	VPDPWSSD  192(SI)(BX*2), Z7, Z3
	ADDQ      $128, BX
	CMPQ      BX, R12
	JB        vloop128

vreduce512:
	VPADDD        Z1, Z0, Z0
	VPADDD        Z3, Z2, Z2
	VPADDD        Z2, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0

	CMPQ BX, R13
	JAE  vreduce

vloop16:
	VPMOVSXBW (DI)(BX*1), Y4
	VPMADDWD  (SI)(BX*2), Y4, Y4
	VPADDD    Y4, Y0, Y0
	ADDQ      $16, BX
	CMPQ      BX, R13
	JB        vloop16

vreduce:
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX

	CMPQ BX, CX
	JAE  vstore

vtail:
	MOVBLSX (DI)(BX*1), R14
	MOVWLSX (SI)(BX*2), R15
	IMULL   R15, R14
	ADDL    R14, AX
	INCQ    BX
	CMPQ    BX, CX
	JB      vtail

vstore:
	MOVL AX, (R11)
	ADDQ $4, R9
	ADDQ $4, R11
	DECQ R10
	JNZ  vdoc

vdone:
	VZEROUPPER
	RET
