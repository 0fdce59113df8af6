package memory

import "testing"

// TestAnswerAbsentBar: with Options.AnswerAbsentBar, a question asking
// for an amount whose notes name the thing but give no amount is told
// nothing_relevant, the note shown weak; a question the same note gives a
// value for (a date, a firm) still finds it, and so does the amount's
// question once a note gives one. The relevance bar is lowered to 0.01
// so that, without the rule, the note clears it.
func TestAnswerAbsentBar(t *testing.T) {
	e := recallEngine(t)
	note := "Switched electricity to Flogas in September; the bill comes every two months."
	mustStoreTexts(t, e, note,
		"The water in the garden tap is off for the winter.",
		"Liked the Douro red we had at Maya's.")
	amount := SearchRequest{Query: "how much is the electricity bill", Limit: 3}
	month := SearchRequest{Query: "when did I switch electricity to Flogas", Limit: 3}
	supplier := SearchRequest{Query: "who is our electricity supplier", Limit: 3}
	e.SetRankOptions(RankOptions{MinConfidence: 0.01, AnswerAbsentBar: -1, DetailAbsentBar: -1})
	for _, q := range []SearchRequest{amount, month, supplier} {
		if res := search(t, e, q); res.NothingRelevant {
			t.Fatalf("%q, rule off: nothing relevant (%v), want the note", q.Query, confidences(res.Results))
		}
	}
	e.SetRankOptions(RankOptions{MinConfidence: 0.01, AnswerAbsentBar: 1.01})
	if res := search(t, e, amount); !res.NothingRelevant || len(res.Results) == 0 || !res.Results[0].Weak || res.Results[0].Text != note {
		t.Errorf("%q, rule on: nothing_relevant %v, results %v, want the note shown weak", amount.Query, res.NothingRelevant, confidences(res.Results))
	} else if res.NothingBy != "answerabsent" {
		t.Errorf("%q, rule on: NothingBy %q, want answerabsent", amount.Query, res.NothingBy)
	}
	for _, q := range []SearchRequest{month, supplier} {
		if res := search(t, e, q); res.NothingRelevant {
			t.Errorf("%q, rule on: nothing relevant (%v), want the note", q.Query, confidences(res.Results))
		} else if res.NothingBy != "" {
			t.Errorf("%q, answered: NothingBy %q, want none", q.Query, res.NothingBy)
		}
	}
	// NothingBy names the base bar when no result clears it and no
	// words-met reading lowers it (the trace of BENCHMARKS.md, "The
	// nothing_relevant verdict by the step that made it").
	e.SetRankOptions(RankOptions{MinConfidence: 1.01, WordsMetFirstBar: -1, AnswerAbsentBar: 1.01})
	if res := search(t, e, supplier); !res.NothingRelevant || res.NothingBy != "bar" {
		t.Errorf("%q, bar above every confidence: nothing_relevant %v, NothingBy %q, want bar", supplier.Query, res.NothingRelevant, res.NothingBy)
	}
	e.SetRankOptions(RankOptions{MinConfidence: 0.01, AnswerAbsentBar: 1.01})
	mustStoreTexts(t, e, "The electricity bill was 84 euros last time.")
	if res := search(t, e, amount); res.NothingRelevant {
		t.Errorf("%q, rule on, an amount stored: nothing relevant (%v)", amount.Query, confidences(res.Results))
	}
}
