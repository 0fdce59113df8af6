//go:build amd64 && !purego

#include "textflag.h"

// The Go assembler does not know VDPBF16PS, so it is written as bytes
// (encodings from GNU as 2.40), each with the instruction in Intel syntax
// beside it. The encodings fix the registers: the weights in Z16 and Z17,
// A's rows read at (AX), (AX)(R8*1), (AX)(R8*2), (AX)(R11*1) and the same
// from DI, the sums in Z0–Z15 (row r, panel p in Z(2r+p)).

// func vdpPairBF16(a *uint16, lda int, b *uint16, k int, c *float32, ldc int, rowQuads int, bias *float32)
//
// For each block of eight rows (then of four): load the rows' 32 values of
// C (or, with bias not nil, 32 copies of the bias) into Z0–Z15, then for
// every pair of k values load the two panels' 16 pairs of weights (Z16,
// Z17) and issue one VDPBF16PS per row and panel, with the row's pair of
// bf16 activations broadcast from memory (C += a[2i]·w[2i] + a[2i+1]·w[2i+1]
// in float32), then store the block back.
TEXT ·vdpPairBF16(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	SHLQ $1, R8 // A row stride in bytes
	LEAQ (R8)(R8*2), R11
	MOVQ b+16(FP), R12
	MOVQ k+24(FP), R13
	SHLQ $5, R13
	ADDQ R12, R13 // second panel: k rows of 16 halves further; also the first one's end
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R9
	SHLQ $2, R9 // C row stride in bytes
	LEAQ (R9)(R9*2), R10
	MOVQ rowQuads+48(FP), R14

octs:
	CMPQ R14, $2
	JLT  quads
	LEAQ (DX)(R9*4), CX // C row 4 of the block
	MOVQ bias+56(FP), AX
	TESTQ AX, AX
	JNZ  obias
	VMOVUPS (DX), Z0
	VMOVUPS 64(DX), Z1
	VMOVUPS (DX)(R9*1), Z2
	VMOVUPS 64(DX)(R9*1), Z3
	VMOVUPS (DX)(R9*2), Z4
	VMOVUPS 64(DX)(R9*2), Z5
	VMOVUPS (DX)(R10*1), Z6
	VMOVUPS 64(DX)(R10*1), Z7
	VMOVUPS (CX), Z8
	VMOVUPS 64(CX), Z9
	VMOVUPS (CX)(R9*1), Z10
	VMOVUPS 64(CX)(R9*1), Z11
	VMOVUPS (CX)(R9*2), Z12
	VMOVUPS 64(CX)(R9*2), Z13
	VMOVUPS (CX)(R10*1), Z14
	VMOVUPS 64(CX)(R10*1), Z15
	JMP  oloaded

obias:
	VMOVUPS (AX), Z0
	VMOVUPS 64(AX), Z1
	VMOVAPS Z0, Z2
	VMOVAPS Z1, Z3
	VMOVAPS Z0, Z4
	VMOVAPS Z1, Z5
	VMOVAPS Z0, Z6
	VMOVAPS Z1, Z7
	VMOVAPS Z0, Z8
	VMOVAPS Z1, Z9
	VMOVAPS Z0, Z10
	VMOVAPS Z1, Z11
	VMOVAPS Z0, Z12
	VMOVAPS Z1, Z13
	VMOVAPS Z0, Z14
	VMOVAPS Z1, Z15

oloaded:
	MOVQ SI, AX // A rows 0-3
	LEAQ (SI)(R8*4), DI // A rows 4-7
	MOVQ R12, BX // first panel
	MOVQ R13, CX // second panel

okloop:
	VMOVUPS (BX), Z16
	VMOVUPS (CX), Z17
	BYTE $0x62; BYTE $0xf2; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x00             // vdpbf16ps zmm0, zmm16, dword bcst [rax]
	BYTE $0x62; BYTE $0xf2; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x08             // vdpbf16ps zmm1, zmm17, dword bcst [rax]
	BYTE $0x62; BYTE $0xb2; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x14; BYTE $0x00 // vdpbf16ps zmm2, zmm16, dword bcst [rax+r8*1]
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x1c; BYTE $0x00 // vdpbf16ps zmm3, zmm17, dword bcst [rax+r8*1]
	BYTE $0x62; BYTE $0xb2; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x24; BYTE $0x40 // vdpbf16ps zmm4, zmm16, dword bcst [rax+r8*2]
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x2c; BYTE $0x40 // vdpbf16ps zmm5, zmm17, dword bcst [rax+r8*2]
	BYTE $0x62; BYTE $0xb2; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x34; BYTE $0x18 // vdpbf16ps zmm6, zmm16, dword bcst [rax+r11*1]
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x3c; BYTE $0x18 // vdpbf16ps zmm7, zmm17, dword bcst [rax+r11*1]
	BYTE $0x62; BYTE $0x72; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x07             // vdpbf16ps zmm8, zmm16, dword bcst [rdi]
	BYTE $0x62; BYTE $0x72; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x0f             // vdpbf16ps zmm9, zmm17, dword bcst [rdi]
	BYTE $0x62; BYTE $0x32; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x14; BYTE $0x07 // vdpbf16ps zmm10, zmm16, dword bcst [rdi+r8*1]
	BYTE $0x62; BYTE $0x32; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x1c; BYTE $0x07 // vdpbf16ps zmm11, zmm17, dword bcst [rdi+r8*1]
	BYTE $0x62; BYTE $0x32; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x24; BYTE $0x47 // vdpbf16ps zmm12, zmm16, dword bcst [rdi+r8*2]
	BYTE $0x62; BYTE $0x32; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x2c; BYTE $0x47 // vdpbf16ps zmm13, zmm17, dword bcst [rdi+r8*2]
	BYTE $0x62; BYTE $0x32; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x34; BYTE $0x1f // vdpbf16ps zmm14, zmm16, dword bcst [rdi+r11*1]
	BYTE $0x62; BYTE $0x32; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x3c; BYTE $0x1f // vdpbf16ps zmm15, zmm17, dword bcst [rdi+r11*1]
	ADDQ $4, AX // two values of k
	ADDQ $4, DI
	ADDQ $64, BX // one pair of k rows of 16 columns
	ADDQ $64, CX
	CMPQ BX, R13
	JNE  okloop

	LEAQ (DX)(R9*4), CX
	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	VMOVUPS Z2, (DX)(R9*1)
	VMOVUPS Z3, 64(DX)(R9*1)
	VMOVUPS Z4, (DX)(R9*2)
	VMOVUPS Z5, 64(DX)(R9*2)
	VMOVUPS Z6, (DX)(R10*1)
	VMOVUPS Z7, 64(DX)(R10*1)
	VMOVUPS Z8, (CX)
	VMOVUPS Z9, 64(CX)
	VMOVUPS Z10, (CX)(R9*1)
	VMOVUPS Z11, 64(CX)(R9*1)
	VMOVUPS Z12, (CX)(R9*2)
	VMOVUPS Z13, 64(CX)(R9*2)
	VMOVUPS Z14, (CX)(R10*1)
	VMOVUPS Z15, 64(CX)(R10*1)
	LEAQ (SI)(R8*8), SI // next 8 rows of A
	LEAQ (DX)(R9*8), DX // and of C
	SUBQ $2, R14
	JMP  octs

quads:
	TESTQ R14, R14
	JZ   done
	MOVQ bias+56(FP), AX
	TESTQ AX, AX
	JNZ  qbias
	VMOVUPS (DX), Z0
	VMOVUPS 64(DX), Z1
	VMOVUPS (DX)(R9*1), Z2
	VMOVUPS 64(DX)(R9*1), Z3
	VMOVUPS (DX)(R9*2), Z4
	VMOVUPS 64(DX)(R9*2), Z5
	VMOVUPS (DX)(R10*1), Z6
	VMOVUPS 64(DX)(R10*1), Z7
	JMP  qloaded

qbias:
	VMOVUPS (AX), Z0
	VMOVUPS 64(AX), Z1
	VMOVAPS Z0, Z2
	VMOVAPS Z1, Z3
	VMOVAPS Z0, Z4
	VMOVAPS Z1, Z5
	VMOVAPS Z0, Z6
	VMOVAPS Z1, Z7

qloaded:
	MOVQ SI, AX
	MOVQ R12, BX
	MOVQ R13, CX

qkloop:
	VMOVUPS (BX), Z16
	VMOVUPS (CX), Z17
	BYTE $0x62; BYTE $0xf2; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x00             // vdpbf16ps zmm0, zmm16, dword bcst [rax]
	BYTE $0x62; BYTE $0xf2; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x08             // vdpbf16ps zmm1, zmm17, dword bcst [rax]
	BYTE $0x62; BYTE $0xb2; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x14; BYTE $0x00 // vdpbf16ps zmm2, zmm16, dword bcst [rax+r8*1]
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x1c; BYTE $0x00 // vdpbf16ps zmm3, zmm17, dword bcst [rax+r8*1]
	BYTE $0x62; BYTE $0xb2; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x24; BYTE $0x40 // vdpbf16ps zmm4, zmm16, dword bcst [rax+r8*2]
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x2c; BYTE $0x40 // vdpbf16ps zmm5, zmm17, dword bcst [rax+r8*2]
	BYTE $0x62; BYTE $0xb2; BYTE $0x7e; BYTE $0x50; BYTE $0x52; BYTE $0x34; BYTE $0x18 // vdpbf16ps zmm6, zmm16, dword bcst [rax+r11*1]
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x50; BYTE $0x52; BYTE $0x3c; BYTE $0x18 // vdpbf16ps zmm7, zmm17, dword bcst [rax+r11*1]
	ADDQ $4, AX
	ADDQ $64, BX
	ADDQ $64, CX
	CMPQ BX, R13
	JNE  qkloop

	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	VMOVUPS Z2, (DX)(R9*1)
	VMOVUPS Z3, 64(DX)(R9*1)
	VMOVUPS Z4, (DX)(R9*2)
	VMOVUPS Z5, 64(DX)(R9*2)
	VMOVUPS Z6, (DX)(R10*1)
	VMOVUPS Z7, 64(DX)(R10*1)

done:
	VZEROUPPER
	RET
