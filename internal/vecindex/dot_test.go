package vecindex

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// kernels lists every dot-product kernel this build can run.
func kernels() map[string]dotsFunc {
	ks := map[string]dotsFunc{"go": dotsGo}
	for name, k := range asmKernels() {
		ks[name] = k
	}
	return ks
}

// dotsRef is the definition the kernels implement, one product at a time.
func dotsRef(q []int16, codes []int8, stride int, ids []uint32) []int32 {
	out := make([]int32, len(ids))
	for j, id := range ids {
		var s int32
		for i := range q {
			s += int32(codes[int(id)*stride+i]) * int32(q[i])
		}
		out[j] = s
	}
	return out
}

func randCase(r *rand.Rand, n, rows, extra int, extreme bool) (q []int16, codes []int8, stride int, ids []uint32) {
	stride = n + extra
	q = make([]int16, n)
	codes = make([]int8, rows*stride)
	for i := range q {
		q[i] = int16(r.IntN(1 << 16))
		if extreme {
			q[i] = []int16{-32768, 32767, -1, 0}[r.IntN(4)]
		}
	}
	for i := range codes {
		codes[i] = int8(r.IntN(256))
		if extreme {
			codes[i] = []int8{-128, 127, -1}[r.IntN(3)]
		}
	}
	ids = make([]uint32, 1+r.IntN(2*rows))
	for j := range ids {
		ids[j] = uint32(r.IntN(rows))
	}
	return q, codes, stride, ids
}

func TestKernelsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for name, k := range kernels() {
		for n := 0; n <= 300; n++ {
			for _, extreme := range []bool{false, true} {
				q, codes, stride, ids := randCase(r, n, 5, r.IntN(40), extreme)
				want := dotsRef(q, codes, stride, ids)
				got := make([]int32, len(ids)+1)
				got[len(ids)] = 12345 // must not be written
				k(q, codes, stride, ids, got)
				for j := range want {
					if got[j] != want[j] {
						t.Fatalf("%s: n=%d extreme=%v row %d: got %d, want %d", name, n, extreme, ids[j], got[j], want[j])
					}
				}
				if got[len(ids)] != 12345 {
					t.Fatalf("%s: n=%d wrote past the output", name, n)
				}
			}
		}
	}
}

// TestKernelsExtremes pins the corners: every code at -128 or 127 against
// every query code at -32768 or 32767, at lengths around the loop widths.
func TestKernelsExtremes(t *testing.T) {
	for name, k := range kernels() {
		for _, n := range []int{1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 511, 512, 513} {
			for _, c := range []int8{-128, 127} {
				for _, qv := range []int16{-32768, 32767} {
					q := make([]int16, n)
					codes := make([]int8, n)
					for i := range q {
						q[i], codes[i] = qv, c
					}
					got := []int32{0}
					k(q, codes, n, []uint32{0}, got)
					if want := dotsRef(q, codes, n, []uint32{0})[0]; got[0] != want {
						t.Errorf("%s: n=%d code %d query %d: got %d, want %d", name, n, c, qv, got[0], want)
					}
				}
			}
		}
	}
}

func TestKernelsPanicOutOfBounds(t *testing.T) {
	for name, k := range kernels() {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic for a row past the end of codes")
				}
			}()
			q := make([]int16, 16)
			codes := make([]int8, 2*16)
			k(q, codes, 16, []uint32{0, 2}, make([]int32, 2))
		})
	}
}

func FuzzKernels(f *testing.F) {
	f.Add([]byte{1, 2, 3}, []byte{4, 5, 6}, uint8(1))
	f.Add(make([]byte, 1030), make([]byte, 515), uint8(3))
	f.Fuzz(func(t *testing.T, qb, cb []byte, rows uint8) {
		n := len(qb) / 2
		nr := int(rows%8) + 1
		if n == 0 || len(cb) < n {
			return
		}
		stride := len(cb) / nr
		if stride < n {
			nr = 1
			stride = len(cb)
		}
		q := make([]int16, n)
		for i := range q {
			q[i] = int16(uint16(qb[2*i]) | uint16(qb[2*i+1])<<8)
		}
		codes := make([]int8, len(cb))
		for i, b := range cb {
			codes[i] = int8(b)
		}
		ids := make([]uint32, nr)
		for j := range ids {
			ids[j] = uint32(nr - 1 - j)
		}
		want := dotsRef(q, codes, stride, ids)
		for name, k := range kernels() {
			got := make([]int32, nr)
			k(q, codes, stride, ids, got)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: got %v, want %v", name, got, want)
			}
		}
	})
}
