package vecindex

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPersistRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const dim = 64
	ix := New(dim)
	vec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for id := uint32(0); id < 3000; id++ {
		if err := ix.Put(id, vec()); err != nil {
			t.Fatal(err)
		}
	}
	for id := uint32(1024); id < 2048; id++ {
		ix.Remove(id) // a whole block freed
	}
	ix.Remove(5)
	ix.Put(70000, vec())
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), dim)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != ix.Len() || got.Has(5) || !got.Has(70000) || got.Has(1500) {
		t.Fatalf("len %d/%d", got.Len(), ix.Len())
	}
	for i := 0; i < 20; i++ {
		q := vec()
		if a, b := ix.Search(q, 10, nil), got.Search(q, 10, nil); !slices.Equal(a, b) {
			t.Fatalf("search differs: %v vs %v", a, b)
		}
	}
	v1, _ := ix.Get(42)
	v2, _ := got.Get(42)
	if !slices.Equal(v1, v2) {
		t.Fatal("vectors differ")
	}
	if err := got.Put(5, vec()); err != nil || !got.Has(5) {
		t.Fatal("read index not writable")
	}
	if _, err := Read(bytes.NewReader(buf.Bytes()), 32); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("other dimension: %v", err)
	}
	for _, n := range []int{0, 5, buf.Len() / 2, buf.Len() - 1} {
		if _, err := Read(bytes.NewReader(buf.Bytes()[:n]), dim); err == nil {
			t.Fatalf("truncated at %d accepted", n)
		}
	}
}
