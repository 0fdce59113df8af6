package textindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Documents set aside are found and scored, but adding, removing or
// re-adding them moves no other document's score, and every score equals
// the one an index without them gives (the aside documents scored as if
// they were added last, against the others' statistics).
func TestSetAsideLeavesOtherScoresAlone(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	words := []string{"museum", "cold", "book", "tournament", "leeds", "flat", "rent", "cat", "pepper", "kids", "saturday", "week"}
	sentence := func(n int) string {
		var b strings.Builder
		for range n {
			fmt.Fprintf(&b, "%s ", words[rng.IntN(len(words))])
		}
		return b.String()
	}
	plain, mixed := New(DefaultOptions()), New(DefaultOptions())
	for id := DocID(0); id < 300; id++ {
		s := sentence(3 + rng.IntN(10))
		plain.Add(id, s)
		mixed.Add(id, s)
	}
	// Long "summaries" repeating the same words, set aside.
	var summaries []DocID
	for id := DocID(1000); id < 1040; id++ {
		mixed.Add(id, sentence(80))
		mixed.SetAside(id, true)
		summaries = append(summaries, id)
	}
	mixed.Remove(1003)
	mixed.Add(1005, sentence(60)) // re-added: counts again until set aside
	mixed.SetAside(1005, true)
	ids := make([]DocID, 300)
	for i := range ids {
		ids[i] = DocID(i)
	}
	for _, q := range []string{"museum kids", "cold week", "rent flat leeds", "pepper cat saturday", "book"} {
		aq := plain.Analyze(q)
		want, got := plain.ScoreQuery(aq, ids), mixed.ScoreQuery(aq, ids)
		if !slices.Equal(want, got) {
			t.Fatalf("%q: the aside documents moved the others' scores:\n%v\n%v", q, want, got)
		}
		if a, b := plain.IdealScore(aq), mixed.IdealScore(aq); a != b {
			t.Fatalf("%q: ideal score %v without, %v with aside documents", q, a, b)
		}
		// The aside documents are still found.
		hits := mixed.SearchQuery(aq, 0, nil)
		found := slices.ContainsFunc(hits, func(h Hit) bool { return slices.Contains(summaries, h.ID) })
		if !found {
			t.Fatalf("%q: no aside document found", q)
		}
		for _, h := range hits {
			if h.Score <= 0 {
				t.Fatalf("%q: score %v for %d", q, h.Score, h.ID)
			}
		}
		if len(mixed.MatchAll(aq, func(id DocID) bool { return id >= 1000 })) == 0 {
			t.Fatalf("%q: MatchAll misses the aside documents", q)
		}
	}
	// Put back, they count again; set aside again, they do not.
	for _, id := range summaries {
		mixed.SetAside(id, false)
	}
	aq := plain.Analyze("museum kids")
	if slices.Equal(plain.ScoreQuery(aq, ids), mixed.ScoreQuery(aq, ids)) {
		t.Fatal("documents put back do not count in the statistics")
	}
	for _, id := range summaries {
		mixed.SetAside(id, true)
		mixed.SetAside(id, true) // twice is once
	}
	if !slices.Equal(plain.ScoreQuery(aq, ids), mixed.ScoreQuery(aq, ids)) {
		t.Fatal("documents set aside again still count")
	}
	// Removing them all leaves no trace.
	for _, id := range summaries {
		mixed.Remove(id)
	}
	if mixed.nAside != 0 || mixed.asideLen != 0 || len(mixed.asideDF) != 0 {
		t.Fatalf("after removing every aside document: %d docs, %d terms, df %v", mixed.nAside, mixed.asideLen, mixed.asideDF)
	}
	mixed.SetAside(424242, true) // absent: ignored
	if mixed.nAside != 0 {
		t.Fatal("an absent document was set aside")
	}
}

// An index holding only aside documents still ranks them.
func TestSetAsideOnly(t *testing.T) {
	ix := New(DefaultOptions())
	ix.Add(1, "the museum with the kids")
	ix.Add(2, "a cold on tuesday")
	ix.SetAside(1, true)
	ix.SetAside(2, true)
	if hits := ix.Search("museum kids", 5, nil); len(hits) != 1 || hits[0].ID != 1 || hits[0].Score <= 0 {
		t.Fatalf("hits %v", hits)
	}
}
