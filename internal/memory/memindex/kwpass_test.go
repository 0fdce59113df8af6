package memindex

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/textindex"
)

// keywordsNow returns the slots the keyword stage of a Rank of q draws
// now: from q.Keywords when it can, else by searching; and whether it
// took them from the pass.
func keywordsNow(ix *Index, q RankQuery) (fromPass, searched []textindex.Hit, ok bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(q.Filter)
	allowed, _ := ix.allowedLocked(&c)
	fromPass, ok = ix.keywordPassLocked(&q, allowed.Has)
	searched = ix.text.SearchQuery(q.Terms, q.Candidates, func(s textindex.DocID) bool { return allowed.Has(uint32(s)) })
	return fromPass, searched, ok
}

// Keyword candidates drawn before a store's Put are exactly those the
// search after it finds (the new memory counted in the statistics, in
// the slot Put gives it, a freed one or a new one), and the Rank takes
// them; they are refused when the memory's Put was not the only change,
// or for another query, filter or k, or when the filter does not admit
// the memory.
func TestKeywordPassMatchesSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	sentence := kwSentences(r)
	ix := New(0, time.UTC)
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []bson.ObjectID
	var texts []string
	put := func(text, scope string) bson.ObjectID {
		id := bson.NewObjectID()
		ix.Put(Doc{ID: id, Kind: KindMemory, Text: text, Source: "note", Scope: scope, TS: at, Created: at, Key: key(text + id.Hex())})
		ids, texts = append(ids, id), append(texts, text)
		return id
	}
	for i := range 800 {
		put(sentence(), []string{"A", "B", "C"}[i%3])
	}
	f := Filter{Scopes: []string{"A", "B"}}
	const k = 9
	used := 0
	for trial := range 120 {
		if trial%2 == 0 { // freed slots, one of which the next Put takes
			for range 1 + trial%3 {
				ix.Remove(ids[r.IntN(len(ids))])
			}
		}
		text := sentence()
		if trial%5 == 1 {
			text = texts[r.IntN(len(texts))] // ties
		}
		if trial%7 == 3 {
			text += " unheardof"
		}
		scope := []string{"A", "B", "C"}[trial%3]
		id := bson.NewObjectID()
		terms := ix.Analyze(text)
		pass := ix.KeywordsAhead(id, text, terms, f, k)
		if pass == nil {
			t.Fatalf("trial %d: no pass", trial)
		}
		ix.Put(Doc{ID: id, Kind: KindMemory, Text: text, Source: "note", Scope: scope, TS: at, Created: at, Key: key(text + id.Hex())})
		ids, texts = append(ids, id), append(texts, text)
		q := RankQuery{Filter: f, Terms: terms, Candidates: k, K: k, DuplicateOverlap: 1, Keywords: pass}
		fromPass, searched, ok := keywordsNow(ix, q)
		if scope == "C" {
			if ok {
				t.Fatalf("trial %d: the pass was taken though the filter does not admit its memory", trial)
			}
			continue
		}
		if !ok {
			t.Fatalf("trial %d: the pass was refused", trial)
		}
		if !slices.Equal(fromPass, searched) {
			t.Fatalf("trial %d: pass %v, search %v", trial, fromPass, searched)
		}
		used++
		// The whole Rank answers the same with and without it.
		with, err := ix.Rank(context.Background(), q, func(pool []Candidate) {
			for i := range pool {
				pool[i].Score = pool[i].Coverage
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		q.Keywords = nil
		without, _ := ix.Rank(context.Background(), q, func(pool []Candidate) {
			for i := range pool {
				pool[i].Score = pool[i].Coverage
			}
		})
		if !slices.EqualFunc(with, without, func(a, b Candidate) bool { return a.ID == b.ID && a.Score == b.Score }) {
			t.Fatalf("trial %d: Rank with the pass differs", trial)
		}
		// Refused for another query, k or filter.
		q.Keywords = pass
		for _, other := range []RankQuery{
			{Filter: f, Terms: ix.Analyze(text + " budget"), Candidates: k, Keywords: pass},
			{Filter: f, Terms: terms, Candidates: k + 1, Keywords: pass},
			{Filter: Filter{Scopes: []string{"A"}}, Terms: terms, Candidates: k, Keywords: pass},
		} {
			if _, _, ok := keywordsNow(ix, other); ok {
				t.Fatalf("trial %d: the pass was taken for another query %+v", trial, other)
			}
		}
	}
	if used < 60 {
		t.Fatalf("the pass was used %d times", used)
	}
	// A change besides the memory's own Put (another memory's text
	// replaced: the statistics moved): refused.
	text := sentence()
	id := bson.NewObjectID()
	terms := ix.Analyze(text)
	pass := ix.KeywordsAhead(id, text, terms, f, k)
	other := ids[len(ids)-1]
	ix.Put(Doc{ID: other, Kind: KindMemory, Text: text + " " + text, Source: "note", Scope: "A", TS: at, Created: at, Key: key("other")})
	ix.Put(Doc{ID: id, Kind: KindMemory, Text: text, Source: "note", Scope: "A", TS: at, Created: at, Key: key(text + id.Hex())})
	if _, _, ok := keywordsNow(ix, RankQuery{Filter: f, Terms: terms, Candidates: k, Keywords: pass}); ok {
		t.Fatal("the pass was taken after another change")
	}
	// A memory in the index already: no pass.
	if ix.KeywordsAhead(id, text, terms, f, k) != nil {
		t.Fatal("a pass for a memory the index holds")
	}
}

// Keyword candidates drawn by KeywordsFirst (a retrieval's, while its
// query is embedded) are exactly those the Rank's own search finds while
// the index is unchanged (a Touch is no change for them), and the Rank
// answers the same with them; after any other write they are refused.
func TestKeywordsFirstMatchesSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 3))
	sentence := kwSentences(r)
	ix := New(0, time.UTC)
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []bson.ObjectID
	put := func(scope string) {
		id := bson.NewObjectID()
		text := sentence()
		ix.Put(Doc{ID: id, Kind: KindMemory, Text: text, Source: "note", Scope: scope, TS: at, Created: at, Key: key(text + id.Hex())})
		ids = append(ids, id)
	}
	for i := range 600 {
		put([]string{"A", "B", "C"}[i%3])
	}
	score := func(pool []Candidate) {
		for i := range pool {
			pool[i].Score = pool[i].Coverage
		}
	}
	filters := []Filter{{}, {Scopes: []string{"A", "B"}}, {Scopes: []string{"C"}}}
	for trial := range 90 {
		f, k := filters[trial%len(filters)], 5+trial%7
		terms := ix.Analyze(sentence())
		pass := ix.KeywordsFirst(terms, f, k)
		if pass == nil {
			t.Fatalf("trial %d: no pass", trial)
		}
		if trial%4 == 1 {
			ix.Touch([]bson.ObjectID{ids[r.IntN(len(ids))]})
		}
		q := RankQuery{Filter: f, Terms: terms, Candidates: k, K: k, DuplicateOverlap: 1, Keywords: pass}
		fromPass, searched, ok := keywordsNow(ix, q)
		if !ok {
			t.Fatalf("trial %d: the pass was refused with the index unchanged", trial)
		}
		if !slices.Equal(fromPass, searched) {
			t.Fatalf("trial %d: pass %v, search %v", trial, fromPass, searched)
		}
		with, err := ix.Rank(context.Background(), q, score)
		if err != nil {
			t.Fatal(err)
		}
		q.Keywords = nil
		without, _ := ix.Rank(context.Background(), q, score)
		if len(with) == 0 || !slices.EqualFunc(with, without, func(a, b Candidate) bool { return a.ID == b.ID && a.Score == b.Score }) {
			t.Fatalf("trial %d: Rank with the pass %v, without %v", trial, with, without)
		}
		// Refused for another query, k or filter.
		for _, other := range []RankQuery{
			{Filter: f, Terms: ix.Analyze(sentence() + " budget"), Candidates: k, Keywords: pass},
			{Filter: f, Terms: terms, Candidates: k + 1, Keywords: pass},
			{Filter: Filter{Scopes: []string{"B"}}, Terms: terms, Candidates: k, Keywords: pass},
		} {
			if _, _, ok := keywordsNow(ix, other); ok && !other.Terms.Equal(terms) {
				t.Fatalf("trial %d: the pass was taken for another query %+v", trial, other)
			}
		}
		// Refused after a write: a new memory, a removed one, one's
		// embedding.
		switch trial % 3 {
		case 0:
			put("A")
		case 1:
			ix.Remove(ids[r.IntN(len(ids))])
		case 2:
			ix.SetVec(ids[r.IntN(len(ids))], nil)
		}
		q.Keywords = pass
		if _, _, ok := keywordsNow(ix, q); ok {
			t.Fatalf("trial %d: the pass was taken after a write", trial)
		}
	}
}

// kwSentences returns a generator of 3–14-word sentences over a small
// vocabulary, its words skewed to the first ones (some frequent, some rare).
func kwSentences(r *rand.Rand) func() string {
	words := strings.Fields("budget snack trip paris deadline report coffee meeting sister garden invoice launch flight hotel client review car vacation design project")
	return func() string {
		n := 3 + r.IntN(12)
		w := make([]string, n)
		for i := range w {
			w[i] = words[int(float64(len(words))*r.Float64()*r.Float64())]
		}
		return strings.Join(w, " ")
	}
}
