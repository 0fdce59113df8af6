package vecindex

import (
	"errors"
	"math"
)

// docMax is the largest magnitude of a stored code. Keeping -128 out makes
// the code range symmetric, so a vector and its negation have the same codes
// up to sign, and bounds the dot product for queryMaxFor.
const docMax = 127

// queryMaxFor returns the largest query code magnitude for which no dot
// product of dim codes can overflow int32: dim·docMax·qmax ≤ 2³¹-1. It is
// the full int16 range up to dimension 516.
func queryMaxFor(dim int) int32 {
	return int32(min(math.MaxInt16, math.MaxInt32/(docMax*dim)))
}

var errNotFinite = errors.New("vector has a NaN or infinite component")

// maxAbs returns the largest magnitude of v's components. It compares the
// IEEE bits with the sign cleared, which order finite values like their
// magnitudes and put NaN and infinities above them all.
func maxAbs(v []float32) (float64, error) {
	var top uint32
	for _, x := range v {
		top = max(top, math.Float32bits(x)&^(1<<31))
	}
	if top >= 0x7f800000 {
		return 0, errNotFinite
	}
	return float64(math.Float32frombits(top)), nil
}

// encoded is one stored vector.
type encoded struct {
	codes []int8   // round(x·127/max|x|), ties to even
	signs []uint64 // bit i: the rounding residual of component i is >= 0
	// scale makes the codes a unit vector: v/|v| ≈ scale·codes, with
	// |scale·codes| = 1. 0 for a zero vector.
	scale float32
	// fine is 1/|4·codes + 2·signs - 1|: the scale of the refined codes
	// c + (±1)/4, which place each component in the half of its rounding
	// interval where it lies and so halve the rounding error. 0 when the
	// refinement does not lower the vector's total error, as for sparse
	// vectors whose exact zeros it would move.
	fine float32
	// delta bounds how far a refined score can be from the int8 score, for
	// any query: |ŵ - û| for the unit refined and int8 vectors ŵ and û.
	delta float32
}

// encode quantises v into e, whose codes and signs must have the right
// lengths (len(v) and (len(v)+63)/64).
//
// The codes are normalised to unit length rather than scaled by the step
// max|x|/127. It matters when rounding errors are correlated with the vector,
// as for the hash embedder, whose components sit on a lattice: there the plain
// step makes even an identical document score visibly below 1 and reorders
// near-ties.
func encode(v []float32, e *encoded) error {
	top, err := maxAbs(v)
	if err != nil {
		return err
	}
	clear(e.signs)
	e.scale, e.fine, e.delta = 0, 0, 0
	if top == 0 {
		clear(e.codes)
		return nil
	}
	m := docMax / top
	// Sums of integers, exact in float64: cc = Σ c², cs = Σ c·s for the
	// refinement sign s = ±1; the refined codes are 4c + s.
	var cc, cs, e8, e9 float64
	for i, x := range v {
		y := float64(x) * m
		c := math.RoundToEven(y)
		e.codes[i] = int8(c)
		r := y - c
		// Taken from r's sign bit, without a branch: whether a component
		// rounded up or down is a coin toss the CPU cannot predict.
		e.signs[i>>6] |= (1 ^ math.Float64bits(r)>>63) << (i & 63)
		cc += c * c
		cs += c * math.Copysign(1, r)
		a := math.Abs(r)
		e8 += a * a
		e9 += (a - 0.25) * (a - 0.25)
	}
	e.scale = float32(1 / math.Sqrt(cc))
	if e9 < e8 {
		ff := 16*cc + 8*cs + float64(len(v)) // Σ (4c + s)²
		cf := 4*cc + cs                      // Σ c·(4c + s)
		e.fine = float32(1 / math.Sqrt(ff))
		cos := cf / math.Sqrt(cc*ff)
		// Slack for the float32 rounding of the two scores compared.
		e.delta = float32(math.Sqrt(max(0, 2-2*cos)) + 1e-6)
	}
	return nil
}

// quantizeQuery writes q's codes to dst (len(dst) == len(q)), of magnitude at
// most qmax, and returns the scale that makes them a unit vector (0 for a
// zero query).
func quantizeQuery(q []float32, dst []int16, qmax int32) (scale float32, err error) {
	top, err := maxAbs(q)
	if err != nil {
		return 0, err
	}
	if top == 0 {
		clear(dst)
		return 0, nil
	}
	m := float64(qmax) / top
	var ss float64
	for i, x := range q {
		c := math.RoundToEven(float64(x) * m)
		dst[i] = int16(c)
		ss += c * c
	}
	return float32(1 / math.Sqrt(ss)), nil
}
