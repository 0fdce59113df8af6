package memory

import "testing"

// TestFocusAbsentBar: with Options.FocusAbsentBar, a question asking for
// a detail of a thing (the atmosphere of a dinner) whose first result
// covers its words but never gives the detail is told nothing_relevant,
// the memory shown weak; a question that asks what the memory does say
// still finds it, and so does the detail's question once another memory
// about the dinner gives it. The other notes make "atmosphere" a common word, so that the dinner
// covers the question's keyword weight (Evidence.Coverage ≥ 0.9); they
// fall under the relevance bar. The rule's bar is 1.01, above every
// confidence (the dinner's is over 0.9 in so small a store).
func TestFocusAbsentBar(t *testing.T) {
	e := recallEngine(t)
	dinner := "Casting dinner: celebrated the end of casting with a casting dinner at The Coral Reef; the dinner cost $120 for four."
	mustStoreTexts(t, e, dinner,
		"The garden tap is off for the winter.",
		"Read that the atmosphere of Mars is mostly carbon dioxide.",
		"The atmosphere of Venus is thick and hot.",
		"Titan has an atmosphere of nitrogen.",
		"The atmosphere of Jupiter is hydrogen and helium.",
		"Earth's atmosphere is mostly nitrogen.",
		"Pluto has a thin atmosphere in summer.",
		"Liked the Douro red we had at Maya's.")
	detail := SearchRequest{Query: "What was the atmosphere at the casting dinner?", Limit: 3}
	where := SearchRequest{Query: "Where was the casting dinner?", Limit: 3}
	checkWeakRule(t, e, RankOptions{FocusAbsentBar: -1}, RankOptions{FocusAbsentBar: 1.01}, detail, where, dinner)
	mustStoreTexts(t, e, "Casting dinner at The Coral Reef: the casting dinner had a warm, noisy atmosphere.")
	if res := search(t, e, detail); res.NothingRelevant {
		t.Errorf("%q, rule on, the atmosphere stored: nothing relevant (%v)", detail.Query, confidences(res.Results))
	}
}
