package memory

import (
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

// TestTimeWordsInQuery: time words in a retrieve query ("yesterday", "last
// week", "on Monday", "in March") pick the memories of that period in the
// user's zone, and the rest of the query ranks within it; a query that
// asks for the period alone gets the period's memories, above the bar.
func TestTimeWordsInQuery(t *testing.T) {
	e := recallEngine(t) // now: Wednesday 2025-05-14 15:04 in Los Angeles
	day := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, la) }
	notes := []StoreRequest{
		{Content: "The builder said the garden fence needs six new posts and quoted 800 euros for the fence.", Timestamp: day(2025, 3, 3, 10)},
		{Content: "Fence: the builder came back about the garden fence; he can start the fence in June.", Timestamp: day(2025, 4, 2, 10)},
		{Content: "The builder mentioned the posts again and wants a deposit.", Timestamp: day(2025, 5, 7, 9)},
		{Content: "Lunch with Priya; she is moving to Toronto for a biotech job.", Timestamp: day(2025, 5, 12, 13)},
		{Content: "Sam and I planned the summer holiday: two weeks in Crete.", Timestamp: day(2025, 5, 13, 20)},
		{Content: "Watered the tomatoes and fixed the drip line.", Timestamp: day(2025, 5, 14, 9)},
	}
	for _, n := range notes {
		mustStore(t, e, n)
	}
	// 23:30 on the 13th in Los Angeles is already the 14th in UTC: the
	// user's day counts.
	mustStore(t, e, StoreRequest{Content: "Booked the ferry tickets for the holiday.", Timestamp: day(2025, 5, 13, 23).Add(30 * time.Minute)})

	first := func(q, want string) {
		t.Helper()
		res := search(t, e, SearchRequest{Query: q, Location: la})
		if len(res.Results) == 0 || res.Results[0].Text != want || res.NothingRelevant {
			t.Errorf("%q: got %v %v (nothing relevant %v), want %q first", q, texts(res.Results), confidences(res.Results), res.NothingRelevant, want)
		}
	}
	first("what did the builder say about the fence last week?", notes[2].Content)
	first("what did the builder say about the fence in March?", notes[0].Content)
	first("who did I have lunch with on Monday?", notes[3].Content)

	res := search(t, e, SearchRequest{Query: "what did we talk about yesterday?", Location: la})
	got := map[string]bool{}
	for _, m := range res.Results {
		got[m.Text] = true
		if m.Weak {
			t.Errorf("yesterday: %q is marked weak", m.Text)
		}
	}
	if res.NothingRelevant || len(res.Results) != 2 || !got[notes[4].Content] || !got["Booked the ferry tickets for the holiday."] {
		t.Errorf("yesterday: got %v (nothing relevant %v), want the two memories of May 13", texts(res.Results), res.NothingRelevant)
	}
	// Without its time words the query ranks by its words alone.
	first("what did the builder say about the fence?", notes[1].Content)
}

// TestSpeakerNameTolerance: a speaker is recognised in a question however
// the question spells the name: a letter off ("Muhammad" for a speaker
// "Muhhamed"), a full name for a first name and the reverse.
func TestSpeakerNameTolerance(t *testing.T) {
	e := recallEngine(t)
	session := time.Date(2024, 2, 3, 18, 0, 0, 0, la)
	turns := []StoreRequest{
		{Content: "honestly the biryani last night was the best thing i made all year", Speaker: "Muhhamed"},
		{Content: "who cooked the biryani? i want to cook it too", Speaker: "Lena"},
		{Content: "i brought the good rice from the market for the biryani", Speaker: "Fahim Khan"},
		{Content: "lol i will bring the drinks for the next biryani night", Speaker: "Lena"},
	}
	for _, turn := range turns {
		turn.Scope, turn.Timestamp, turn.ConversationID = "chat", session, "chat-1"
		mustStore(t, e, turn)
	}
	for q, want := range map[string]string{
		"what did Muhammad cook?":              turns[0].Content,
		"what did fahim bring for the biryani": turns[2].Content,
	} {
		res := search(t, e, SearchRequest{Query: q, Scope: "chat", ExactScope: true})
		if len(res.Results) == 0 || res.Results[0].Text != want {
			t.Errorf("%q: got %v, want %q first", q, texts(res.Results), want)
		}
	}
}

// TestProfilePeople: "my sister", "my boss", "mom" in a query stand for
// the people the profile names by those relations, so memories naming
// them by name are found; without the contact they are not.
func TestProfilePeople(t *testing.T) {
	e := recallEngine(t)
	notes := []string{
		"Lena called: she got the job at the architecture firm in Porto.",
		"Dmitri wants the quarterly report on his desk by Thursday.",
		"Rosa is coming over for lunch on Sunday and bringing her lemon cake.",
		"The sister restaurant of our favourite bistro opened downtown.",
		"Booked the car for its annual service at the garage.",
		"My report on the quarterly budget is almost done.",
	}
	mustStoreTexts(t, e, notes...)
	ask := func(q string) SearchResult { return search(t, e, SearchRequest{Query: q, Limit: 3}) }
	// Before the profile names anyone, "my sister" finds the restaurant.
	if res := ask("what did I say about my sister?"); len(res.Results) > 0 && res.Results[0].Text == notes[0] {
		t.Fatalf("without the contact the sister cannot be known, got %v", texts(res.Results))
	}
	if _, _, err := e.UpdateProfile(testenv.Context(t), ProfileUpdate{AddContacts: []mongostore.Contact{
		{Name: "Lena", Relation: "sister"}, {Name: "Dmitri Volkov", Relation: "manager"}, {Name: "Rosa", Relation: "mother"}}}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"what did I say about my sister?":     notes[0],
		"what does my boss want by Thursday?": notes[1],
		"when is mom coming over?":            notes[2],
	} {
		res := ask(q)
		if len(res.Results) == 0 || res.Results[0].Text != want || res.NothingRelevant {
			t.Errorf("%q: got %v %v (nothing relevant %v), want %q first", q, texts(res.Results), confidences(res.Results), res.NothingRelevant, want)
		}
	}
	// "sister" itself still matches the restaurant; the sister is among
	// the first two, above the bar.
	res := ask("what's new with my sister")
	if len(res.Results) < 2 || res.Results[0].Text != notes[0] && res.Results[1].Text != notes[0] || res.NothingRelevant {
		t.Errorf("what's new with my sister: got %v %v", texts(res.Results), confidences(res.Results))
	}
}

// TestProfilePersonOverTheirEntry: a memory saying who "my sister" is
// (holding the relation and every word of her name) does not outrank the
// memory naming her that holds what the query asks: the relation and its
// names count once, as one word of the query.
func TestProfilePersonOverTheirEntry(t *testing.T) {
	e := recallEngine(t)
	notes := []string{
		"My sister is Lena Petrova; she lives in Porto with her two cats.",
		"Lena said the wedding venue needs a deposit before March.",
		"My partner is Sam, a nurse at the city hospital.",
		"Sam is painting the spare bedroom green this weekend.",
		"Booked the car for its annual service at the garage.",
		"The venue for the team offsite is a barn near Bath.",
	}
	mustStoreTexts(t, e, notes...)
	if _, _, err := e.UpdateProfile(testenv.Context(t), ProfileUpdate{AddContacts: []mongostore.Contact{
		{Name: "Lena Petrova", Relation: "sister"}, {Name: "Sam", Relation: "partner"}}}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"what did my sister say about the venue?": notes[1],
		"what is my partner painting?":            notes[3],
	} {
		res := search(t, e, SearchRequest{Query: q, Limit: 3})
		if len(res.Results) == 0 || res.Results[0].Text != want || res.NothingRelevant {
			t.Errorf("%q: got %v %v (nothing relevant %v), want %q first", q, texts(res.Results), confidences(res.Results), res.NothingRelevant, want)
		}
	}
}

// TestRelationVariants: a query naming a relation by one word ("my
// mother", "my boss") finds a note naming it by another ("Mum",
// "manager"), with or without a contact for it, and the note covers that
// word of the query (Evidence.Coverage) as one saying "mother" would;
// with NoRelationVariants it covers none of it.
func TestRelationVariants(t *testing.T) {
	e := recallEngine(t)
	notes := []string{
		"Mum's birthday dinner is booked at the Thai place on the 14th.",
		"Birthday dinner for the cycling club at the Thai place on Friday.",
		"Booked the car for its annual service at the garage.",
		"The new manager wants the rota changed before the audit.",
		"The audit team wants every receipt scanned by Monday.",
	}
	mustStoreTexts(t, e, notes...)
	ask := func(q string) SearchResult {
		return search(t, e, SearchRequest{Query: q, Limit: 3, Mode: ModeKeyword})
	}
	coverage := func(res SearchResult, text string) float64 {
		for _, m := range res.Results {
			if m.Text == text && m.Evidence != nil {
				return m.Evidence.Coverage
			}
		}
		return 0
	}
	cases := map[string]string{
		"when is my mother's birthday dinner?":    notes[0],
		"what does my boss want before the audit": notes[3],
	}
	off := map[string]float64{}
	e.SetRankOptions(RankOptions{NoRelationVariants: true})
	for q, want := range cases {
		off[q] = coverage(ask(q), want)
	}
	e.SetRankOptions(RankOptions{})
	check := func(when string) {
		for q, want := range cases {
			res := ask(q)
			if len(res.Results) == 0 || res.Results[0].Text != want {
				t.Errorf("%s: %q: got %v, want %q first", when, q, texts(res.Results), want)
			}
			if c := coverage(res, want); c <= off[q]+0.1 {
				t.Errorf("%s: %q: coverage %.2f, without variants %.2f: the relation's word is not covered", when, q, c, off[q])
			}
		}
	}
	check("no contacts")
	// With a contact for the relation, its name joins the variants.
	if _, _, err := e.UpdateProfile(testenv.Context(t), ProfileUpdate{AddContacts: []mongostore.Contact{
		{Name: "Ruth", Relation: "mother"}, {Name: "Okafor", Relation: "boss"}}}); err != nil {
		t.Fatal(err)
	}
	check("with contacts")
}
