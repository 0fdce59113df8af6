package memory

import "testing"

// TestOtherOwnerBar: with Options.OtherOwnerBar (on by default), a
// question for someone's mobile number whose closest memory gives
// another person's ("Dad's new mobile number…") is told nothing_relevant,
// the note shown weak; the father's question still finds it. The
// relevance bar is lowered to 0.3 so that, without the rule, the note
// clears it for both questions.
func TestOtherOwnerBar(t *testing.T) {
	e := recallEngine(t)
	mustStoreTexts(t, e,
		"Dad's new mobile number is 07700 900418 - he finally gave up the old Nokia.",
		"Car insurance is with Admiral; it renews on 5 March and was £412 last year.",
		"Booked the dentist for December 2 at 9:30.",
		"Liked the Douro red we had at Maya's.")
	nat := SearchRequest{Query: "what is Natalia's mobile number?", Limit: 3}
	dad := SearchRequest{Query: "what's my dad's mobile number?", Limit: 3}
	checkWeakRule(t, e, RankOptions{MinConfidence: 0.3, OtherOwnerBar: -1}, RankOptions{MinConfidence: 0.3}, nat, dad,
		"Dad's new mobile number is 07700 900418 - he finally gave up the old Nokia.")
}

// TestModifierAbsentBar: with Options.ModifierAbsentBar (on by default),
// a question for someone's thing named by a word no memory holds
// ("microchip") whose closest note gives another thing of theirs with the
// same head ("number 14 … feed Pepper") is told nothing_relevant, the note
// shown weak; a question whose modifier a memory holds ("house number")
// still finds it. The relevance bar is lowered to 0.3 so that, without
// the rule, the note clears it for both questions.
func TestModifierAbsentBar(t *testing.T) {
	e := recallEngine(t)
	mustStoreTexts(t, e,
		"The neighbours at number 14, the Murphys, feed Pepper when we're away; their house is the blue one.",
		"Pepper's vet is Dr Kelly at Marino Vets; her annual jabs are due in May.",
		"Car insurance is with Admiral; it renews on 5 March and was £412 last year.",
		"Booked the dentist for December 2 at 9:30.")
	chip := SearchRequest{Query: "what's Pepper's microchip number?", Limit: 3}
	house := SearchRequest{Query: "what's the neighbours' house number?", Limit: 3}
	checkWeakRule(t, e, RankOptions{MinConfidence: 0.3, ModifierAbsentBar: -1}, RankOptions{MinConfidence: 0.3}, chip, house, "")
}
