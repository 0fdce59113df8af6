package main

import "strconv"

func init() {
	registerSet("locomo", "locomo/locomo-dev.json", loadLocomoSet)
}

// loadLocomoSet reads the LoCoMo development split as its README's
// turn-level protocol says: every turn stored as "Speaker: text" with its
// session's date, one scope per conversation (with conversation id and
// speaker as metadata); every question of categories 1–4 asked within its
// scope after everything is stored, gold its evidence turns; and each
// question asked again of the next conversation's scope, where nothing
// answers it.
func loadLocomoSet(path string) (*benchSet, error) {
	d, err := readLocomo(path)
	if err != nil {
		return nil, err
	}
	return locomoSet(d), nil
}

// locomoSet turns the flattened LoCoMo data into the common shape.
func locomoSet(d *locomoData) *benchSet {
	s := &benchSet{Name: "locomo"}
	for _, m := range d.memories {
		s.Messages = append(s.Messages, benchMessage{ID: m.scope + "/" + m.diaID, Scope: m.scope, Session: m.conv,
			Conv: m.conv, Speaker: m.speaker, Source: "conversation", Content: m.content, TS: m.ts})
	}
	for i, q := range d.questions {
		gold := map[string]bool{}
		for e := range q.evidence {
			gold[q.scope+"/"+e] = true
		}
		s.Questions = append(s.Questions, benchQuestion{ID: q.scope + "#" + strconv.Itoa(i), Scope: q.scope, Text: q.text,
			Kind: categoryNames[q.category], Gold: gold, At: len(s.Messages)})
	}
	otherScopeNegatives(s)
	return s
}
