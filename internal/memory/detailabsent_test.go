package memory

import "testing"

// TestDetailAbsentBar: through the real engine, a question asking a
// detail the note about the asked thing does not hold (the policy number
// of an insurance whose note gives its price) is nothing_relevant by
// detailabsent, with the rule on only; the detail stored answers it.
func TestDetailAbsentBar(t *testing.T) {
	e := recallEngine(t)
	note := "Boat insurance with Navigators covers 2 drivers, £310 a year."
	mustStoreTexts(t, e, note,
		"The water in the garden tap is off for the winter.",
		"Liked the Douro red we had at Maya's.")
	policy := SearchRequest{Query: "what's the policy number for the boat insurance?", Limit: 3}
	price := SearchRequest{Query: "how much is the boat insurance?", Limit: 3}
	e.SetRankOptions(RankOptions{MinConfidence: 0.01, DetailAbsentBar: -1})
	if res := search(t, e, policy); res.NothingRelevant {
		t.Fatalf("%q, rule off: nothing relevant (%v), want the note", policy.Query, confidences(res.Results))
	}
	e.SetRankOptions(RankOptions{MinConfidence: 0.01})
	if res := search(t, e, policy); !res.NothingRelevant || len(res.Results) == 0 || res.Results[0].Text != note {
		t.Errorf("%q, rule on: nothing_relevant %v, results %v, want the note shown weak", policy.Query, res.NothingRelevant, confidences(res.Results))
	} else if res.NothingBy != "detailabsent" {
		t.Errorf("%q, rule on: NothingBy %q, want detailabsent", policy.Query, res.NothingBy)
	}
	if res := search(t, e, price); res.NothingRelevant {
		t.Errorf("%q, rule on: nothing relevant (%v), want the note", price.Query, confidences(res.Results))
	}
	mustStoreTexts(t, e, "Boat insurance policy no. 55120-B with Navigators.")
	if res := search(t, e, policy); res.NothingRelevant {
		t.Errorf("%q, rule on, the number stored: nothing relevant (%v)", policy.Query, confidences(res.Results))
	}
}
