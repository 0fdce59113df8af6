package recall

import (
	"slices"
	"strings"
	"testing"
)

// TestAskedAbsent: a modifier of someone's thing that no memory holds is
// read with its owner and head; not when a memory holds it (or its
// lemma or a synonym), nor without a possessive owner, for a name, a
// verb of the question or a head that is a verb's -ed form.
func TestAskedAbsent(t *testing.T) {
	held := strings.Fields("pepper neighbours number feed aoife teacher class house insurance labels brother marrying contract")
	known := func(w string) bool { return slices.Contains(held, w) }
	for _, c := range []struct {
		q    string
		want []Asked
	}{
		{"what's Pepper's microchip number?", []Asked{{"pepper", "microchip", "number"}}},
		{"what's the name of Aoife's piano teacher?", []Asked{{"aoife", "piano", "teacher"}}},
		{"when is the twins' flu vaccination?", []Asked{{"twins", "flu", "vaccination"}}},
		{"what's Pepper's house number?", nil},         // "house" is held
		{"what's Pepper's numbers number?", nil},       // "numbers": the lemma is held
		{"who is my phone contract with?", nil},        // no owner but the user
		{"what is the microchip number?", nil},         // no owner
		{"what's Pepper's Dublin number?", nil},        // a name
		{"when is my brother's getting married?", nil}, // "married": a verb's -ed form
	} {
		if got := AskedAbsent(c.q, known); !slices.Equal(got, c.want) {
			t.Errorf("AskedAbsent(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

// TestOtherKindOf: a note that names the owner and gives the head but
// not the modifier, in no other words, is about another thing of the
// owner; one that says the modifier by a word of its stem, an instance
// of it or a kind of it is not, nor one without the owner or the head.
func TestOtherKindOf(t *testing.T) {
	for _, c := range []struct {
		a    Asked
		text string
		want bool
	}{
		{Asked{"pepper", "microchip", "number"}, "The neighbours at number 14, the Murphys, feed Pepper when we're away.", true},
		{Asked{"aoife", "piano", "teacher"}, "Aoife is in fifth class at St Brigid's; her teacher is Mr Doyle.", true},
		{Asked{"aoife", "piano", "teacher"}, "Aoife's teacher for the pianos is Mr Doyle.", false},                   // the stem
		{Asked{"sam", "beer", "labels"}, "Sam finished the labels for Fyne Ales.", false},                            // an ale is a beer
		{Asked{"sam", "house", "insurance"}, "Sam's home insurance renews on 1 April with Aviva.", false},            // a house is a home
		{Asked{"pepper", "microchip", "number"}, "The neighbours at number 14 feed the cat when we're away.", false}, // another's
		{Asked{"pepper", "microchip", "number"}, "Pepper is a three-year-old collie.", false},                        // no head
	} {
		if got := OtherKindOf([]Asked{c.a}, c.text); got != c.want {
			t.Errorf("OtherKindOf(%v, %q) = %v, want %v", c.a, c.text, got, c.want)
		}
	}
}
