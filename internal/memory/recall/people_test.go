package recall

import (
	"slices"
	"testing"

	"github.com/infmem/infmem/mongostore"
)

// TestContactsForWholeRelation: a relation word names the contacts whose
// whole relation the query says in that word ("my partner": the partner,
// not the business partner nor the wife), else in another word for it
// ("my spouse": the partner and the wife); a longer relation is named by
// its whole phrase ("my business partner") or, when no contact fits
// better, by its last word ("my friend": the best friend).
func TestContactsForWholeRelation(t *testing.T) {
	contacts := []mongostore.Contact{
		{Name: "Sam", Relation: "partner"},
		{Name: "Priyanka", Relation: "business partner"},
		{Name: "Joe", Relation: "best friend"},
		{Name: "Ines", Relation: "wife"},
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"what does my partner do?", []string{"Sam"}},
		{"what does my business partner do?", []string{"Priyanka"}},
		{"when did I last see my friend?", []string{"Joe"}},
		{"what did my best friend say?", []string{"Joe"}},
		{"what does my wife like?", []string{"Ines"}},
		{"what does my spouse like?", []string{"Sam", "Ines"}},
	} {
		var got []string
		for _, r := range contactsFor(tc.q, contacts) {
			got = append(got, r.names...)
		}
		slices.Sort(got)
		slices.Sort(tc.want)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: names %v, want %v", tc.q, got, tc.want)
		}
	}
}
