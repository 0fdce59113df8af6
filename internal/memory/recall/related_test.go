package recall

import "testing"

// The related readings meet a question's word by a note's word everyday
// speech puts for it, each only with its bit; a word of the question no
// note word stands for stays unmet.
func TestWordsMetRelated(t *testing.T) {
	base := KindHypernym | KindValue | KindPerson | KindsSaid | KindsTerse
	for _, c := range []struct {
		q, note string
		kind    int
		met     bool
	}{
		{"where is Kai's university?", "Kai's uni halls are Castle Leazes, £168 pw", KindClip, true},
		{"where is Kai's universe?", "Kai's uni halls are Castle Leazes, £168 pw", KindClip, false},
		{"how many hours of continuing professional development do I still need?", "need 12 more hrs of CPD before my registration renewal in July", KindClip, true},
		{"which medication is Tomasz on?", "Tomasz's meds: amlodipine 5mg every morning", KindClip, true},
		{"how much is my phone contract?", "moved my mobile to Vodafone, £18 a month SIM only", KindBrand, true},
		{"how much do we pay for gas and electricity?", "Octopus direct debit went up to £146 a month", KindBrand, true},
		{"how much is the water bill?", "Octopus direct debit went up to £146 a month", KindBrand, false},
		{"what's the sort code for my savings account?", "joint Monzo account for bills, sort code 04-00-04", KindBrand, false},
		{"which bank do we use for the bills?", "joint Monzo account for bills, sort code 04-00-04", KindBrand, true},
		{"how much do we pay for gas and electricity?", "an octopus at the aquarium, £146 a month to feed", KindBrand, false},
		{"how fast is our internet?", "Virgin Media broadband, 500 Mbps, £52/mo", KindMeasure | KindBrand, true},
		{"how long is the Chevin loop?", "Sunday walking group does the Chevin loop, about 11 km", KindMeasure, true},
		{"how long is the flight to Gdansk?", "Tomasz on Ryanair to Gdansk 2 Dec, back 9 Dec", KindMeasure | KindBrand, false},
		{"how heavy is Biscuit?", "Biscuit the labrador weighed 31 kg at his last check", KindMeasure, true},
		{"how heavy is the cat?", "Biscuit the labrador weighed 31 kg at his last check", KindMeasure, false},
		{"what's the combination for the bike lock?", "bike lock code 2580", KindAssoc, true},
		{"when is the rubbish collected?", "bins out Tuesday night, green recycling every other week", KindAssoc, true},
		{"when is the concert in Roundhay Park?", "Arctic Monkeys gig at Roundhay Park 12 June, 4 tickets", KindAssoc, true},
		{"when is granny's birthday?", "babcia's birthday 19 Jan, post a card to Gdansk by the 10th", KindFamily, true},
		{"when is grandad's birthday?", "babcia's birthday 19 Jan, post a card to Gdansk by the 10th", KindFamily, false},
		{"what's my aunt's number?", "mausi Anjali in Leicester, 07700 900412", KindFamily | KindAssoc, true},
	} {
		if got := WordsMetKinds(c.q, []string{c.note}, base|KindsRelated, nil); got != c.met {
			w, u := unmetWords(c.q, []string{c.note}, base|KindsRelated, nil)
			t.Errorf("%q / %q: met %v, want %v (words %q, unmet %q)", c.q, c.note, got, c.met, w, u)
		}
		if c.met && WordsMetKinds(c.q, []string{c.note}, base|KindsRelated&^c.kind, nil) {
			t.Errorf("%q / %q: met without its reading %d", c.q, c.note, c.kind)
		}
	}
}

// A date or a time in a short form answers "when", with short only; a
// weekday's abbreviation without a number beside it is no date.
func TestAnswerAbsentShort(t *testing.T) {
	for _, c := range []struct {
		q, note string
		absent  bool // with short
	}{
		{"when is Kai's dentist appointment?", "Kai's dentist booked 17/01 14h", false},
		{"when is the swimming gala?", "swimming gala 8/12, bring a towel", false},
		{"when is my yoga class?", "yoga class mer 18h45 with Inès", false},
		{"when is the car service?", "car service seg 8", false},
		{"when is the trip to Mar Menor?", "loved the beach bar at mar menor, wants to go back", true},
		{"when is the swim?", "sex ed talk for the kids, so awkward", true},
	} {
		if got := AnswerAbsentIn(c.q, []string{c.note}, true, true); got != c.absent {
			t.Errorf("%q / %q: absent %v, want %v", c.q, c.note, got, c.absent)
		}
		if !c.absent && !AnswerAbsentIn(c.q, []string{c.note}, true, false) {
			t.Errorf("%q / %q: a date read without short (the test's note must need it)", c.q, c.note)
		}
	}
	base := KindHypernym | KindValue | KindPerson | KindsSaid | KindsTerse
	if !WordsMetKinds("how old is Ewa turning?", []string{"ciocia Ewa faz 60 anos in March"}, base|KindsRelated, nil) {
		t.Errorf("an age in another language: not met")
	}
	if WordsMetKinds("how old is Ewa turning?", []string{"ciocia Ewa faz 60 anos in March"}, base, nil) {
		t.Errorf("an age in another language: met without KindMeasure")
	}
}
