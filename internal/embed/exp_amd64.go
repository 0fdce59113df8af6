//go:build amd64 && !purego

package embed

import "golang.org/x/sys/cpu"

// expShiftedAVX512 sets row[i] = float32(exp(float64(row[i] - mx))) for i
// < n, n a multiple of 8, in AVX-512 (exp_amd64.s).
//
//go:noescape
func expShiftedAVX512(row *float32, n int, mx float32)

// asm512: the CPU runs expShiftedAVX512 and normRowAVX512 (a variable
// for the tests).
var asm512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL

// expShifted sets row[i] = float32(math.Exp(float64(row[i] - mx))), eight
// at a time in AVX-512 where the CPU has it (an exp in float64 as exact as
// math.Exp's to a unit in the last place, so the float32 results are the
// same but when the exact value lies within a few float64 units of half a
// float32 unit: TestExpShiftedMatchesMathExp).
func expShifted(row []float32, mx float32) {
	n := 0
	if asm512 {
		if n = len(row) &^ 7; n > 0 {
			expShiftedAVX512(&row[0], n, mx)
		}
	}
	expShiftedGo(row[n:], mx)
}

// normRowAVX512 sets o[j] = (x[j]-mean)*(scale[j]*rs) + bias[j] for j < n,
// n a multiple of 16, in AVX-512 (exp_amd64.s).
//
//go:noescape
func normRowAVX512(o, x, scale, bias *float32, n int, mean, rs float32)

// normRow is layerNormOut's loop, sixteen at a time in AVX-512 where the
// CPU has it: the same operations in the same order, so the same bits.
func normRow(o, x []float32, mean, rs float32, scale, bias []float32) {
	n := 0
	if asm512 {
		if n = len(x) &^ 15; n > 0 {
			_, _, _ = o[n-1], scale[n-1], bias[n-1]
			normRowAVX512(&o[0], &x[0], &scale[0], &bias[0], n, mean, rs)
		}
	}
	normRowGo(o[n:], x[n:], mean, rs, scale[n:], bias[n:])
}
