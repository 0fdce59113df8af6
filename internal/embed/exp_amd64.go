//go:build amd64 && !purego

package embed

import "golang.org/x/sys/cpu"

// expShiftedAVX512 sets row[i] = float32(exp(float64(row[i] - mx))) for i
// < n, n a multiple of 8, in AVX-512 (exp_amd64.s).
//
//go:noescape
func expShiftedAVX512(row *float32, n int, mx float32)

// expAsm: the CPU runs expShiftedAVX512 (a variable for the tests).
var expAsm = false && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL

// expShifted sets row[i] = float32(math.Exp(float64(row[i] - mx))), eight
// at a time in AVX-512 where the CPU has it (an exp in float64 as exact as
// math.Exp's to a unit in the last place, so the float32 results are the
// same but when the exact value lies within a few float64 units of half a
// float32 unit: TestExpShiftedMatchesMathExp).
func expShifted(row []float32, mx float32) {
	n := 0
	if expAsm {
		if n = len(row) &^ 7; n > 0 {
			expShiftedAVX512(&row[0], n, mx)
		}
	}
	expShiftedGo(row[n:], mx)
}
