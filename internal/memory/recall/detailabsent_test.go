package recall

import "testing"

// TestDetailAbsent checks each reading of DetailAbsent on a note about
// the asked thing that holds the asked detail (answered) and one that
// does not (absent), and that each reading acts only with its bit.
func TestDetailAbsent(t *testing.T) {
	cases := []struct {
		bit   int
		query string
		holds []string
		lacks []string
	}{
		{DetailIdent, "what's the policy number for the boat insurance?",
			[]string{"Boat insurance with Navigators, policy no. 55120-B.", "Boat insurance ref KX-4410, renews in June.", "Boat insurance policy 88412039."},
			[]string{"Boat insurance renews on 4 May 2027, £310 a year.", "Boat insurance is with Navigators now."}},
		{DetailIdent, "what's the alarm code at the studio?",
			[]string{"Studio alarm code is Mum's birthday.", "Alarm code at the studio: 7731"},
			[]string{"Studio alarm went off twice in March.", "The studio alarm was serviced on 12 June for £60."}},
		{DetailIdent, "what's Priya's mobile number?",
			[]string{"Priya's mobile is 07911 123456."},
			[]string{"Priya got a new mobile, a Pixel 8, last week.", "Priya's student number is 2041."}},
		{DetailIdent, "what's Sam's email address?",
			[]string{"Sam's email is sam.k@example.org"},
			[]string{"Sam moved to 14 Mill Lane in 2024."}},
		{DetailPerson, "who is the head coach at the rowing club?",
			[]string{"Rowing club head coach is Mrs Adeyemi.", "The rowing club is coached by Ines Varga."},
			[]string{"Joined Tyne Rowing Club, outings Saturday and Sunday at 8am.", "The rowing club is at Newburn Boathouse on Water Row."}},
		{DetailPerson, "what's the name of Gran's cardiologist?",
			[]string{"Gran's cardiologist is Dr Mensah."},
			[]string{"Gran's cardiology appointment is at the Freeman Hospital on 3 April.", "Gran sees a cardiologist in Leeds."}},
		{DetailPerson, "who has my ladder?",
			[]string{"Tom borrowed our ladder, he'll bring it back Sunday."},
			[]string{"Ladder is in the garage behind the bikes."}},
		{DetailPerson, "who cuts my hair?",
			[]string{"Joy from the salon does my hair every month."},
			[]string{"Haircut every six weeks, £28."}},
		{DetailClock, "what time does the bakery close?",
			[]string{"The padaria closes at 13h on Saturdays.", "Bakery open 7h30 to 18h45."},
			[]string{"The bakery on Rua Augusta is closed on 25 December."}},
		{DetailClock, "what time does the recital start?",
			[]string{"Recital at St Mary's starts at 7:30pm.", "Recital starts at half six.", "The recital is on Friday evening."},
			[]string{"Recital at St Mary's on 14 March.", "Bought two recital tickets for £12."}},
		{DetailMoney, "how much did the new sofa cost?",
			[]string{"New sofa from DFS, £899.", "The sofa was 450 quid in the sale.", "Sofa came to 1,249 in the end.", "Sofa 640€ at Conforama."},
			[]string{"New sofa from DFS arrives on 3 June.", "The new sofa is 3 seater, 210 cm wide."}},
		{DetailCount, "how many swimming lessons has Noah had?",
			[]string{"Noah has had 12 swimming lessons.", "Noah has done six swimming lessons so far."},
			[]string{"Noah's swimming lessons are £9 a session.", "Noah's swimming lessons start on 5 May."}},
		{DetailMeasure, "what dose of sertraline does Mum take?",
			[]string{"Mum takes sertraline 50mg daily.", "Mum is on two tablets of sertraline."},
			[]string{"Mum started sertraline in January.", "Mum's sertraline comes from Boots on the 3rd."}},
		{DetailMeasure, "how far is the walk to Hadrian's Wall?",
			[]string{"The walk to Hadrian's Wall is 8 miles."},
			[]string{"Walk to Hadrian's Wall on Saturday with Jo."}},
		{DetailScore, "what grade did Leo get in his piano exam?",
			[]string{"Leo passed his piano exam with a merit.", "Leo got 128 out of 150 in his piano exam."},
			[]string{"Leo's piano exam is on 19 May.", "Leo's piano exam is at the Sage."}},
		{DetailEvent, "what did the vet say about Bramble's lump?",
			[]string{"Vet said Bramble's lump is a harmless cyst.", "The vet thinks Bramble's lump is fatty."},
			[]string{"Bramble booked in at the vet on Friday about the lump.", "Bramble has a lump on her side, vet on the 9th."}},
		{DetailEvent, "what did I get Ana for her birthday last year?",
			[]string{"Got Ana a silver bracelet for her birthday."},
			[]string{"Ana's birthday is 2 August, thinking of a bracelet."}},
		{DetailEvent, "where did we go for our anniversary?",
			[]string{"Went to Riley's Fish Shack for our anniversary."},
			[]string{"Anniversary on 11 May, need to book somewhere."}},
	}
	for _, c := range cases {
		for _, h := range c.holds {
			if DetailAbsent(c.query, []string{h}, DetailsAll) {
				t.Errorf("%q / %q: detail absent, want held", c.query, h)
			}
		}
		for _, l := range c.lacks {
			if !DetailAbsent(c.query, []string{l}, DetailsAll) {
				t.Errorf("%q / %q: detail held, want absent", c.query, l)
			}
			if DetailAbsent(c.query, []string{l}, DetailsAll&^c.bit) {
				t.Errorf("%q / %q: absent without its bit %d", c.query, l, c.bit)
			}
			// Another note that holds it answers.
			if DetailAbsent(c.query, []string{l, c.holds[0]}, DetailsAll) {
				t.Errorf("%q: absent though %q holds it", c.query, c.holds[0])
			}
		}
	}
	// Questions no reading reads.
	for _, q := range []string{
		"what did I say about my sister?",        // a note of mine answers
		"what were my cholesterol numbers?",      // values, not an identifier
		"what time of year do the swifts leave?", // not a time of day
		"who is Priya?",                          // a name asked about
		"where is the rowing club?",
	} {
		if DetailAbsent(q, []string{"Nothing here holds anything."}, DetailsAll) {
			t.Errorf("%q: read as asking a detail", q)
		}
	}
	// A note written without capitals is not read.
	if DetailAbsent("who is the head coach at the rowing club?", []string{"rowing club coach is ines"}, DetailsAll) {
		t.Error("a lower-case note read for a name")
	}
}
