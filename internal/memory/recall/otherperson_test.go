package recall

import (
	"slices"
	"testing"

	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/mongostore"
)

// TestPeopleOf: a query asks about the contacts it names by a word of
// their name (a name that is also a word only with a capital: "Rose", not
// "rose") or by relation; none asked, or every one, gives no groups. A
// contact's group holds its relation's other words ("dad" for the
// father).
func TestPeopleOf(t *testing.T) {
	ix := textindex.New(textindex.DefaultOptions())
	contacts := []mongostore.Contact{
		{Name: "Alex", Relation: "partner"},
		{Name: "Rose", Relation: "sister"},
		{Name: "Brendan", Relation: "father"},
		{Name: "Mr Doyle", Relation: "teacher"},
	}
	for _, tc := range []struct {
		q    string
		want uint64
	}{
		{"what would Alex like as a present?", 1 << 0},
		{"what would alex like as a present?", 1 << 0},
		{"when is Rose's birthday?", 1 << 1},
		{"which rose did I plant?", 0},
		{"what's my dad's address?", 1 << 2},
		{"what did Mr Doyle say?", 1 << 3},
		{"what's the wifi password?", 0},
		{"what did Alex, Rose, Brendan and Doyle agree?", 0},
	} {
		refs := contactsFor(tc.q, contacts)
		groups, asked := peopleOf(ix, tc.q, contacts, refs)
		if asked != tc.want || (asked == 0) != (groups == nil) {
			t.Errorf("%q: asked %b (%d groups), want %b", tc.q, asked, len(groups), tc.want)
		}
	}
	groups, _ := peopleOf(ix, "what's my dad's address?", contacts, contactsFor("what's my dad's address?", contacts))
	dad := ix.Analyze("dad").Terms()
	if len(dad) != 1 || !slices.Contains(groups[2].Terms(), dad[0]) {
		t.Errorf("the father's words %v lack %v", groups[2].Terms(), dad)
	}
	if got := groups[3].Terms(); len(got) != 1 {
		t.Errorf("Mr Doyle's words %v, want the name alone (no title, no relation outside relationVariants)", got)
	}
}

// TestCalendarWords: the weekday and month names a query says, plurals
// too, not abbreviations nor "may".
func TestCalendarWords(t *testing.T) {
	ix := textindex.New(textindex.DefaultOptions())
	for q, want := range map[string]int{
		"which bin goes out on Tuesday?":            1,
		"what do we do on Tuesdays in October?":     2,
		"what may happen on wed?":                   0,
		"what did we talk about yesterday evening?": 0,
	} {
		if got := len(calendarWords(ix, q).Terms()); got != want {
			t.Errorf("%q: %d calendar words %v, want %d", q, got, calendarWords(ix, q).Terms(), want)
		}
	}
}
