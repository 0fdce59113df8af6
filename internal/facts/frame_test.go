package facts

import "testing"

// TestFrameRule: the older's sentence said again with one value changed
// and no word of change (a trailing adjunct of time or reason, "now", a
// name, a place after "will be at", amounts written with a currency letter
// or space thousands) is an update with FrameRule and unrelated without;
// another subject in the same frame, an event said twice, a note with no
// verb, an adjunct naming another thing, two slots both holding common
// words, and a list of counts are never updates.
func TestFrameRule(t *testing.T) {
	defer func(on bool) { FrameRule = on }(FrameRule)
	updates := []struct {
		older, newer string
		kind         Kind
	}{
		{"The swimming club has 52 members.", "The swimming club has 58 members after the spring open day.", Number},
		{"The quiz night is on 14 May.", "The quiz night is on 21 May because of the bank holiday.", Date},
		{"The team lead is Ms Okafor.", "The team lead is Mr Lindqvist from this quarter.", Name},
		{"The team lead is Ms Okafor.", "The team lead is Mr Lindqvist.", Name},
		{"The book fair will be at the Corn Exchange.", "The book fair will be at the Guildhall.", Place},
		{"My rent is R9,500 a month.", "My rent is R9,900 a month.", Amount},
		{"A double room costs kr1.250 a night in winter.", "A double room costs kr1.390 a night in winter.", Amount},
		{"I lend my brother Marek 800 zł a month.", "I lend my brother Marek 1 200 zł a month.", Amount},
		{"Our flour comes from Shipton Mill.", "Our flour now comes from Wessex Mill.", Place},
		{"The shop opens at 7:30am on weekdays.", "The shop now opens at 7am on weekdays.", Time},
		{"The shop seats 28 people inside.", "The shop seats 36 people inside.", Number},
		{"Bins are collected on Mondays and Thursdays.", "Bins are collected on Wednesdays and Saturdays.", Date},
		{"We serve Illy coffee with breakfast.", "We serve Lavazza coffee with breakfast.", Name},
		{"My mobile is with Vodafone.", "My mobile is with Three.", Name},
	}
	for _, c := range updates {
		FrameRule = false
		if r := Relate(c.older, c.newer); r.Kind != Unrelated {
			t.Errorf("without FrameRule %q then %q: %v %v, want unrelated (the case tests nothing)", c.older, c.newer, r.Kind, r.DiffersIn)
		}
		FrameRule = true
		r := Relate(c.older, c.newer)
		if r.Kind != Updates || len(r.DiffersIn) == 0 || r.DiffersIn[0] != c.kind {
			t.Errorf("%q then %q: %v %v, want an update of its %s", c.older, c.newer, r.Kind, r.DiffersIn, c.kind)
		}
	}
	FrameRule = true
	for _, c := range [][2]string{
		{"The swimming club has 52 members.", "The chess club has 31 members after the open day."},
		{"The choir's conductor is Mrs Halvorsen.", "The choir's accompanist is Mr Ekberg from January."},
		{"Tor's doctor at the health centre is Dr Lund.", "Tor's dentist at the health centre is Dr Aasen."},
		{"The shop seats 28 people inside.", "The cafe seats 36 people inside."},
		{"I paid £40 for the taxi.", "I paid £55 for the taxi after the match."},
		{"Dentist appointment on December 2 at 9:30.", "Dentist appointment on January 14 at 11:00."},
		{"The rent is £900 a month.", "The rent is £400 a month for the garage."},
		{"We serve Nora jam with the waffles.", "We serve Friele coffee with the waffles."},
		{"I'm working on the triangle with sides 3, 4 and 5 today.", "I'm working on the triangle with sides 3, 4 and 6 today."},
		{"Guests hire skis from Sportshuset in Storgata.", "Guests hire snowshoes from the Intersport by the bridge now."},
	} {
		if r := Relate(c[0], c[1]); r.Kind != Unrelated {
			t.Errorf("%q then %q: %v %v, want unrelated (another thing, or two events)", c[0], c[1], r.Kind, r.DiffersIn)
		}
	}
}
