package textindex

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPersistRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"apollo", "deadline", "june", "alice", "birthday", "launch", "product", "week", "garden", "running", "runs", "café"}
	ix := New(DefaultOptions())
	for id := DocID(0); id < 500; id++ {
		var b bytes.Buffer
		for n := 1 + rng.IntN(12); n > 0; n-- {
			fmt.Fprintf(&b, "%s ", words[rng.IntN(len(words))])
		}
		ix.Add(id, b.String())
	}
	for id := DocID(0); id < 500; id += 7 {
		ix.Remove(id)
	}
	ix.Add(9999, "a lone document far away about gardens")
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != ix.Len() || got.Stats().Postings != ix.Stats().Postings {
		t.Fatalf("len %d/%d postings %d/%d", got.Len(), ix.Len(), got.Stats().Postings, ix.Stats().Postings)
	}
	for _, q := range []string{"apollo deadline", "garden", "café running", "birthday of alice in june", "nothing here"} {
		a, b := ix.Search(q, 20, nil), got.Search(q, 20, nil)
		if !slices.Equal(a, b) {
			t.Fatalf("%q: %v vs %v", q, a, b)
		}
	}
	// The read index keeps working: add, remove, search.
	got.Add(1, "brand new apollo note")
	got.Remove(9999)
	if hits := got.Search("brand new", 5, nil); len(hits) != 1 || hits[0].ID != 1 {
		t.Fatalf("after edits: %v", hits)
	}
	if _, err := Read(bytes.NewReader(buf.Bytes()), Options{K1: 1, B: 0.5}); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("other options: %v", err)
	}
	for _, n := range []int{0, 3, 10, buf.Len() / 2, buf.Len() - 1} {
		if _, err := Read(bytes.NewReader(buf.Bytes()[:n]), DefaultOptions()); err == nil {
			t.Fatalf("truncated at %d accepted", n)
		}
	}
}
