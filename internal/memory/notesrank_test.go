package memory

import (
	"slices"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

// TestNoteSaysTheWeekday: "which bin goes out on Tuesday?" reads a period
// (the last Tuesday), and notes dated in it or referring to a time around
// it get the time weight; a note that says "Tuesday" itself, a habit of
// every week, is of that period too (RankOptions.NoCalendarWords off), so
// it is first, above notes stored that day that share no word with the
// question. With NoCalendarWords it is not (so the test checks the rule).
func TestNoteSaysTheWeekday(t *testing.T) {
	e := recallEngine(t) // now: Wednesday 2025-05-14 15:04 in Los Angeles
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 10, 0, 0, 0, la) }
	bins := StoreRequest{Content: "Brown bin goes out on Tuesday night, green and black alternate on Thursdays.", Timestamp: day(2024, 11, 2)}
	for _, n := range []StoreRequest{
		bins,
		{Content: "Planted garlic in the raised bed; it should be ready in July.", Timestamp: day(2025, 5, 13)},
		{Content: "Book club meets the first Wednesday of the month; this month's book is 'Small Things Like These'.", Timestamp: day(2025, 5, 13)},
		{Content: "The car insurance renews in November with AXA.", Timestamp: day(2025, 1, 20)},
		{Content: "Our dog Pepper is a three-year-old collie who is afraid of fireworks.", Timestamp: day(2024, 9, 1)},
	} {
		mustStore(t, e, n)
	}
	ask := func() SearchResult {
		return search(t, e, SearchRequest{Query: "which bin goes out on Tuesday?", Location: la, Limit: 5})
	}
	res := ask()
	if len(res.Results) == 0 || res.Results[0].Text != bins.Content {
		t.Errorf("got %v %v, want %q first", texts(res.Results), confidences(res.Results), bins.Content)
	}
	o := e.RankOptions()
	o.NoCalendarWords = true
	e.SetRankOptions(o)
	if res := ask(); len(res.Results) > 0 && res.Results[0].Text == bins.Content {
		t.Errorf("NoCalendarWords: the note saying Tuesday is still first (%v %v): the test does not check the rule", texts(res.Results), confidences(res.Results))
	}
}

// TestNoteAboutSomeoneElse: with RankOptions.OtherPersonWeight set, a
// question about one of the profile's people ("what would Alex like as a
// present?") ranks a note naming them above a note that shares its words
// but names only another of them ("Present idea for Hannah"); a note
// naming no one keeps its place. Off (the default), the other person's
// note is first (so the test checks the rule).
func TestNoteAboutSomeoneElse(t *testing.T) {
	e := recallEngine(t)
	alex := "Alex's birthday is 9 August; they keep hinting about a new road bike."
	hannah := "Present idea for Hannah: Big Thief's new album on vinyl."
	mustStoreTexts(t, e, alex, hannah,
		"Hannah lent me 'The Overstory' and wants it back by Christmas.",
		"Broadband is Virgin Media at £38 a month; the contract ends in August.",
		"Leo has football practice every Tuesday at 5:30 in Kelvingrove Park.")
	if _, _, err := e.UpdateProfile(testenv.Context(t), ProfileUpdate{AddContacts: []mongostore.Contact{
		{Name: "Alex", Relation: "partner"}, {Name: "Hannah", Relation: "best friend"}, {Name: "Leo", Relation: "son"}}}); err != nil {
		t.Fatal(err)
	}
	ask := func(q string) SearchResult { return search(t, e, SearchRequest{Query: q, Limit: 3}) }
	o := e.RankOptions()
	o.AskedAbsentWeight = -1 // the rule for a note naming none of those asked, which also reads it, off
	o.CoordWeight = -1       // and coordination, which also puts Alex's note first here
	e.SetRankOptions(o)
	if res := ask("what would Alex like as a present?"); len(res.Results) == 0 || res.Results[0].Text != hannah {
		t.Fatalf("off: got %v, want the other person's note %q first (else the test checks nothing)", texts(res.Results), hannah)
	}
	o = e.RankOptions()
	o.OtherPersonWeight = 0.6
	o.CoordWeight = -1 // this case reads OtherPersonWeight alone (coordination puts "Hannah lent me…" first for the Hannah question: BENCHMARKS.md "Coordination")
	e.SetRankOptions(o)
	for _, q := range []string{"what would Alex like as a present?", "what would my partner like as a present?"} {
		if res := ask(q); len(res.Results) == 0 || res.Results[0].Text != alex {
			t.Errorf("%q: got %v %v, want %q first", q, texts(res.Results), confidences(res.Results), alex)
		}
	}
	// Asked about Hannah, her present idea stays first.
	if res := ask("what present did I plan for Hannah?"); len(res.Results) == 0 || res.Results[0].Text != hannah {
		t.Errorf("Hannah: got %v %v, want %q first", texts(res.Results), confidences(res.Results), hannah)
	}
}

// TestNoteNamingNoneAsked: with RankOptions.AskedAbsentWeight (0.6 by
// default), a question about one of the profile's people ("what medicine
// does Aoife take?", or by relation, "my niece") ranks a note naming them
// above a note that shares the question's words but names none of those
// asked ("Dad takes warfarin…": someone else; "Our GP is Dr Okonkwo at
// the … medical centre": no one). Each rank keeps the confidence and the
// verdict it has without the weight: the weight reorders, it does not
// decide whether anything relevant is stored. Off, another note is first
// (so the test checks the rule).
func TestNoteNamingNoneAsked(t *testing.T) {
	e := recallEngine(t)
	mina := "The twins are in Year 2; Ada is in Miss Patel's class and Mina in Mr Hughes's."
	aoife := "Aoife uses a blue inhaler before PE on Tuesdays and Thursdays."
	mustStoreTexts(t, e, mina, aoife,
		"Teachers' pension: I can see my statement on the Teachers' Pensions website; log-in is in the password manager.",
		"The teacher training day is on the 3rd, so school is closed.",
		"Dad takes warfarin, so no aspirin or ibuprofen for him.",
		"Our GP is Dr Okonkwo at the Clontarf medical centre.")
	if _, _, err := e.UpdateProfile(testenv.Context(t), ProfileUpdate{AddContacts: []mongostore.Contact{
		{Name: "Mina", Relation: "daughter"}, {Name: "Ada", Relation: "daughter"}, {Name: "Aoife", Relation: "niece"}, {Name: "Frank", Relation: "father"}}}); err != nil {
		t.Fatal(err)
	}
	questions := map[string]string{"what medicine does Aoife take?": aoife, "what medicine does my niece take?": aoife}
	ask := func(q string) SearchResult { return search(t, e, SearchRequest{Query: q, Limit: 5}) }
	o := e.RankOptions()
	o.AskedAbsentWeight = -1
	e.SetRankOptions(o)
	off := map[string]SearchResult{}
	for q, want := range questions {
		res := ask(q)
		if len(res.Results) == 0 || res.Results[0].Text == want {
			t.Fatalf("off, %q: got %v, want another note first (else the test checks nothing)", q, texts(res.Results))
		}
		off[q] = res
	}
	o.AskedAbsentWeight = 0.6 // the default
	e.SetRankOptions(o)
	for q, want := range questions {
		res := ask(q)
		if len(res.Results) == 0 || res.Results[0].Text != want {
			t.Errorf("%q: got %v %v, want %q first", q, texts(res.Results), confidences(res.Results), want)
			continue
		}
		if got, was := confidences(res.Results), confidences(off[q].Results); !slices.Equal(got, was) || res.NothingRelevant != off[q].NothingRelevant {
			t.Errorf("%q: confidences %v, nothing_relevant %v; want each rank's as without the weight: %v, %v", q, got, res.NothingRelevant, was, off[q].NothingRelevant)
		}
	}
}

// TestCoordination: with RankOptions.CoordWeight (off by default; 1 with --rank coord=1), a note
// sharing one of the question's words ("family" of "who is our family
// doctor?" in "a family law firm") keeps only the share of its keyword
// coverage that the question's word groups it meets make up, so the note
// that answers in other words ("Our GP is Dr Fenwick…"), closer in
// meaning, is first; likewise "registration" for "what's our car's reg
// number?" over "the neighbours at number 14". Each rank keeps the
// confidence it has without the cut (the verdict may change: the rules
// after ranking read the first note, and "who is our family doctor?" is
// no longer told nothing_relevant). Off, the note sharing one word is
// first (so the test checks the rule).
func TestCoordination(t *testing.T) {
	e := recallEngine(t)
	gp := "Our GP is Dr Fenwick at the Shadwell Medical Centre."
	grace := "Grace is a solicitor at a family law firm on Park Square; she works from home on Fridays."
	car := "We drive a 2019 Skoda Octavia estate, registration 191-D-44817."
	murphys := "The neighbours at number 14, the Murphys, feed Pepper when we're away."
	mustStoreTexts(t, e, gp, grace, car, murphys,
		"Switched the electricity to Octopus; the monthly direct debit is now 112 pounds.",
		"The twins are in Year 2 at Chapel Allerton Primary.",
		"Biscuit is booked in at Moortown Vets on the 4th for his booster jabs.",
		"Our allotment is plot 37 at Meanwood Valley; rent is 45 pounds a year.")
	questions := map[string][2]string{ // the note first without the cut, with it
		"who is our family doctor?":    {grace, gp},
		"what's our car's reg number?": {murphys, car},
	}
	ask := func(q string) SearchResult { return search(t, e, SearchRequest{Query: q, Limit: 5}) }
	o := e.RankOptions()
	o.CoordWeight = -1
	o.MeaningLead = -1 // on by default; it reorders the same questions
	e.SetRankOptions(o)
	off := map[string]SearchResult{}
	for q, want := range questions {
		res := ask(q)
		if len(res.Results) == 0 || res.Results[0].Text != want[0] {
			t.Fatalf("off, %q: got %v %v, want %q first (else the test checks nothing)", q, texts(res.Results), confidences(res.Results), want[0])
		}
		off[q] = res
	}
	o.CoordWeight = 1
	e.SetRankOptions(o)
	for q, want := range questions {
		res := ask(q)
		if len(res.Results) == 0 || res.Results[0].Text != want[1] {
			t.Errorf("%q: got %v %v, want %q first", q, texts(res.Results), confidences(res.Results), want[1])
			continue
		}
		// The rules after ranking read the order without the cut: each
		// rank's confidence and verdict, and whether anything relevant is
		// stored, are those without it.
		sameVerdicts(t, q+" (cut)", res, off[q])
	}
	// CoordTop 1: the cut may reorder the first result only, that is
	// nothing: the order is the one without it.
	o.CoordTop = 1
	e.SetRankOptions(o)
	for q := range questions {
		if got, was := texts(ask(q).Results), texts(off[q].Results); !slices.Equal(got, was) {
			t.Errorf("CoordTop 1, %q: %v; want the order without the cut %v", q, got, was)
		}
	}
}

// weakFlags are the results' Weak flags, best first.
func weakFlags(res []Memory) []bool {
	out := make([]bool, len(res))
	for i, m := range res {
		out[i] = m.Weak
	}
	return out
}

// TestMeaningLead: a note holding none of the question's words but
// clearly closer to it in meaning (Options.MeaningLead) ranks above a
// note that shares a word with the question in another sense, among the
// first three; each rank keeps its confidence and verdict.
func TestMeaningLead(t *testing.T) {
	e := recallEngine(t)
	gp := "Our GP is Dr Fenwick at the Shadwell Medical Centre."
	grace := "Grace is a solicitor at a family law firm on Park Square; she works from home on Fridays."
	grinder := "Declan's birthday is 14 March; he wants a proper coffee grinder."
	whites := "I drink oat flat whites; no dairy since last spring."
	mustStoreTexts(t, e, gp, grace, grinder, whites,
		"Dad takes warfarin, so no aspirin or ibuprofen for him.",
		"Switched the electricity to Octopus; the monthly direct debit is now 112 pounds.",
		"The twins are in Year 2 at Chapel Allerton Primary.",
		"Biscuit is booked in at Moortown Vets on the 4th for his booster jabs.",
		"Our allotment is plot 37 at Meanwood Valley; rent is 45 pounds a year.")
	questions := map[string]string{ // the answer, not first without the lead
		"who is our family doctor?": gp,
		"how do I take my coffee?":  whites,
	}
	ask := func(q string) SearchResult { return search(t, e, SearchRequest{Query: q, Limit: 5}) }
	o := e.RankOptions()
	o.CoordWeight, o.MeaningLead = -1, -1
	e.SetRankOptions(o)
	off := map[string]SearchResult{}
	for q, want := range questions {
		res := ask(q)
		if len(res.Results) < 3 || res.Results[0].Text == want || !slices.Contains(texts(res.Results[:3]), want) {
			t.Fatalf("off, %q: got %v %v, want %q second or third (else the test checks nothing)", q, texts(res.Results), confidences(res.Results), want)
		}
		off[q] = res
	}
	o.MeaningLead = 0.1
	e.SetRankOptions(o)
	for q, want := range questions {
		res := ask(q)
		if len(res.Results) == 0 || res.Results[0].Text != want {
			t.Errorf("%q: got %v %v, want %q first", q, texts(res.Results), confidences(res.Results), want)
			continue
		}
		sameVerdicts(t, q+" (lead)", res, off[q])
	}
	// A lead in meaning under MeaningLead decides nothing.
	o.MeaningLead = 0.9
	e.SetRankOptions(o)
	for q := range questions {
		if got, was := texts(ask(q).Results), texts(off[q].Results); !slices.Equal(got, was) {
			t.Errorf("MeaningLead 0.9, %q: %v; want the order without the lead %v", q, got, was)
		}
	}
	// MeaningTop 1: nothing to reorder.
	o.MeaningLead, o.MeaningTop = 0.1, 1
	e.SetRankOptions(o)
	for q := range questions {
		if got, was := texts(ask(q).Results), texts(off[q].Results); !slices.Equal(got, was) {
			t.Errorf("MeaningTop 1, %q: %v; want the order without the lead %v", q, got, was)
		}
	}
}

// TestMeaningLeadSameSense: a note sharing the question's word in the same
// sense, itself close in meaning (over MeaningLeadRatio of the leader's
// cosine), keeps its place above a closer note holding none of the words.
func TestMeaningLeadSameSense(t *testing.T) {
	e := recallEngine(t)
	fios := "Switched internet providers to Verizon Fios, $45 a month."
	mustStoreTexts(t, e, fios,
		"Our broadband costs $55 a month.",
		"The mobile plan costs $45 a month.",
		"The landlord is raising what we pay for the flat to £1,240 from July.",
		"Got the promotion: I'm paid $86,500 a year now.",
		"The mobile app project ships its beta in June.")
	q := "How much do we pay for internet?"
	o := e.RankOptions()
	o.CoordWeight, o.MeaningLead = -1, 0.1
	e.SetRankOptions(o)
	if res := search(t, e, SearchRequest{Query: q, Limit: 5}); len(res.Results) == 0 || res.Results[0].Text != fios {
		t.Errorf("%q: got %v, want %q first", q, texts(res.Results), fios)
	}
	// Without the ratio the closer look-alike leads (else the test checks
	// nothing).
	o.MeaningLeadRatio = -1
	e.SetRankOptions(o)
	if res := search(t, e, SearchRequest{Query: q, Limit: 5}); len(res.Results) == 0 || res.Results[0].Text == fios {
		t.Fatalf("no ratio, %q: got %v, want another note first", q, texts(res.Results))
	}
}

// sameVerdicts fails unless a reordered result keeps, rank by rank, the
// confidences and weak flags of the order without the reorder, and its
// nothing_relevant verdict.
func sameVerdicts(t *testing.T, label string, res, was SearchResult) {
	t.Helper()
	if got, want := confidences(res.Results), confidences(was.Results); !slices.Equal(got, want) {
		t.Errorf("%s: confidences %v; want each rank's as without the reorder: %v", label, got, want)
	}
	if got, want := weakFlags(res.Results), weakFlags(was.Results); !slices.Equal(got, want) || res.NothingRelevant != was.NothingRelevant {
		t.Errorf("%s: weak %v, nothing relevant %v; want each rank's as without the reorder: %v, %v", label, got, res.NothingRelevant, want, was.NothingRelevant)
	}
}

// TestKindLead: a note that gives the value of the kind asked ("how much
// …": an amount) leads over a first note about the same thing that gives
// none, when their scores are close (Options.KindLead); each rank keeps
// its confidence and verdict. Off, and with the ratio above the pair's,
// the order is the one without it.
func TestKindLead(t *testing.T) {
	e := recallEngine(t)
	quote := "Kitchen quote from Hartley Builders came to 18,400 pounds including the worktops."
	start := "The builder said the kitchen renovation can start on May 4 and should take six weeks."
	salford := "Hannah has just started as a sound engineer at the BBC in Salford."
	mustStoreTexts(t, e, quote, start, salford,
		"Home insurance renews on 30 November with Aviva; last year it cost 312 pounds.",
		"Monthly grocery budget is 450 pounds; we went over by 60 in October.",
		"Sam's lentil ragu recipe: red lentils, tinned tomatoes, smoked paprika, a splash of red wine, simmer 40 minutes.",
		"Hannah lent me 'The Overstory' and wants it back by Christmas.",
		"Present idea for Hannah: Big Thief's new album on vinyl.",
		"Book club is the last Thursday of the month at Hannah's; next pick is 'Demon Copperhead'.",
		"Hannah phoned this morning; she sounds happy now.",
		"Maya is flying in on the 20th and staying with us for a week.")
	q := "how much was the kitchen going to cost?"
	ask := func() SearchResult { return search(t, e, SearchRequest{Query: q, Limit: 5}) }
	o := e.RankOptions()
	o.KindLead = -1
	e.SetRankOptions(o)
	off := ask()
	if len(off.Results) < 3 || off.Results[0].Text == quote || !slices.Contains(texts(off.Results[:3]), quote) {
		t.Fatalf("off, %q: got %v %v, want %q second or third (else the test checks nothing)", q, texts(off.Results), confidences(off.Results), quote)
	}
	o.KindLead = 0.85
	e.SetRankOptions(o)
	res := ask()
	if len(res.Results) == 0 || res.Results[0].Text != quote {
		t.Errorf("%q: got %v %v, want %q first", q, texts(res.Results), confidences(res.Results), quote)
	} else {
		sameVerdicts(t, q+" (kind lead)", res, off)
		// The others keep their order.
		rest := slices.DeleteFunc(texts(off.Results), func(s string) bool { return s == quote })
		if got := texts(res.Results[1:]); !slices.Equal(got, rest) {
			t.Errorf("%q: the others %v; want their order without the lead %v", q, got, rest)
		}
	}
	// A ratio no pair reaches moves nothing.
	o.KindLead = 1.5
	e.SetRankOptions(o)
	if got, was := texts(ask().Results), texts(off.Results); !slices.Equal(got, was) {
		t.Errorf("KindLead 1.5, %q: %v; want the order without the lead %v", q, got, was)
	}
	// "where …" asks for a place only with KindLeadWhere.
	wq := "where does Hannah work now?"
	o.KindLead, o.KindLeadWhere = -1, -1
	e.SetRankOptions(o)
	woff := search(t, e, SearchRequest{Query: wq, Limit: 5})
	if len(woff.Results) < 2 || woff.Results[0].Text == salford {
		t.Logf("off, %q: got %v (the salford note already first: the where part checks nothing)", wq, texts(woff.Results))
		return
	}
	// (The notes' scores here: 1.89 first, 1.08 the Salford note.)
	o.KindLead = 0.5
	e.SetRankOptions(o)
	if got, was := texts(search(t, e, SearchRequest{Query: wq, Limit: 5}).Results), texts(woff.Results); !slices.Equal(got, was) {
		t.Errorf("without KindLeadWhere, %q: %v; want %v", wq, got, was)
	}
	o.KindLeadWhere = 1
	e.SetRankOptions(o)
	if res := search(t, e, SearchRequest{Query: wq, Limit: 5}); len(res.Results) == 0 || res.Results[0].Text != salford {
		t.Errorf("KindLeadWhere, %q: got %v, want %q first", wq, texts(res.Results), salford)
	} else {
		sameVerdicts(t, wq+" (kind lead, where)", res, woff)
	}
}
