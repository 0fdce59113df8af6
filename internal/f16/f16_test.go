package f16

import (
	"math"
	"slices"
	"testing"
)

// refToFloat32 is an independent, obviously-correct decoder used only to check
// the encoder.
func refToFloat32(h uint16) float32 {
	sign := float64(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return float32(sign * mant * math.Pow(2, -24))
	case 0x1f:
		if mant != 0 {
			return float32(math.NaN())
		}
		return float32(sign * math.Inf(1))
	}
	return float32(sign * (1 + mant/1024) * math.Pow(2, float64(exp-15)))
}

func TestF16RoundTripsEveryHalf(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := refToFloat32(uint16(h))
		got := FromFloat32(f)
		if math.IsNaN(float64(f)) {
			if got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
				t.Fatalf("NaN %#04x encoded as %#04x, not a NaN", h, got)
			}
			continue
		}
		if got != uint16(h) {
			t.Fatalf("half %#04x -> %v -> %#04x", h, f, got)
		}
	}
}

func TestF16RoundsToNearestEven(t *testing.T) {
	for h := 0; h < 0x7bff; h++ {
		lo, hi := refToFloat32(uint16(h)), refToFloat32(uint16(h+1))
		mid := float32((float64(lo) + float64(hi)) / 2)
		want := uint16(h)
		if h&1 == 1 {
			want = uint16(h + 1)
		}
		if got := FromFloat32(mid); got != want {
			t.Fatalf("midpoint of %#04x and %#04x encoded as %#04x, want %#04x", h, h+1, got, want)
		}
		above := math.Nextafter32(mid, hi)
		if got := FromFloat32(above); got != uint16(h+1) {
			t.Fatalf("just above the midpoint of %#04x encoded as %#04x", h, got)
		}
	}
	if got := FromFloat32(70000); got != 0x7c00 {
		t.Fatalf("70000 encoded as %#04x, want +Inf", got)
	}
	if got := FromFloat32(1e-10); got != 0 {
		t.Fatalf("1e-10 encoded as %#04x, want 0", got)
	}
}

func TestToFloat32(t *testing.T) {
	for h := range 1 << 16 {
		got := ToFloat32(uint16(h))
		sign := 1.0
		if h&0x8000 != 0 {
			sign = -1
		}
		exp, mant := (h>>10)&0x1f, float64(h&0x3ff)
		var want float64
		switch exp {
		case 0:
			want = sign * mant * math.Pow(2, -24)
		case 0x1f:
			if mant != 0 {
				if !math.IsNaN(float64(got)) {
					t.Fatalf("%#04x: got %v, want NaN", h, got)
				}
				continue
			}
			want = sign * math.Inf(1)
		default:
			want = sign * (1 + mant/1024) * math.Pow(2, float64(exp-15))
		}
		if float64(got) != want || math.Signbit(float64(got)) != (sign < 0) {
			t.Fatalf("%#04x: got %v, want %v", h, got, want)
		}
	}
}

func TestAppendDecode(t *testing.T) {
	v := []float32{0, 1, -2.5, 0.1, 65504}
	got := Decode(Append(nil, v))
	for i := range v {
		if math.Abs(float64(got[i]-v[i])) > 1e-3*math.Max(1, math.Abs(float64(v[i]))) {
			t.Fatalf("%v -> %v", v, got)
		}
	}
}

// TestDecodeIntoReusesRoom: DecodeInto gives Decode's values, in dst's
// array when it has room, in a new one when not.
func TestDecodeIntoReusesRoom(t *testing.T) {
	v := []float32{0, 1, -2.5, 65504, 1e-7, float32(math.Inf(-1))}
	b := Append(nil, v)
	want := Decode(b)
	room := make([]float32, 2, 16)
	got := DecodeInto(room, b)
	if !slices.Equal(got, want) || &got[0] != &room[:1][0] {
		t.Fatalf("with room: %v (same array %v), want %v", got, &got[0] == &room[:1][0], want)
	}
	small := make([]float32, 1)
	got = DecodeInto(small, b)
	if !slices.Equal(got, want) || &got[0] == &small[0] {
		t.Fatalf("without room: %v, want %v in a new array", got, want)
	}
	if got := DecodeInto(nil, nil); len(got) != 0 {
		t.Fatalf("empty: %v", got)
	}
}
