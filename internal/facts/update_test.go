package facts

import (
	"slices"
	"testing"
)

func TestRelate(t *testing.T) {
	cases := []struct {
		older, newer string
		want         RelationKind
		differsIn    []Kind
	}{
		// Updates: the same subject, a changed value, and the newer says so.
		{"The Apollo launch deadline is December 12.", "The Apollo launch deadline moved to December 19.", Updates, []Kind{Date}},
		{"Dan is my manager.", "After the reorg my new manager is Sofia.", Updates, []Kind{Name}},
		{"My cousin Ana lives in Madrid.", "Ana has moved to Valencia.", Updates, []Kind{Place}},
		{"Our rent is $1,850 a month.", "The landlord raised our rent to $1,975 a month.", Updates, []Kind{Amount}},
		{"We're planning to spend the summer in Portugal.", "Change of plans: our summer will be in Croatia instead of Portugal.", Updates, []Kind{Place}},
		{"My savings account is with Barclays.", "I moved my savings from Barclays to Marcus.", Updates, []Kind{Place}},
		{"Leo is allergic to peanuts.", "The allergist confirmed Leo is not allergic to peanuts after all.", Updates, []Kind{Negation}},
		{"The office printer is broken.", "The office printer works again since the repair.", Updates, []Kind{State}},
		// Claude's own wording: "the user" names no subject; a lead-in
		// before a colon is a sentence of its own.
		{"User's next dentist check-up is on February 3 at 10:15.", "The dentist's office called: the check-up is now on February 10 at 10:15.", Updates, []Kind{Date}},
		{"The user takes the 7:42 train to Leeds.", "Timetable change: the user's train to Leeds now leaves at 7:36.", Updates, []Kind{Time}},
		{"The newsletter has 1,200 subscribers.", "The newsletter passed 1,500 subscribers this week.", Updates, []Kind{Number}},
		// Without a word saying so: the same statement with only its value
		// changed.
		{"The Apollo launch deadline is December 12.", "The Apollo launch deadline is December 19.", Updates, []Kind{Date}},
		{"Yoga class is on Thursdays at 6:30 pm.", "Yoga class is on Thursdays at 7:15 pm.", Updates, []Kind{Time}},

		// Contradictions: one says it never happened.
		{"I wrote the Flask routes for the login page.", "I have never written any Flask routes for this project.", Contradicts, []Kind{Negation}},

		// Not updates: another subject, an event, or the same fact.
		{"Alice's birthday is January 20.", "Bob's birthday is March 2.", Unrelated, nil},
		{"The kitchen tap is dripping.", "The bathroom tap is now fixed.", Unrelated, nil},
		{"Alex's mother lives in York.", "Alex's father now lives in Leeds.", Unrelated, nil},
		{"The Orion project deadline is May 2.", "The Hermes project deadline has moved to May 23.", Unrelated, nil},
		{"Leo's teacher is Mrs. Clarke.", "Nora's new teacher is Mr. Bennett.", Unrelated, nil},
		{"I'm reading Dune.", "Alex is now reading Piranesi.", Unrelated, nil},
		{"Paid the electricity bill of 84 euros in October.", "Paid the electricity bill of 97 euros in November.", Unrelated, nil},
		{"Dentist appointment on December 2 at 9:30.", "Dentist appointment on January 14 at 11:00.", Unrelated, nil},
		{"Ran 5 km on Saturday morning.", "Ran 8 km on Sunday morning.", Unrelated, nil},
		{"The Apollo deadline is December 19", "The Apollo project deadline moved to December 19", Unrelated, nil},
		{"Dan is my manager.", "My manager now wants weekly reports.", Unrelated, nil},
		{"I take my coffee with oat milk.", "I now drink my tea with just milk.", Unrelated, nil},
		{"User feedback on the beta was positive from 12 testers.", "The user roles now include 3 admins.", Unrelated, nil},
		{"Reminder: Alice's birthday is January 20.", "Reminder: Bob's birthday is now March 2.", Unrelated, nil},
		// "new" on both sides says which thing was bought, not that the
		// older's price changed; a "new" the older lacks, or before the
		// older's own words, does say it.
		{"I paid 30 euros for the new boots.", "I paid 45 euros for the new winter jacket.", Unrelated, nil},
		{"My new manager is Dan.", "My new manager is Sofia.", Updates, []Kind{Name}},
		{"The gym membership is 40 euros a month.", "The gym membership is 45 euros a month with the new contract.", Updates, []Kind{Amount}},
		// "since" giving a reason says nothing changed, and "especially"
		// is no subject word (BEAM conversation 7).
		{"I want to improve my essay, especially since my final draft reached 4,700 words by May 13.",
			"How can I improve my essay structure, especially since I've decided to add a 500-word literature review section?", Unrelated, nil},
	}
	for _, c := range cases {
		r := Relate(c.older, c.newer)
		if r.Kind != c.want || !slices.Equal(r.DiffersIn, c.differsIn) {
			t.Errorf("%q then %q: %v %v, want %v %v", c.older, c.newer, r.Kind, r.DiffersIn, c.want, c.differsIn)
		}
	}
}

// TestRelateOneSided: a word saying which thing on one side only is
// reported, and a pair of clauses without one is preferred.
func TestRelateOneSided(t *testing.T) {
	older := "I've never attempted triangle classification problems before, but I recently completed 15 classification problems with a consistent accuracy rate above 80%."
	newer := "I want to compare Heron's formula with the base-height formula for triangle area calculations, and I've already completed 15 problems with 95% accuracy."
	if r := Relate(older, newer); r.Kind == Updates && !slices.Equal(r.OneSided, []string{"classification"}) {
		t.Errorf("classification problems / problems: %+v, want OneSided [classification]", r)
	}
	older = "I've completed 10 classification problems with 80% accuracy."
	newer = "I've now completed 15 classification problems with 85% accuracy."
	if r := Relate(older, newer); r.Kind != Updates || len(r.OneSided) > 0 {
		t.Errorf("the same problems: %+v, want an update with no one-sided word", r)
	}
	// "monthly" says how often, and "$550/month" has it anyway.
	older = "With Alexis starting her freelance design business in Jan 2025 and expecting $2,000/month initially, how should we adjust our joint budget, considering we've already increased our grocery budget to $500 monthly starting Sept 1, and later to $550, to accommodate her new income and our changing expenses?"
	newer = "I've increased my grocery budget to $550/month starting Dec 1 due to holiday meals and guests, can you help me plan how to manage this increased expense without affecting my other financial goals?"
	if r := Relate(older, newer); r.Kind != Updates || len(r.OneSided) > 0 {
		t.Errorf("grocery budget: %+v, want an update with no one-sided word", r)
	}
}

// TestRelateLongText finds an update inside long messages, clause by
// clause, as BEAM's turns state them.
func TestRelateLongText(t *testing.T) {
	older := "I'm trying to manage my Git repository for the budget tracker project, and I've already tagged a release v1.0.0 on April 20, which has been pushed to the GitHub repository with 150 commits and 12 branches merged. I want to make sure I'm using the best practices for version control."
	newer := "I'm trying to implement a secure authentication system for my application, considering the recent growth of commits merged into the main branch, which has now reached 165, and I want to ensure that my authentication and authorization features follow the best practices."
	if r := Relate(older, newer); r.Kind != Updates || !slices.Contains(r.DiffersIn, Number) {
		t.Errorf("commit count: %v %v", r.Kind, r.DiffersIn)
	}
}

// TestChangedDetailUpdatesOnlyItsSubject changes one slot of a statement
// at a time, 2,000 times: a change of whose or which thing it is (the
// subject) is never an update; a change of its value, said to be one, is.
func TestChangedDetailUpdatesOnlyItsSubject(t *testing.T) {
	changeOneSlot(t, 3, 2000, []slotPair{
		{"The %s project deadline is %s %s.", "The %s project deadline has moved to %s %s.", []slot{{true, slotProjects}, {false, slotMonths}, {false, slotDays}}},
		{"%s's flight to %s leaves at %s:30.", "%s's flight to %s now leaves at %s:30.", []slot{{true, slotNames}, {true, slotPlaces}, {false, []string{"7", "8", "9", "10", "11"}}}},
		{"%s's rent is £%s a month.", "%s's rent went up to £%s a month.", []slot{{true, slotNames}, {false, []string{"900", "1,100", "1,250", "1,400"}}}},
		{"My manager is %s.", "My new manager is %s.", []slot{{false, slotNames}}},
		{"The %s team sync is on %s at %s:00.", "The %s team sync is now on %s at %s:00.", []slot{{true, slotProjects}, {false, []string{"Monday", "Tuesday", "Thursday"}}, {false, []string{"9", "10", "14", "16"}}}},
	}, func(older, newer string) Relation {
		if len(Differences(older, newer)) == 0 {
			t.Fatalf("%q and %q reported the same", older, newer)
		}
		return Relate(older, newer)
	})
}

func TestRelateChangePhrase(t *testing.T) {
	const older = "I'm considering applying for a senior producer role, but I'm not sure I'm ready, especially with the application deadline being May 10."
	for _, c := range []struct {
		older, newer string
		anchored     bool
	}{
		{older, "I'm stressed about this senior producer role application, and I just found out the deadline was extended to May 20.", true},
		{older, "I just found out the application deadline has been postponed until May 20.", true},
		{older, "I just found out the deadline for the producer role application I sent in April was extended to May 20.", false},
		{"My monthly grocery budget is $400.", "My monthly grocery budget was raised by $50.", false},
		{"My monthly grocery budget is $400.", "My monthly grocery budget was raised to $450.", true},
	} {
		r := Relate(c.older, c.newer)
		if r.Kind != Updates || r.Anchored != c.anchored {
			t.Errorf("%q then %q: %v anchored %v, want an update anchored %v", c.older, c.newer, r.Kind, r.Anchored, c.anchored)
		}
	}
}

// TestRelateRestated: the speaker's own count or amount stated again in
// the same frame (the same dates, the same amount beside it) with another
// value is an update though no word says it changed; a frame that is only
// a year or a day, a value only dropped, a list of counts, another
// period, or what is logged of others is not.
func TestRelateRestated(t *testing.T) {
	for _, c := range []struct {
		older, newer string
		want         RelationKind
	}{
		// BEAM conversation 6: the interviews of one week, counted again.
		{"I'm kinda worried that I only secured 3 interviews for executive producer roles between April 25 and May 1, 2024, is that a good sign for my resume?",
			"I'm kinda curious, between April 25 and May 1, 2024, how can I leverage the fact that I secured 5 interviews to further improve my resume and increase my chances of getting more callbacks?", Updates},
		// BEAM conversation 20: the fees by one date, both replaced.
		{"I'm kinda worried about the costs, so can you help me understand how I can manage the $3,500 for initial patent filing fees and $5,000 for attorney fees by July 2024?",
			"I've allocated $4,000 for initial patent filing fees and $5,500 for attorney fees by July 2024, can you help me create a budget plan to cover additional consultation hours?", Updates},
		// BEAM conversation 19: the rate, three words from "assets" in the newer.
		{"I'm trying to minimize my estate tax, which is 15% on assets above $200,000, so can you help me figure out some legal ways to reduce that amount?",
			"I'm kinda worried about the estate tax, so can you tell me more about how the 12% rate on assets above $200,000 will affect my planning", Updates},
		// Four words from any shared word: a count of another thing.
		{"My estate tax is 15% on assets above $200,000.", "My estate plan lists 12 heirs of the assets above $200,000.", Unrelated},
		{"We have 14 guests confirmed for the party on June 8.", "We have 18 guests confirmed for the party on June 8, can you help me plan the food?", Updates},
		// Another period: two weeks, two counts.
		{"I secured 3 interviews between April 25 and May 1.", "I secured 5 interviews between May 2 and May 9.", Unrelated},
		// Only the year is the same.
		{"I've completed 90% of my course by April 28, 2024.", "I've secured 3 interviews by May 1, 2024.", Unrelated},
		// A value dropped, none in its place.
		{"I've blocked 1 hour daily for interview prep from May 15 to May 24.", "I've been preparing for my interview daily from May 15 to May 24.", Unrelated},
		// A list of counts: another triangle, not a corrected one.
		{"I'm working on the triangle with sides 3, 4 and 5 today.", "I'm working on the triangle with sides 3, 4 and 6 today.", Unrelated},
		// Logged of others, no one speaking of themselves.
		{"Hughes booked 3 seats on the flight to Lisbon for March 4.", "Hughes booked 5 seats on the flight to Lisbon for March 4.", Unrelated},
		{"Paid Hughes 84 euros for the boiler repair on May 3.", "Paid Hughes 97 euros for the boiler repair on May 3.", Unrelated},
		// What would hold if…
		{"If I get 3 interviews by May 1, I'll be happy.", "If I get 5 interviews by May 1, I'll celebrate.", Unrelated},
	} {
		if r := Relate(c.older, c.newer); r.Kind != c.want {
			t.Errorf("%q then %q: %v %v, want %v", c.older, c.newer, r.Kind, r.DiffersIn, c.want)
		}
	}
}
