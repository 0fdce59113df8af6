package memory

import (
	"context"
	"testing"

	"github.com/infmem/infmem/internal/memory/recall"
	"github.com/infmem/infmem/mongostore"
)

// TestWordsMetBar: with Options.WordsMetBar, notes among the first three
// that hold every content word of the question clear the lowered bar; a
// question with a word no note holds stays under it. The relevance bar is
// raised to 1.01 so that, without the option, every note is weak.
func TestWordsMetBar(t *testing.T) {
	e := recallEngine(t)
	hair := "Hairdresser is Jo; she cut my hair short in May."
	mustStoreTexts(t, e, hair,
		"The garden tap is off for the winter.",
		"Liked the Douro red we had at Maya's.")
	cuts := SearchRequest{Query: "who cuts my hair", Limit: 3}
	colour := SearchRequest{Query: "who colours my hair", Limit: 3}
	e.SetRankOptions(RankOptions{MinConfidence: 1.01, WordsMetFirstBar: -1})
	if res := search(t, e, cuts); !res.NothingRelevant {
		t.Fatalf("%q, option off: answered (%v), want nothing relevant", cuts.Query, confidences(res.Results))
	}
	e.SetRankOptions(RankOptions{MinConfidence: 1.01, WordsMetBar: 0.01, WordsMetFirstBar: -1})
	if res := search(t, e, cuts); res.NothingRelevant || len(res.Results) == 0 || res.Results[0].Weak || res.Results[0].Text != hair {
		t.Errorf("%q, option on: nothing_relevant %v, results %v, want the note first, not weak", cuts.Query, res.NothingRelevant, confidences(res.Results))
	}
	if res := search(t, e, colour); !res.NothingRelevant {
		t.Errorf("%q, option on: answered (%v), want nothing relevant (no note holds colour)", colour.Query, confidences(res.Results))
	}
}

// TestWordsMetFirstBar: with Options.WordsMetFirstBar the first result
// clears the lowered bar only when it alone holds every content word of
// the question; words held by two notes about other things (a cousin's
// wedding, an anniversary dinner) do not lower it, as they do with
// WordsMetBar, which reads the first three together.
func TestWordsMetFirstBar(t *testing.T) {
	e := recallEngine(t)
	hair := "Hairdresser is Jo; she cut my hair short in May."
	mustStoreTexts(t, e, hair,
		"Invited to a cousin's wedding in Manchester on 24 August.",
		"Dinner at Wilks for our anniversary was lovely.")
	cuts := SearchRequest{Query: "who cuts my hair", Limit: 3}
	wedding := SearchRequest{Query: "when is our wedding anniversary", Limit: 3}
	e.SetRankOptions(RankOptions{MinConfidence: 1.01, WordsMetFirstBar: -1})
	if res := search(t, e, cuts); !res.NothingRelevant {
		t.Fatalf("%q, option off: answered (%v), want nothing relevant", cuts.Query, confidences(res.Results))
	}
	e.SetRankOptions(RankOptions{MinConfidence: 1.01}) // the default WordsMetFirstBar
	if res := search(t, e, cuts); res.NothingRelevant || len(res.Results) == 0 || res.Results[0].Weak || res.Results[0].Text != hair {
		t.Errorf("%q: nothing_relevant %v, results %v, want the note first, not weak", cuts.Query, res.NothingRelevant, confidences(res.Results))
	}
	if res := search(t, e, wedding); !res.NothingRelevant {
		t.Errorf("%q: answered (%v), want nothing relevant (no note holds both words)", wedding.Query, confidences(res.Results))
	}
	e.SetRankOptions(RankOptions{MinConfidence: 1.01, WordsMetBar: 0.01, WordsMetFirstBar: -1})
	if res := search(t, e, wedding); res.NothingRelevant {
		t.Errorf("%q, first three read together: nothing relevant, want answered (the test's notes must hold both words)", wedding.Query)
	}
}

// TestWordsMetTerse: a terse note that answers by shorthand ("bday" for
// "birthday", its person named for "my husband" by the profile) clears
// the first-note bar with recall.KindsTerse (the default WordsMetKinds)
// and not without it; a question whose thing the note leaves unsaid
// stays nothing_relevant. The relevance bar is raised to 1.01 so that
// only the words-met reading can answer.
func TestWordsMetTerse(t *testing.T) {
	e := recallEngine(t)
	ctx := context.Background()
	if _, _, err := e.UpdateProfile(ctx, ProfileUpdate{AddContacts: []mongostore.Contact{{Name: "Tomos", Relation: "husband"}}}); err != nil {
		t.Fatal(err)
	}
	bday := "tomos bday 3 aug, wants a new drill"
	mustStoreTexts(t, e, bday,
		"bins: black bags tues, recycling weds",
		"garage door code 5531")
	when := SearchRequest{Query: "when is my husband's birthday?", Limit: 3}
	shoe := SearchRequest{Query: "what is my husband's shoe size?", Limit: 3}
	e.SetRankOptions(RankOptions{MinConfidence: 1.01, WordsMetKinds: recall.KindHypernym | recall.KindValue | recall.KindPerson | recall.KindsSaid})
	if res := search(t, e, when); !res.NothingRelevant {
		t.Fatalf("%q, without KindsTerse: answered (%v), want nothing relevant", when.Query, confidences(res.Results))
	}
	e.SetRankOptions(RankOptions{MinConfidence: 1.01}) // the default WordsMetKinds
	if res := search(t, e, when); res.NothingRelevant || len(res.Results) == 0 || res.Results[0].Weak || res.Results[0].Text != bday {
		t.Errorf("%q: nothing_relevant %v, results %v, want the note first, not weak", when.Query, res.NothingRelevant, confidences(res.Results))
	}
	if res := search(t, e, shoe); !res.NothingRelevant {
		t.Errorf("%q: answered (%v), want nothing relevant (no note gives a shoe size)", shoe.Query, confidences(res.Results))
	}
}

// TestWordsMetRelated: a note that names the thing asked by a brand of
// its category ("Vodafone" for the phone contract) or gives its value in
// a unit of the measure asked ("500 Mbps" for how fast) clears the
// first-note bar with recall.KindsRelated and not without it; a question
// whose other word the note leaves unsaid (water, savings) stays
// nothing_relevant. The relevance bar is raised to 1.01 so that only the
// words-met reading can answer.
func TestWordsMetRelated(t *testing.T) {
	e := recallEngine(t)
	mobile := "moved my mobile to Vodafone, £18 a month SIM only"
	broadband := "Virgin Media broadband, 500 Mbps, £52/mo"
	mustStoreTexts(t, e, mobile, broadband, "garage door code 5531")
	base := recall.KindHypernym | recall.KindValue | recall.KindPerson | recall.KindsSaid | recall.KindsTerse
	contract := SearchRequest{Query: "how much is my phone contract?", Limit: 3}
	fast := SearchRequest{Query: "how fast is our internet?", Limit: 3}
	water := SearchRequest{Query: "how much is my water contract?", Limit: 3}
	e.SetRankOptions(RankOptions{MinConfidence: 1.01, WordsMetKinds: float64(base)})
	for _, q := range []SearchRequest{contract, fast} {
		if res := search(t, e, q); !res.NothingRelevant {
			t.Fatalf("%q, without KindsRelated: answered (%v), want nothing relevant", q.Query, confidences(res.Results))
		}
	}
	e.SetRankOptions(RankOptions{MinConfidence: 1.01, WordsMetKinds: float64(base | recall.KindsRelated)})
	for _, c := range []struct {
		q    SearchRequest
		want string
	}{{contract, mobile}, {fast, broadband}} {
		q, want := c.q, c.want
		if res := search(t, e, q); res.NothingRelevant || len(res.Results) == 0 || res.Results[0].Weak || res.Results[0].Text != want {
			t.Errorf("%q: nothing_relevant %v, results %v, want %q first, not weak", q.Query, res.NothingRelevant, confidences(res.Results), want)
		}
	}
	if res := search(t, e, water); !res.NothingRelevant {
		t.Errorf("%q: answered (%v), want nothing relevant (no note is about water)", water.Query, confidences(res.Results))
	}
}
