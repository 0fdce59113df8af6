package memory

import "testing"

// TestGlossedNoteFound: a note written in English with everyday words of
// another language ("alquiler", "casero", "Hausarzt") is found first, and
// as relevant, by a plain English question ("how much is my rent?"), by
// the English glosses among its keyword terms and in its embedding
// (RankOptions.GlossKeywords, GlossVectors, set on). With both off
// it is not (so the test checks the rule).
func TestGlossedNoteFound(t *testing.T) {
	rent := "alquiler del piso 1.150€ al mes, transferencia al casero antes del 5"
	notes := []string{rent,
		"Hausarzt Dr. Petersen, Sprechstunde Mo-Fr 8-12, Mittwochnachmittag geschlossen",
		"Broadband is Virgin Media at £38 a month; the contract ends in August.",
		"Leo has football practice every Tuesday at 5:30 in Kelvingrove Park.",
		"The car insurance renews in November with AXA.",
		"Planted garlic in the raised bed; it should be ready in July."}
	ask := func(e *Engine, q string) SearchResult {
		return search(t, e, SearchRequest{Query: q, Location: la, Limit: 5})
	}
	on := recallEngine(t)
	o := on.RankOptions()
	o.GlossKeywords, o.GlossVectors = 1, 1
	on.SetRankOptions(o)
	mustStoreTexts(t, on, notes...)
	res := ask(on, "how much is my rent?")
	if len(res.Results) == 0 || res.Results[0].Text != rent || res.NothingRelevant {
		t.Errorf("glossed: got %v %v (nothing relevant %v), want %q first", texts(res.Results), confidences(res.Results), res.NothingRelevant, rent)
	}
	if res := ask(on, "when is the family doctor's surgery closed?"); len(res.Results) == 0 || res.Results[0].Text != notes[1] {
		t.Errorf("glossed: got %v, want %q first", texts(res.Results), notes[1])
	}
	off := recallEngine(t)
	o = off.RankOptions()
	o.GlossKeywords, o.GlossVectors = -1, -1
	off.SetRankOptions(o)
	mustStoreTexts(t, off, notes...)
	if res := ask(off, "how much is my rent?"); len(res.Results) > 0 && res.Results[0].Text == rent && !res.NothingRelevant {
		t.Errorf("gloss off: the note is still found first and relevant (%v %v): the test does not check the rule", texts(res.Results), confidences(res.Results))
	}
}
