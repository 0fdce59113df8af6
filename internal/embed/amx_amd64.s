//go:build amd64 && !purego

#include "textflag.h"

// The Go assembler knows neither the AMX instructions nor VCVTNE2PS2BF16,
// so they are written as bytes (encodings from GNU as 2.40); each comment
// gives the instruction in Intel syntax. The registers are fixed by the
// encodings: A tiles are read at (AX)(R8*1) and (DI)(R8*1), B tiles at
// (BX)(R10*1) and (CX)(R10*1), C tiles at (DX)(R9*1) and (CX)(R9*1).

// func amxPairBF16(cfg *byte, a *uint16, lda int, b *uint16, k int, c *float32, ldc int, rowPairs int, bias *float32)
//
// With bias not nil, C = bias + A·B: the C tiles start as 32 copies of the
// 32 bias values (a tile load with stride 0) instead of C's rows.
// For each block of 32 rows: load the 32×32 float32 block of C into tiles
// 0–3, then for every 32 values of k load two 16-row tiles of A (4, 5) and
// the two panels' tiles of 16 k-pairs (6, 7) and issue four TDPBF16PS
// (C += A·B, bf16 products summed in float32), then store the block back.
// Everything between LDTILECFG and TILERELEASE is in this function, with
// no call, so a goroutine never leaves it with live tiles (Go never
// preempts assembly asynchronously; the kernel saves the tiles on signals
// and context switches once the process has the permission).
TEXT ·amxPairBF16(SB), NOSPLIT, $0-72
	MOVQ cfg+0(FP), DI
	BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0x07 // ldtilecfg [rdi]
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	SHLQ $1, R8 // A row stride in bytes
	MOVQ b+24(FP), R12
	MOVQ k+32(FP), R13
	SHLQ $5, R13
	ADDQ R12, R13 // second panel: k rows of 16 halves further; also the first one's end
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R9
	SHLQ $2, R9 // C row stride in bytes
	MOVQ rowPairs+56(FP), R14
	MOVQ $64, R10 // B tile row stride

rows:
	MOVQ R9, CX
	SHLQ $4, CX
	ADDQ DX, CX // C row 16 of the block
	MOVQ bias+64(FP), AX
	TESTQ AX, AX
	JNZ  biasload
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x04; BYTE $0x0a             // tileloadd tmm0, [rdx+r9]
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x4c; BYTE $0x0a; BYTE $0x40 // tileloadd tmm1, [rdx+r9+64]
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x14; BYTE $0x09             // tileloadd tmm2, [rcx+r9]
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x5c; BYTE $0x09; BYTE $0x40 // tileloadd tmm3, [rcx+r9+64]
	JMP  cloaded

biasload:
	XORQ R11, R11 // stride 0: every row of the tile is the 16 bias values
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x04; BYTE $0x18             // tileloadd tmm0, [rax+r11]
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x4c; BYTE $0x18; BYTE $0x40 // tileloadd tmm1, [rax+r11+64]
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x14; BYTE $0x18             // tileloadd tmm2, [rax+r11]
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x5c; BYTE $0x18; BYTE $0x40 // tileloadd tmm3, [rax+r11+64]

cloaded:
	MOVQ SI, AX // A rows 0-15
	MOVQ R8, DI
	SHLQ $4, DI
	ADDQ SI, DI // A rows 16-31
	MOVQ R12, BX // first panel
	MOVQ R13, CX // second panel

kloop:
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x24; BYTE $0x00 // tileloadd tmm4, [rax+r8]
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x2c; BYTE $0x07 // tileloadd tmm5, [rdi+r8]
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x34; BYTE $0x13 // tileloadd tmm6, [rbx+r10]
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x3c; BYTE $0x11 // tileloadd tmm7, [rcx+r10]
	BYTE $0xc4; BYTE $0xe2; BYTE $0x4a; BYTE $0x5c; BYTE $0xc4             // tdpbf16ps tmm0, tmm4, tmm6
	BYTE $0xc4; BYTE $0xe2; BYTE $0x42; BYTE $0x5c; BYTE $0xcc             // tdpbf16ps tmm1, tmm4, tmm7
	BYTE $0xc4; BYTE $0xe2; BYTE $0x4a; BYTE $0x5c; BYTE $0xd5             // tdpbf16ps tmm2, tmm5, tmm6
	BYTE $0xc4; BYTE $0xe2; BYTE $0x42; BYTE $0x5c; BYTE $0xdd             // tdpbf16ps tmm3, tmm5, tmm7
	ADDQ $64, AX   // 32 values of k
	ADDQ $64, DI
	ADDQ $1024, BX // 16 k-pairs of 16 columns
	ADDQ $1024, CX
	CMPQ BX, R13
	JNE  kloop

	MOVQ R9, CX
	SHLQ $4, CX
	ADDQ DX, CX
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7a; BYTE $0x4b; BYTE $0x04; BYTE $0x0a             // tilestored [rdx+r9], tmm0
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7a; BYTE $0x4b; BYTE $0x4c; BYTE $0x0a; BYTE $0x40 // tilestored [rdx+r9+64], tmm1
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7a; BYTE $0x4b; BYTE $0x14; BYTE $0x09             // tilestored [rcx+r9], tmm2
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7a; BYTE $0x4b; BYTE $0x5c; BYTE $0x09; BYTE $0x40 // tilestored [rcx+r9+64], tmm3

	MOVQ R8, AX
	SHLQ $5, AX
	ADDQ AX, SI // next 32 rows of A
	MOVQ R9, AX
	SHLQ $5, AX
	ADDQ AX, DX // and of C
	DECQ R14
	JNZ  rows

	BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0xc0 // tilerelease
	RET

// func cvtBF16AVX512(dst *uint16, src *float32, n int)
TEXT ·cvtBF16AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $5, CX

cvt:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	BYTE $0x62; BYTE $0xf2; BYTE $0x77; BYTE $0x48; BYTE $0x72; BYTE $0xd0 // vcvtne2ps2bf16 zmm2, zmm1, zmm0
	VMOVDQU32 Z2, (DI)
	ADDQ $128, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  cvt
	VZEROUPPER
	RET

// func cvtBF16ReLUAVX512(dst *uint16, src *float32, n int)
//
// cvtBF16AVX512 of max(src, +0): MAXPS gives its second source, +0, unless
// the first (the value) is greater, so negative values and zeros of either
// sign become +0.
TEXT ·cvtBF16ReLUAVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $5, CX
	VPXORD Z3, Z3, Z3

cvtrelu:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	VMAXPS Z3, Z0, Z0 // maxps zmm0, zmm0, zmm3
	VMAXPS Z3, Z1, Z1
	BYTE $0x62; BYTE $0xf2; BYTE $0x77; BYTE $0x48; BYTE $0x72; BYTE $0xd0 // vcvtne2ps2bf16 zmm2, zmm1, zmm0
	VMOVDQU32 Z2, (DI)
	ADDQ $128, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  cvtrelu
	VZEROUPPER
	RET
