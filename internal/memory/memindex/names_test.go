package memindex

import "testing"

func TestNameWordsMatch(t *testing.T) {
	for _, c := range []struct {
		q, n string
		want bool
	}{
		{"muhammad", "muhhamed", true},
		{"muhammad", "muhammed", true},
		{"caroline", "carolline", true},
		{"melanie", "melenie", true},
		{"fahim", "fahim", true},
		{"jon", "john", false}, // short names must be spelt the same
		{"jane", "jon", false},
		{"maria", "mario", true},
		{"caroline", "melanie", false},
		{"gina", "gym", false},
		{"painting", "pointing", true},
		{"tim", "time", false},
	} {
		if got := nameWordsMatch(c.q, c.n); got != c.want {
			t.Errorf("nameWordsMatch(%q, %q) = %v, want %v", c.q, c.n, got, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"abc", "abc", 2, 0},
		{"abc", "acb", 2, 1},
		{"muhammad", "muhhamed", 3, 3},
		{"muhammad", "muhhamed", 2, 3},
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 1, 2},
		{"", "ab", 3, 2},
	} {
		if got := editDistance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}
