package textindex

import (
	"slices"
	"testing"
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

// TestUnknownWhere: a word only documents outside the search hold is as
// unknown to it as a word never indexed, with the weight the whole index
// gives it; a typo's alternative counts where the search sees it.
func TestUnknownWhere(t *testing.T) {
	ix := New(DefaultOptions())
	for i, text := range []string{
		"Caroline went to the adoption meeting.",      // 0: scope A
		"Caroline painted a sunrise over the lake.",   // 1: scope A
		"Melanie ran a charity race for the shelter.", // 2: scope B
		"Melanie took the kids camping by the lake.",  // 3: scope B
	} {
		ix.Add(DocID(i), text)
	}
	inA := func(d DocID) bool { return d < 2 }
	inB := func(d DocID) bool { return d >= 2 }
	q := ix.Analyze("what did Caroline paint at the lake")
	if got := ix.UnknownWhere(q, nil); got != 0 {
		t.Errorf("every word is indexed: UnknownWhere(nil) = %v, want 0", got)
	}
	if got, want := ix.UnknownWhere(q, nil), ix.Unknown(q); got != want {
		t.Errorf("UnknownWhere(nil) = %v, Unknown = %v", got, want)
	}
	if got := ix.UnknownWhere(q, inA); got != 0 {
		t.Errorf("scope A holds every word: %v, want 0", got)
	}
	// In scope B neither "caroline" nor "paint" is held: their weight
	// over the query's (the lake is held).
	inBShare := ix.UnknownWhere(q, inB)
	if inBShare <= 0.5 || inBShare >= 1 {
		t.Errorf("scope B holds only 'lake': unknown share %v, want between 0.5 and 1", inBShare)
	}
	if got := ix.UnknownWhere(q, func(DocID) bool { return false }); got != 1 {
		t.Errorf("a search that sees nothing: %v, want 1", got)
	}
	// A typo whose alternative the search sees is known; one whose
	// alternative only other documents hold is not.
	typo := ix.Fuzzy(ix.Analyze("Carolin"))
	if got := ix.UnknownWhere(typo, inA); got != 0 {
		t.Errorf("typo with its alternative in scope: %v, want 0", got)
	}
	if got := ix.UnknownWhere(typo, inB); got != 1 {
		t.Errorf("typo with its alternative out of scope: %v, want 1", got)
	}
	// Removed documents hold nothing.
	ix.Remove(1)
	if got := ix.UnknownWhere(ix.Analyze("sunrise"), inA); got != 1 {
		t.Errorf("a word only a removed document held: %v, want 1", got)
	}
}

// TestHeld: the share of the query's weight a document's words hold,
// whatever the document's length or how often it repeats a word.
func TestHeld(t *testing.T) {
	ix := New(DefaultOptions())
	for i, text := range []string{
		"The plumber fixed the boiler.",
		"The plumber, the plumber, the plumber again, and a very long list of other words about the house and garden and kitchen.",
		"Boiler service is due in October.",
		"Nothing to do with it.",
	} {
		ix.Add(DocID(i), text)
	}
	q := ix.Analyze("what about the plumber and the boiler")
	got := ix.Held(q, []DocID{0, 1, 2, 3, 9})
	if got[0] < 0.999 {
		t.Errorf("doc 0 holds every word: %v", got[0])
	}
	if got[1] <= 0 || got[1] >= 1 || got[2] <= 0 || got[2] >= 1 {
		t.Errorf("docs 1 and 2 hold one word each: %v, %v", got[1], got[2])
	}
	if d := got[1] + got[2]; d < 0.999 || d > 1.001 {
		t.Errorf("plumber's and boiler's shares add to %v, want 1 (the query's other words are stop words)", d)
	}
	if got[3] != 0 || got[4] != 0 {
		t.Errorf("a document without the words, or absent: %v, %v", got[3], got[4])
	}
	// An alternative stands for its term, and counts once.
	typo := ix.Fuzzy(ix.Analyze("plumbr boiler"))
	if h := ix.Held(typo, []DocID{0}); h[0] < 0.999 || h[0] > 1.001 {
		t.Errorf("typo's alternative held: %v, want 1", h[0])
	}
	if h := ix.Held(ix.Analyze("the and of"), []DocID{0}); h[0] != 0 {
		t.Errorf("a query of stop words: %v", h[0])
	}
}
