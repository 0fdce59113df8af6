package textindex

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFuzzy(t *testing.T) {
	ix := New(DefaultOptions())
	for i, text := range []string{
		"The council meeting about adoption was long.",
		"They talked about therapeutic methods for trans people.",
		"Marketing and analytics tools for the studio.",
		"A boat trip on the lake.",
	} {
		ix.Add(DocID(i), text)
	}
	for q, want := range map[string][]string{
		"meetng":      {"meet"},      // a letter dropped: the stem of "meeting"
		"therapuetic": {"therapeut"}, // two letters swapped
		"anaalytics":  {"analyt"},
		"boats":       nil, // known after stemming ("boat"): nothing to add
		"xylophone":   nil, // nothing close
		"adoptoin":    {"adopt"},
	} {
		got := ix.Fuzzy(ix.Analyze(q)).Terms()
		if !slices.Equal(got[1:], want) && !(len(got) == 1 && want == nil) {
			t.Errorf("Fuzzy(%q) = %q, want the query term and %q", q, got, want)
		}
	}
	// An alternative matches, and counts once in the ideal score.
	q := ix.Fuzzy(ix.Analyze("council meetng"))
	hits := ix.SearchQuery(q, 10, nil)
	if len(hits) != 1 || hits[0].ID != 0 {
		t.Fatalf("search with alternatives: %v", hits)
	}
	plain := ix.IdealScore(ix.Analyze("council meetng"))
	if got := ix.IdealScore(q); got != plain {
		t.Errorf("ideal score with alternatives %v, without %v: an alternative must not add to it", got, plain)
	}
}

func TestQueryWithout(t *testing.T) {
	ix := New(DefaultOptions())
	q := ix.Analyze("sister birthday").WithAlternatives("sister", ix.Analyze("Lena"))
	if got := q.Terms(); !slices.Equal(got, []string{"sister", "birthday", "lena"}) {
		t.Fatalf("terms %q", got)
	}
	if got := q.Without(func(t string) bool { return t == "sister" }).Terms(); !slices.Equal(got, []string{"birthday"}) {
		t.Errorf("without sister: %q (its alternatives go with it)", got)
	}
	if got := q.Without(func(t string) bool { return t == "birthday" }).Terms(); !slices.Equal(got, []string{"sister", "lena"}) {
		t.Errorf("without birthday: %q", got)
	}
}

// fuzzyReference is Fuzzy as it was before the byte masks: every term of
// the shapes scanned is compared with the unknown word in full.
func fuzzyReference(ix *Index, q Query) Query {
	out := q
	for i, t := range q.terms {
		if q.alt != nil && q.alt[i] > 0 {
			continue
		}
		n := utf8.RuneCountInString(t)
		if n < 5 || isDigits(t) {
			continue
		}
		limit := 1
		if n >= 8 {
			limit = 2
		}
		if _, ok := ix.dict[t]; ok {
			continue
		}
		var found []fuzzyCand
		for d := -3; d <= limit; d++ {
			if len(t)+d <= 0 {
				continue
			}
			for id := range ix.terms {
				s := ix.terms[id].name
				if s == "" || shape(s[0], len(s)) != shape(t[0], len(t)+d) {
					continue
				}
				dist := editDistance(t, s, limit)
				if dist > limit && d < 0 && len(s) >= max(4, 2-d) && t[:len(s)] == s {
					dist = limit
				}
				if dist <= limit {
					found = append(found, fuzzyCand{s, dist, len(ix.terms[id].postings)})
				}
			}
		}
		if len(found) == 0 {
			continue
		}
		out = out.WithAlternatives(t, fuzzyAlternatives(found))
	}
	return out
}

// TestFuzzyMasksChangeNothing: Fuzzy, which reads only the terms whose
// byte masks allow them to be close, gives every misspelling (one or two
// letters dropped, added, changed or swapped, a stem with letters after
// it) the alternatives the full comparison gives, on an index with
// thousands of terms of which some were removed again.
func TestFuzzyMasksChangeNothing(t *testing.T) {
	ix := New(Options{}) // no stemming: the words are the terms
	rng := rand.New(rand.NewPCG(11, 12))
	const letters = "eeeeaaaoooiiinnsshhrrddlluuccmmwwffggyyppbbvvkjxqz"
	word := func() string {
		b := make([]byte, 3+rng.IntN(10))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	var vocab []string
	for range 6000 {
		vocab = append(vocab, word())
	}
	for d := range 3000 {
		var w []string
		for range 1 + rng.IntN(8) {
			w = append(w, vocab[rng.IntN(len(vocab))])
		}
		ix.Add(DocID(d), strings.Join(w, " "))
	}
	for d := 0; d < 3000; d += 7 {
		ix.Remove(DocID(d)) // terms left with no document leave their shape
	}
	typo := func(w string) string {
		b := []byte(w)
		for range 1 + rng.IntN(2) {
			i := 1 + rng.IntN(max(1, len(b)-1))
			switch rng.IntN(5) {
			case 0:
				if i < len(b) {
					b = slices.Delete(b, i, i+1)
				}
			case 1:
				b = slices.Insert(b, min(i, len(b)), letters[rng.IntN(len(letters))])
			case 2:
				if i < len(b) {
					b[i] = letters[rng.IntN(len(letters))]
				}
			case 3:
				if i+1 < len(b) {
					b[i], b[i+1] = b[i+1], b[i]
				}
			default:
				b = append(b, letters[rng.IntN(len(letters))], letters[rng.IntN(len(letters))])
			}
		}
		return string(b)
	}
	withAlts := 0
	for range 3000 {
		q := ix.Analyze(typo(vocab[rng.IntN(len(vocab))]) + " " + typo(vocab[rng.IntN(len(vocab))]))
		got, want := ix.Fuzzy(q), fuzzyReference(ix, q)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Fuzzy(%q) = %q, the full comparison %q", q.terms, got.Terms(), want.Terms())
		}
		if len(want.terms) > len(q.terms) {
			withAlts++
		}
	}
	if withAlts < 300 {
		t.Fatalf("only %d of 3000 queries got alternatives: the test reads too few typos", withAlts)
	}
	t.Logf("%d of 3000 queries got alternatives", withAlts)
}
