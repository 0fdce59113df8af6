//go:build amd64 && !purego

#include "textflag.h"

// Constants of expShiftedAVX512: log2(e), ln(2) split in two (fdlibm's
// ln2HI, ln2LO), then the Taylor coefficients 1/k! for k = 13 down to 0.
DATA expConsts<>+0(SB)/8, $1.4426950408889634
DATA expConsts<>+8(SB)/8, $6.93147180369123816490e-01
DATA expConsts<>+16(SB)/8, $1.90821492927058770002e-10
DATA expConsts<>+24(SB)/8, $1.6059043836821613e-10
DATA expConsts<>+32(SB)/8, $2.08767569878681e-09
DATA expConsts<>+40(SB)/8, $2.505210838544172e-08
DATA expConsts<>+48(SB)/8, $2.755731922398589e-07
DATA expConsts<>+56(SB)/8, $2.7557319223985893e-06
DATA expConsts<>+64(SB)/8, $2.48015873015873e-05
DATA expConsts<>+72(SB)/8, $0.0001984126984126984
DATA expConsts<>+80(SB)/8, $0.001388888888888889
DATA expConsts<>+88(SB)/8, $0.008333333333333333
DATA expConsts<>+96(SB)/8, $0.041666666666666664
DATA expConsts<>+104(SB)/8, $0.16666666666666666
DATA expConsts<>+112(SB)/8, $0.5
DATA expConsts<>+120(SB)/8, $1.0
DATA expConsts<>+128(SB)/8, $1.0
GLOBL expConsts<>(SB), RODATA|NOPTR, $136

// func expShiftedAVX512(row *float32, n int, mx float32)
// row[i] = float32(exp(float64(row[i] - mx))) for i < n, n a multiple of
// 8: exp in float64 (Cody-Waite reduction by ln 2, a degree-13 Taylor
// polynomial on |r| <= ln(2)/2, VSCALEFPD for the power of two).
TEXT ·expShiftedAVX512(SB), NOSPLIT, $0-20
	MOVQ row+0(FP), DI
	MOVQ n+8(FP), CX
	VBROADCASTSS mx+16(FP), Y15
	LEAQ expConsts<>(SB), AX
	VBROADCASTSD 0(AX), Z16   // log2(e)
	VBROADCASTSD 8(AX), Z17   // ln2 hi
	VBROADCASTSD 16(AX), Z18  // ln2 lo
	VBROADCASTSD 24(AX), Z19  // 1/13!
	VBROADCASTSD 32(AX), Z20  // 1/12!
	VBROADCASTSD 40(AX), Z21  // 1/11!
	VBROADCASTSD 48(AX), Z22  // 1/10!
	VBROADCASTSD 56(AX), Z23  // 1/9!
	VBROADCASTSD 64(AX), Z24  // 1/8!
	VBROADCASTSD 72(AX), Z25  // 1/7!
	VBROADCASTSD 80(AX), Z26  // 1/6!
	VBROADCASTSD 88(AX), Z27  // 1/5!
	VBROADCASTSD 96(AX), Z28  // 1/4!
	VBROADCASTSD 104(AX), Z29 // 1/3!
	VBROADCASTSD 112(AX), Z30 // 1/2!
	VBROADCASTSD 120(AX), Z31 // 1/1!
	VBROADCASTSD 128(AX), Z14 // 1/0!

loop:
	CMPQ CX, $8
	JLT  done
	VMOVUPS   (DI), Y0
	VSUBPS    Y15, Y0, Y0          // v - mx, in float32 as Go computes it
	VCVTPS2PD Y0, Z0               // x
	VMULPD    Z16, Z0, Z1
	VRNDSCALEPD $0, Z1, Z1         // k = round(x / ln 2)
	VMOVAPD   Z0, Z2
	VFNMADD231PD Z17, Z1, Z2       // r = x - k*ln2hi
	VFNMADD231PD Z18, Z1, Z2       // r -= k*ln2lo
	VMOVAPD   Z19, Z3
	VFMADD213PD Z20, Z2, Z3        // p = p*r + c
	VFMADD213PD Z21, Z2, Z3
	VFMADD213PD Z22, Z2, Z3
	VFMADD213PD Z23, Z2, Z3
	VFMADD213PD Z24, Z2, Z3
	VFMADD213PD Z25, Z2, Z3
	VFMADD213PD Z26, Z2, Z3
	VFMADD213PD Z27, Z2, Z3
	VFMADD213PD Z28, Z2, Z3
	VFMADD213PD Z29, Z2, Z3
	VFMADD213PD Z30, Z2, Z3
	VFMADD213PD Z31, Z2, Z3
	VFMADD213PD Z14, Z2, Z3
	VSCALEFPD Z1, Z3, Z3           // p * 2^k
	VCVTPD2PS Z3, Y3
	VMOVUPS   Y3, (DI)
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  loop

done:
	VZEROUPPER
	RET

// func normRowAVX512(o, x, scale, bias *float32, n int, mean, rs float32)
// o[j] = (x[j]-mean)*(scale[j]*rs) + bias[j] for j < n, n a multiple of
// 16: each operation rounded to float32 in that order, as Go computes it.
TEXT ·normRowAVX512(SB), NOSPLIT, $0-48
	MOVQ o+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ scale+16(FP), R8
	MOVQ bias+24(FP), R9
	MOVQ n+32(FP), CX
	VBROADCASTSS mean+40(FP), Z14
	VBROADCASTSS rs+44(FP), Z15

normloop:
	CMPQ CX, $16
	JLT  normdone
	VMOVUPS (SI), Z0
	VSUBPS  Z14, Z0, Z0     // x - mean
	VMOVUPS (R8), Z1
	VMULPS  Z15, Z1, Z1     // scale*rs
	VMULPS  Z1, Z0, Z0      // (x-mean)*(scale*rs)
	VADDPS  (R9), Z0, Z0    // + bias
	VMOVUPS Z0, (DI)
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, R8
	ADDQ $64, R9
	SUBQ $16, CX
	JMP  normloop

normdone:
	VZEROUPPER
	RET
