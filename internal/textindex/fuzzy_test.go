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
