package memory

import "testing"

// TestOtherThingBar: with Options.OtherThingBar (on by default), a question about the
// water bill whose closest memory is about the electricity bill is told
// nothing_relevant, the note shown weak; the electricity bill's question
// still finds it. The relevance bar is lowered to 0.3 here so that,
// without the rule, the electricity note clears it for the water bill's
// question (in a store of six memories its confidence is 0.36; in the
// everyday set's 115 notes, 0.45 against the default bar of 0.4).
func TestOtherThingBar(t *testing.T) {
	e := recallEngine(t)
	mustStoreTexts(t, e,
		"Paid the electricity bill of 84 euros in October.",
		"Car insurance is with Admiral; it renews on 5 March and was £412 last year.",
		"The water in the garden tap is off for the winter.",
		"Booked the dentist for December 2 at 9:30.",
		"Liked the Douro red we had at Maya's.")
	water := SearchRequest{Query: "how much is the water bill", Limit: 3}
	electricity := SearchRequest{Query: "how much is the electricity bill", Limit: 3}
	checkWeakRule(t, e, RankOptions{MinConfidence: 0.3, OtherThingBar: -1}, RankOptions{MinConfidence: 0.3}, water, electricity,
		"Paid the electricity bill of 84 euros in October.")
}
