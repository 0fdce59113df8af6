package recall

import (
	"slices"
	"testing"
)

// TestQueryWords: a question's content words, without how it is asked.
func TestQueryWords(t *testing.T) {
	for q, want := range map[string][]string{
		"who cuts my hair":                    {"cuts", "hair"},
		"what race am I training for?":        {"race", "training"},
		"where do I work now?":                {"work"},
		"what's Sinead's address in Toronto?": {"sinead", "address", "toronto"},
		"how is it":                           nil,
	} {
		if got := queryWords(q); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	}
}

// TestWordsMet: every content word must be held, as itself, its lemma, a
// synonym or a word of its stem.
func TestWordsMet(t *testing.T) {
	for _, c := range []struct {
		q     string
		texts []string
		want  bool
	}{
		{"who cuts my hair", []string{"Hairdresser is Jo; she cut my hair short in May."}, true},
		{"who cuts my hair", []string{"Hairdresser is Jo at the salon."}, false}, // "cuts" unmet
		{"where do I work now?", []string{"I work at the library on Tuesdays."}, true},
		{"what's my blood group", []string{"Blood type O negative."}, false}, // group unmet
		{"how is it", []string{"It is fine."}, false},                        // no content word
		{"who cuts my hair", nil, false},
	} {
		if got := WordsMet(c.q, c.texts); got != c.want {
			t.Errorf("%q over %q: %v, want %v", c.q, c.texts, got, c.want)
		}
	}
}
