// Package f16 owns IEEE 754 half-precision conversion: the embedder's
// weights and the embeddings infmem stores are kept in it.
package f16

import (
	"encoding/binary"
	"math"
)

// FromFloat32 converts to IEEE 754 binary16 with round-to-nearest-even,
// producing subnormals, infinities and quiet NaNs as the hardware would.
func FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b >> 23) & 0xff)
	mant := b & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp == 0 && mant == 0:
		return sign
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// Subnormal half (or zero): shift the mantissa with its implicit 1.
		if e < -10 {
			return sign
		}
		m := mant | 0x800000
		shift := uint(14 - e)
		half := uint32(1) << (shift - 1)
		r := m >> shift
		rem := m & (uint32(1)<<shift - 1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++ // may carry into the exponent, which is still correct (up to Inf)
	}
	return sign | uint16(r)
}

// ToFloat32 widens an IEEE 754 binary16 value exactly.
func ToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal half: normalise the mantissa into a float32 exponent.
	e := uint32(113)
	for mant&0x400 == 0 {
		mant <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
}

// Append encodes v as little-endian halves and appends them to dst.
func Append(dst []byte, v []float32) []byte {
	for _, f := range v {
		dst = binary.LittleEndian.AppendUint16(dst, FromFloat32(f))
	}
	return dst
}

// Decode widens little-endian halves into float32s; len(b) must be even.
func Decode(b []byte) []float32 { return DecodeInto(nil, b) }

// DecodeInto is Decode into dst's array when it has room for them, else
// into a new one.
func DecodeInto(dst []float32, b []byte) []float32 {
	out := dst[:0]
	if cap(out) < len(b)/2 {
		out = make([]float32, len(b)/2)
	}
	out = out[:len(b)/2]
	for i := range out {
		out[i] = ToFloat32(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}
