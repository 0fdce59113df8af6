package recall

import (
	"slices"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/textindex"
)

// TestQueryKeepsWordsLikeTimeWords: with a period named, the query's time
// words are looked for by date, not in the text; a word that only
// analyses like one ("wedding" and "wed", "fried" and "fri") is still
// looked for.
func TestQueryKeepsWordsLikeTimeWords(t *testing.T) {
	ix := textindex.New(textindex.DefaultOptions())
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		q          string
		keep, drop []string
	}{
		{"whose wedding am I going to in August", []string{"wedding"}, []string{"august"}},
		{"what fried food did we eat last week", []string{"fried", "food"}, []string{"last", "week"}},
		{"what did we plan for Wed next week", []string{"plan"}, []string{"wed", "next", "week"}},
		{"what did I block on Tuesday and Thursday mornings", []string{"block"}, []string{"tuesday", "thursday", "mornings"}},
	} {
		q := readQuery(ix, tc.q, now, time.UTC)
		if !q.hasPeriod {
			t.Fatalf("%q: no period read", tc.q)
		}
		terms := q.terms.Terms()
		for _, w := range tc.keep {
			if st := ix.Analyze(w).Terms(); !slices.Contains(terms, st[0]) {
				t.Errorf("%q: terms %v lack %q (%s)", tc.q, terms, st[0], w)
			}
		}
		for _, w := range tc.drop {
			if st := ix.Analyze(w).Terms(); len(st) > 0 && slices.Contains(terms, st[0]) {
				t.Errorf("%q: terms %v keep the time word %q", tc.q, terms, st[0])
			}
		}
	}
}

// TestQuerySynonyms: a query word's synonyms join its terms (at a share of
// its weight), a name's do not, and filler, time words and stop words get
// none.
func TestQuerySynonyms(t *testing.T) {
	ix := textindex.New(textindex.DefaultOptions())
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	stem := func(w string) string { return ix.Analyze(w).Terms()[0] }
	for _, tc := range []struct {
		q          string
		has, lacks []string
	}{
		{"how much did I bill the brewery?", []string{"invoice"}, nil},
		{"Bills: which ones are due?", []string{"invoice"}, nil}, // capitalised first word: not a name
		{"when is Bill's flight to Oslo?", nil, []string{"invoice"}},
		{"who's my doctor?", []string{"physician"}, nil},
		{"tell me about the car", []string{"automobile"}, []string{"narrate"}}, // "tell" is filler
		{"what did I do last week", nil, []string{"workweek"}},                 // time words
	} {
		q := readQuery(ix, tc.q, now, time.UTC)
		before := q.terms.Terms()
		q.addSynonyms(ix, tc.q, 0.4)
		terms := q.terms.Terms()
		if !slices.Equal(terms[:len(before)], before) {
			t.Errorf("%q: own terms changed: %v -> %v", tc.q, before, terms)
		}
		for _, w := range tc.has {
			if !slices.Contains(terms[len(before):], stem(w)) {
				t.Errorf("%q: terms %v lack the synonym %q", tc.q, terms, w)
			}
		}
		for _, w := range tc.lacks {
			if slices.Contains(terms, stem(w)) {
				t.Errorf("%q: terms %v hold %q", tc.q, terms, w)
			}
		}
	}
}
