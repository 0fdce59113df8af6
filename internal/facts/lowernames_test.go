package facts

import (
	"slices"
	"testing"
)

// TestLowerNames: in a note written without capitals, a word after a
// title and a word no dictionary holds are names; dictionary words,
// function words, numbers and months are not.
func TestLowerNames(t *testing.T) {
	for _, c := range []struct {
		text      string
		want, not []string
	}{
		{"léa's best friend is chloé", []string{"léa", "chloé"}, []string{"best", "friend"}},
		{"pepper's vet is dr kelly at the clinic; her annual jabs are due in may.", []string{"kelly"}, []string{"vet", "annual", "jabs", "may", "clinic"}},
		{"his teacher this year is mrs abernethy.", []string{"abernethy"}, []string{"teacher", "year"}},
		{"mobile is giffgaff, £12 a month for 30gb.", []string{"giffgaff"}, []string{"mobile", "month", "30gb", "12"}},
		{"putting 400 euro a month into a credit union savings account because it's safer.", nil, []string{"euro", "credit", "union", "savings", "account", "because", "safer"}},
	} {
		got := LowerNames(c.text)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("LowerNames(%q) = %q, want %q among them", c.text, got, w)
			}
		}
		for _, w := range c.not {
			if slices.Contains(got, w) {
				t.Errorf("LowerNames(%q) = %q, %q is no name", c.text, got, w)
			}
		}
	}
	if !Uncapitalised("léa's best friend is chloé") || Uncapitalised("Léa's best friend is Chloé") {
		t.Error("Uncapitalised: wrong")
	}
}
