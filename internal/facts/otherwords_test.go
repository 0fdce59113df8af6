package facts

import "testing"

// TestChangedInOtherWords: a newer note saying the value changed, the
// thing named in other words, is an update; the same words about another
// named thing, a note saying nothing changed, or a question, are not.
func TestChangedInOtherWords(t *testing.T) {
	for _, c := range []struct {
		older, newer string
		want         RelationKind
	}{
		{"The daily stand-up is at 9:30 every morning.", "From Monday the morning meeting starts at 9:00 instead.", Updates},
		{"My salary is $78,000 a year.", "Got the promotion: I'm paid $86,500 a year now.", Updates},
		{"My hairdresser is Carla at Studio Nine.", "I go to Marco at Cut & Co for haircuts now.", Updates},
		{"The grant application is due on March 31.", "The funder extended the deadline by two weeks, to April 14.", Updates},
		// A word capitalised as the first of its sentence is no name.
		{"Rent for the flat is £1,150 a month.", "The landlord is raising what we pay for the flat to £1,240 from July.", Updates},
		// A verb of change with the new value after "to", the old unsaid;
		// an age reached.
		{"Takes 10 mg of lisinopril daily.", "The doctor doubled the blood pressure pill to 20 mg.", Updates},
		{"Our team offsite is on Wednesday, May 14, at the lake house.", "The retreat got pushed back a week, to May 21.", Updates},
		{"Leo's bedtime is 7:30 pm.", "Since he turned six, Leo goes to bed at 8 pm.", Updates},
		// A capitalised first word is no subject name beside a pronoun
		// subject.
		{"Holiday budget for Italy is €3,000.", "We've cut what we'll spend on the Italy trip to €2,400.", Updates},
		{"I run 20 km a week.", "Weekly mileage is up to 32 km now.", Updates},
		// Those verbs without "to" and a value, "turned" without a number;
		// another named thing; a name that is no first word.
		{"Holiday budget for Italy is €3,000.", "We cut €400 from the Italy hotel bill.", Unrelated},
		{"Leo's bedtime is 7:30 pm.", "Leo turned off the light at 8 pm.", Unrelated},
		{"Holiday budget for Italy is €3,000.", "We've cut what we'll spend on the Spain trip to €2,400.", Unrelated},
		{"Nora's bedtime is 7 pm.", "Since he turned six, Leo goes to bed at 8 pm.", Unrelated},
		{"Mark's budget for Italy is €3,000.", "We've cut what we'll spend on the Italy trip to €2,400.", Unrelated},
		// Whose thing: a name on one side only.
		{"Mark goes to bed at 8 pm.", "Leo now goes to bed at 7 pm.", Unrelated},
		{"Leo's bedtime is 7:30 pm.", "Nora's bedtime moved to 8 pm.", Unrelated},
		// Whose thing: another person.
		{"Ruth's son lives in Cardiff.", "Ruth's daughter has moved to Bath.", Unrelated},
		{"The user's sister lives in Oslo.", "The user's brother has moved to Bergen.", Unrelated},
		// Which thing: a word before the shared word on one side only.
		{"The daily stand-up is at 9:30.", "The design team's stand-up moved to 10:00.", Unrelated},
		// "new" describes the thing (everyday.json's shoes and tyres).
		{"My running shoes are Brooks Ghost 15, size 9; they need replacing after 800 km.", "Had two new front tyres fitted at Kwik Fit for 190 pounds.", Unrelated},
		// Nothing says it changed.
		{"Takes 10 mg of lisinopril daily.", "Takes 20 mg of atorvastatin daily.", Unrelated},
		// The same value again.
		{"My salary is $78,000 a year.", "I'm paid $78,000 a year now.", Unrelated},
		// A question, a condition.
		{"My salary is $78,000 a year.", "Should I ask for $86,500 now?", Unrelated},
		{"My salary is $78,000 a year.", "If I get promoted I'd be paid $86,500 now.", Unrelated},
	} {
		r := ChangedInOtherWords(Parse(c.older), Parse(c.newer))
		if r.Kind != c.want {
			t.Errorf("%q then %q: %v %v, want %v", c.older, c.newer, r.Kind, r.DiffersIn, c.want)
		}
	}
}

// TestChangedInOtherWordsKeepsTheSubject is TestChangedDetailUpdatesOnlyItsSubject
// for ChangedInOtherWords: 2,000 pairs changing one slot at a time; a
// change of whose or which thing it is is never an update.
func TestChangedInOtherWordsKeepsTheSubject(t *testing.T) {
	changeOneSlot(t, 5, 2000, []slotPair{
		{"The %s project deadline is %s %s.", "The %s launch has moved to %s %s.", []slot{{true, slotProjects}, {false, slotMonths}, {false, slotDays}}},
		{"%s's flight to %s leaves at %s:30.", "%s's departure to %s is now at %s:30.", []slot{{true, slotNames}, {true, slotPlaces}, {false, []string{"7", "8", "9", "10", "11"}}}},
		{"%s's rent is £%s a month.", "%s's landlord raised what they pay to £%s a month.", []slot{{true, slotNames}, {false, []string{"900", "1,100", "1,250", "1,400"}}}},
		{"The %s team sync is on %s at %s:00.", "The %s weekly meeting is now on %s at %s:00.", []slot{{true, slotProjects}, {false, []string{"Monday", "Tuesday", "Thursday"}}, {false, []string{"9", "10", "14", "16"}}}},
		{"%s takes %s mg of lisinopril daily.", "The doctor doubled %s's blood pressure pill to %s mg.", []slot{{true, slotNames}, {false, []string{"5", "10", "20", "40"}}}},
		{"Holiday budget for %s is €%s.", "We've cut what we'll spend on the %s trip to €%s.", []slot{{true, slotPlaces}, {false, []string{"2,400", "3,000", "3,500", "4,100"}}}},
	}, func(older, newer string) Relation {
		return ChangedInOtherWords(Parse(older), Parse(newer))
	})
}

// TestChangedInOtherWordsOutright: an update in other words says the
// change outright when a word of change says it ("instead", "now",
// "moved … to", "pushed back", "doubled … to"); not when its only cue as
// often tells of an event or a state ("finished", "renewed", "sold",
// "since", "actually"), nor a verb that may tell of an event without "to"
// ("changed the oil").
func TestChangedInOtherWordsOutright(t *testing.T) {
	for _, c := range []struct {
		older, newer string
		outright     bool
	}{
		{"The daily stand-up is at 9:30 every morning.", "From Monday the morning meeting starts at 9:00 instead.", true},
		{"My salary is $78,000 a year.", "Got the promotion: I'm paid $86,500 a year now.", true},
		{"Spanish class is on Tuesday evenings.", "My Spanish lessons moved to Thursdays.", true},
		{"Anniversary dinner booked at Luca's Trattoria.", "Changed the anniversary reservation to the sushi place on 5th Avenue.", true},
		{"Our team offsite is on Wednesday, May 14, at the lake house.", "The retreat got pushed back a week, to May 21.", true},
		{"Takes 10 mg of lisinopril daily.", "The doctor doubled the blood pressure pill to 20 mg.", true},
		{"Current weight: 82 kg.", "Down to 78 kg after the summer.", true},
		{"Rent for the flat is £1,150 a month.", "The landlord is raising what we pay for the flat to £1,240 from July.", true},
		{"The daily stand-up is at 9:30 every morning.", "Actually the morning meeting starts at 9:00.", false},
		{"The daily stand-up is at 9:30 every morning.", "The morning meeting finished at 10:15.", false},
		{"The daily stand-up is at 9:30 every morning.", "Since Monday the morning meeting starts at 9:00.", false},
		{"The boiler service was on 3 March.", "The heating engineer finished the repair on 10 May.", false},
		{"My passport expires on 3 March 2027.", "Renewed the car insurance on 10 May.", false},
		{"Sold the old bike for £200.", "Sold the sofa for £150.", false},
		{"The car was serviced on 3 March.", "Changed the car's oil on 10 May.", false},
	} {
		r := ChangedInOtherWords(Parse(c.older), Parse(c.newer))
		if r.Kind != Updates || r.Outright != c.outright {
			t.Errorf("%q then %q: %v outright %v, want an update, outright %v", c.older, c.newer, r.Kind, r.Outright, c.outright)
		}
	}
}

// TestChangedInOtherWordsSlotRules: who made the change is no subject
// name ("Finance cut…"), "from X to Y" with X the older's, and a verb that
// ends a thing the older names ("Cancelled FitLife") are updates; the same
// readings about another thing, after an event, or with a possessive are
// not; with SlotRules off the three updates are not found.
func TestChangedInOtherWordsSlotRules(t *testing.T) {
	updates := [][2]string{
		{"The project budget is $120,000.", "Finance cut the project budget to $95,000."},
		{"For hay fever the user takes cetirizine.", "The GP changed the user's hay fever tablet from cetirizine to fexofenadine."},
		{"I work out at the FitLife gym on Baker Street.", "Cancelled FitLife; I train at the climbing centre by the river now."},
		{"The user works at Acme Corp as a product manager.", "The user left Acme and joined Globex as head of product."},
		{"We subscribe to Netflix.", "Cancelled Netflix last week."},
	}
	notUpdates := [][2]string{
		// Another thing: a word before the shared word on one side.
		{"The project budget is $120,000.", "Finance cut the marketing budget to $50,000."},
		// A possessive before the verb is whose thing, not who changed it;
		// the older's own name still conflicts.
		{"Leo's bedtime is 7:30 pm.", "Nora's bedtime moved to 8 pm."},
		{"Mark goes to bed at 8 pm.", "Leo moved the meeting to 9 pm."},
		// "from … to" without a word of change.
		{"The shop opens on Monday at 9.", "The shop is open from Monday to Friday."},
		// Ending something the older does not name; leaving a place after
		// an event, at a time of day; another thing of the older's name.
		{"I work out at the FitLife gym.", "Cancelled the dentist appointment on Friday."},
		{"We had dinner at Rosa's on Friday.", "Left Rosa's at 3 pm and went home."},
		{"The user works at Acme Corp.", "The user left Acme's office at 6 pm."},
		{"Book club meets at Rosa's cafe on Thursdays.", "Left my umbrella at Rosa's cafe."},
		{"We had dinner with Anna at Bistro Luca on Friday.", "Left Bistro Luca early and went home."},
		{"The user works at Acme Corp.", "The user left Acme's office early."},
		// A name before a verb of change with no thing after it is the
		// thing that changed, not who changed it.
		{"The office move is on 3 March.", "Finance moved to the third floor on 10 May."},
		{"Anna is my dentist.", "Anna quit smoking in May."},
	}
	for _, c := range updates {
		if r := ChangedInOtherWords(Parse(c[0]), Parse(c[1])); r.Kind != Updates || !r.Outright {
			t.Errorf("%q then %q: %v %v outright %v, want an update said outright", c[0], c[1], r.Kind, r.DiffersIn, r.Outright)
		}
	}
	for _, c := range notUpdates {
		if r := ChangedInOtherWords(Parse(c[0]), Parse(c[1])); r.Kind != Unrelated {
			t.Errorf("%q then %q: %v %v, want unrelated", c[0], c[1], r.Kind, r.DiffersIn)
		}
	}
	SlotRules = false
	defer func() { SlotRules = true }()
	for _, c := range updates {
		if r := ChangedInOtherWords(Parse(c[0]), Parse(c[1])); r.Kind != Unrelated {
			t.Errorf("SlotRules off: %q then %q: %v %v, want unrelated", c[0], c[1], r.Kind, r.DiffersIn)
		}
	}
}

// SaysOtherThing: a newer naming, where it says the change, a thing the
// older never meets (the word, a synonym, the nearest kind) tells of
// another thing of the kind; one naming the same thing in other words, or
// naming no thing, does not.
func TestSaysOtherThing(t *testing.T) {
	for _, c := range []struct {
		older, newer string
		other        bool
	}{
		{"The plumber we use is Dai Evans.", "Our electrician is now Bryn Lewis.", true},
		{"The school bus leaves at 7:50 every morning.", "The last train home is now at 23:10.", true},
		{"House insurance renewed with Direct Line, £238 for the year.", "Sky bill gone up to £67 a month, need to ring and haggle.", true},
		{"Car insurance is with AXA and renews on 2 November.", "Switched electricity to Flogas in September.", true},
		{"The landline costs £22 a month.", "The phone plan has gone up to £21 a month.", true},
		{"The call with the Bristol client is on Thursdays at 11.", "The work Christmas party has moved to The Old Brewery at 8 pm.", true},
		// a word of the older only saying which of another thing
		{"Car insurance is with Aviva, £412 a year.", "The family car is a Kia Niro now.", true},
		// the same word, a name, a stem
		{"Car insurance is with Aviva, £412 a year.", "The Aviva policy has gone up to £468 a year at renewal.", false},
		{"Spanish class is on Tuesday evenings at 7.", "My Spanish lessons moved to Thursdays.", false},
		{"Holiday budget for Italy is €3,000.", "We've cut what we'll spend on the Italy trip to €2,400.", false},
		{"Rhys finishes school at 3:15.", "Rhys's lessons end at 3:40 now.", false},
		{"Rent for my studio on Clive Street is £480 a month.", "The workspace on Clive Street has gone up to £520 a month.", false},
		// the nearest kind, either way; a synonym
		{"My accountant is Gethin Rowlands.", "The bookkeeper who does my tax return is Lowri Bell now.", false},
		{"My GP is Dr. Rhiannon Hughes.", "The family doctor I'm registered with now is Dr. Owen Price.", false},
		{"Our family doctor is Dr. Hughes.", "Our GP is now Dr. Owen Price.", false},
		// no thing named
		{"I use an iPhone 12.", "Switched to a Pixel 8 last week.", false},
		{"We subscribe to Netflix.", "Cancelled that and signed up for Disney+ instead.", false},
	} {
		if got := SaysOtherThing(Parse(c.older), Parse(c.newer)); got != c.other {
			t.Errorf("%q / %q: another thing %v, want %v", c.older, c.newer, got, c.other)
		}
	}
}
