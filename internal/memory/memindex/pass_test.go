package memindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func randVec(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// passIndex holds n memories with random vectors in scopes A, B and C.
func passIndex(t *testing.T, r *rand.Rand, n, dim int) (*Index, []bson.ObjectID) {
	t.Helper()
	ix := New(dim, time.UTC)
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []bson.ObjectID
	for i := range n {
		id := bson.NewObjectID()
		text := fmt.Sprintf("memory number %d", i)
		ix.Put(Doc{ID: id, Kind: KindMemory, Text: text, Source: "note", Scope: []string{"A", "B", "C"}[i%3],
			TS: at.Add(time.Duration(i) * time.Minute), Created: at, Key: key(text), Vec: randVec(r, dim)})
		ids = append(ids, id)
	}
	return ix, ids
}

// usePass returns what Rank takes from q.Pass, and whether it could.
func usePass(ix *Index, q RankQuery) ([]uint32, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(q.Filter)
	allowed, _ := ix.allowedLocked(&c)
	hits, ok := ix.passHitsLocked(&q, allowed)
	var slots []uint32
	for _, h := range hits {
		slots = append(slots, h.ID)
	}
	return slots, ok
}

// scanned returns the slots a scan now draws for q.
func scanned(ix *Index, q RankQuery) []uint32 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(q.Filter)
	allowed, _ := ix.allowedLocked(&c)
	var slots []uint32
	for _, h := range ix.vecs.Search(q.Vector, q.Candidates, allowed) {
		slots = append(slots, h.ID)
	}
	return slots
}

// A pass drawn before a store gives the Rank after it exactly the vector
// candidates a scan then would: the new memory among them, a memory
// removed or re-embedded since taken out or rescored; and it is refused
// for another vector or filter, after too many changes, or when too many
// of its hits left.
func TestVectorPassMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	const dim, k = 16, 9
	ix, ids := passIndex(t, r, 600, dim)
	f := Filter{Scopes: []string{"A", "B"}}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for trial := range 40 {
		v := randVec(r, dim)
		similar, pass := ix.SimilarPass(v, "A", 0.2, 5, f, k)
		if want := ix.Similar(v, "A", 0.2, 5); !slices.Equal(similar, want) {
			t.Fatalf("trial %d: SimilarPass's similar %v, Similar %v", trial, similar, want)
		}
		q := RankQuery{Filter: f, Vector: v, Candidates: k, K: k, Pass: pass}
		if got, ok := usePass(ix, q); !ok || !slices.Equal(got, scanned(ix, q)) {
			t.Fatalf("trial %d, unchanged: pass %v (%v), scan %v", trial, got, ok, scanned(ix, q))
		}
		// The store's own memory, with the query's vector: first.
		self := bson.NewObjectID()
		text := fmt.Sprintf("new memory %d", trial)
		ix.Put(Doc{ID: self, Kind: KindMemory, Text: text, Source: "note", Scope: "A", TS: at, Created: at, Key: key(text), Vec: v})
		switch trial % 4 {
		case 1: // one of the pass's hits forgotten
			hit := pass.hits[r.IntN(len(pass.hits))]
			ix.Remove(ix.items[hit.ID].id)
		case 2: // one re-embedded far away, one in another scope brought close
			ix.SetVec(ix.items[pass.hits[0].ID].id, randVec(r, dim))
			ix.SetVec(ids[r.IntN(len(ids))], v)
		case 3: // one in a scope the filter does not admit brought close
			ix.SetVec(ids[2], v) // scope C
		}
		got, ok := usePass(ix, q)
		want := scanned(ix, q)
		if !ok || !slices.Equal(got, want) {
			t.Fatalf("trial %d (case %d): pass %v (%v), scan %v", trial, trial%4, got, ok, want)
		}
		if trial%4 != 2 && (len(got) == 0 || ix.items[got[0]].id != self) {
			t.Fatalf("trial %d: the new memory is not the first candidate: %v", trial, got)
		}
		// Rank itself gives the same with the pass as without.
		ranked := func(q RankQuery) []bson.ObjectID {
			res, err := ix.Rank(context.Background(), q, func(p []Candidate) {
				for i := range p {
					p[i].Score = p[i].Cos
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			var out []bson.ObjectID
			for _, c := range res {
				out = append(out, c.ID)
			}
			return out
		}
		noPass := q
		noPass.Pass = nil
		if a, b := ranked(q), ranked(noPass); !slices.Equal(a, b) {
			t.Fatalf("trial %d: Rank with the pass %v, without %v", trial, a, b)
		}
		// Refused: another vector, another filter, fewer slack hits.
		other := q
		other.Vector = randVec(r, dim)
		if _, ok := usePass(ix, other); ok {
			t.Fatalf("trial %d: pass used for another vector", trial)
		}
		other = q
		other.Filter = Filter{Scopes: []string{"A"}}
		if _, ok := usePass(ix, other); ok {
			t.Fatalf("trial %d: pass used for another filter", trial)
		}
		other = q
		other.Candidates = k + 1
		if _, ok := usePass(ix, other); ok {
			t.Fatalf("trial %d: pass used for more candidates than it covers", trial)
		}
	}
	// Too many changes since, or too many of its hits gone.
	v := randVec(r, dim)
	_, pass := ix.SimilarPass(v, "A", 0.2, 5, f, k)
	q := RankQuery{Filter: f, Vector: v, Candidates: k, K: k, Pass: pass}
	for _, h := range pass.hits[:passSlack+1] {
		ix.Remove(ix.items[h.ID].id)
	}
	if got, ok := usePass(ix, q); ok {
		t.Fatalf("pass used after %d of its hits left: %v", passSlack+1, got)
	}
	_, pass = ix.SimilarPass(v, "A", 0.2, 5, f, k)
	q.Pass = pass
	for i := range vecLogLen + 1 {
		ix.SetVec(ids[100+i], randVec(r, dim))
	}
	if _, ok := usePass(ix, q); ok {
		t.Fatal("pass used after more changes than the index remembers")
	}
}
