package textindex

import (
	"math/rand/v2"
	"testing"
)

// SearchPending before an Add answers exactly what SearchQuery answers
// after it: the same documents, score bits and order, for the added
// document's own text as the query (the update check at store time) and
// for other queries, with filters, documents set aside, new words, reused
// and fresh ids.
func TestSearchPendingEqualsSearchAfterAdd(t *testing.T) {
	c := newCorpus(6)
	compared := 0
	for oi, o := range []Options{DefaultOptions(), {K1: 2, B: 1, StopWords: true}, {}} {
		rng := rand.New(rand.NewPCG(uint64(oi), 10))
		ix := New(o)
		docs := c.docs(3000, uint64(oi)+21)
		for i, d := range docs {
			ix.Add(DocID(i), d)
		}
		for range 200 {
			ix.Remove(DocID(rng.IntN(3000)))
		}
		for range 100 {
			ix.SetAside(DocID(rng.IntN(3000)), true)
		}
		bits := make([]bool, 4000)
		for i := range bits {
			bits[i] = rng.IntN(3) > 0
		}
		filters := []func(DocID) bool{nil, func(d DocID) bool { return bits[d] }}
		ks := []int{1, 4, 9, 60}
		for round := range 120 {
			// A fresh id, or one a removal freed.
			id := DocID(3000 + round)
			if round%2 == 0 {
				for id = DocID(rng.IntN(3000)); ix.Has(id); id = DocID(rng.IntN(3000)) {
				}
			}
			text := c.text(rng, 3, 60, c.word)
			switch round % 4 {
			case 1:
				text = docs[rng.IntN(len(docs))] // a copy: ties
			case 2:
				text += " zzqnew" + string(rune('a'+round%26)) + " zzqnew" // words no document holds
			}
			doc := ix.Analyze(text)
			queries := []Query{doc, ix.Analyze(c.text(rng, 3, 8, c.word)), ix.Analyze(c.text(rng, 3, 8, c.contentWord) + " zzqnew")}
			type answer struct {
				hits []Hit
				ok   bool
			}
			var before []answer
			for _, q := range queries {
				for _, k := range ks {
					for _, f := range filters {
						for _, admit := range []bool{true, false} {
							h, ok := ix.SearchPending(q, k, f, id, doc, admit)
							before = append(before, answer{h, ok})
						}
					}
				}
			}
			ix.Add(id, text)
			i := 0
			for qi, q := range queries {
				for _, k := range ks {
					for fi, f := range filters {
						for _, admit := range []bool{true, false} {
							after := ix.SearchQuery(q, k, func(d DocID) bool {
								if d == id {
									return admit
								}
								return f == nil || f(d)
							})
							g := before[i]
							i++
							if !g.ok {
								t.Fatalf("options %d round %d: not searched", oi, round)
							}
							if len(g.hits) != len(after) {
								t.Fatalf("options %d round %d query %d k %d filter %d admit %v: %d hits, %d after the add", oi, round, qi, k, fi, admit, len(g.hits), len(after))
							}
							for j := range after {
								if g.hits[j] != after[j] {
									t.Fatalf("options %d round %d query %d k %d filter %d admit %v: hit %d %+v, after the add %+v", oi, round, qi, k, fi, admit, j, g.hits[j], after[j])
								}
							}
							compared += len(after)
						}
					}
				}
			}
			if round%3 == 0 {
				ix.Remove(id) // and back to the collection without it
			}
		}
		// An id the index holds already is not searched.
		if _, ok := ix.SearchPending(ix.Analyze("anything"), 5, nil, docsHeld(ix), ix.Analyze("anything"), true); ok {
			t.Fatal("SearchPending searched for a document the index holds")
		}
	}
	if compared < 10000 {
		t.Fatalf("only %d hits compared", compared)
	}
}

func docsHeld(ix *Index) DocID {
	for d := DocID(0); ; d++ {
		if ix.Has(d) {
			return d
		}
	}
}
