package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"
)

func init() {
	registerSet("everyday", "", loadEverydaySet)
}

// loadEverydaySet reads the everyday set (the built-in one, or path): its
// profile's contacts given first, its memories stored in the default scope, each dated days_ago before now;
// its questions asked with top_k 5, a hit being any of its answers; its
// never-stored questions expecting nothing_relevant.
func loadEverydaySet(path string) (*benchSet, error) {
	raw := everydaySet
	if path != "" {
		var err error
		if raw, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	var set everyday
	if err := json.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("cannot read the everyday set: %w", err)
	}
	now := time.Now()
	s := &benchSet{Name: "everyday", TopK: 5, Contacts: set.Profile.Contacts}
	for _, m := range set.Memories {
		s.Messages = append(s.Messages, benchMessage{ID: m.ID, Source: m.Source, Content: m.Text, TS: now.AddDate(0, 0, -m.DaysAgo)})
	}
	for i, q := range set.Questions {
		gold := map[string]bool{}
		for _, a := range q.Answers {
			gold[a] = true
		}
		s.Questions = append(s.Questions, benchQuestion{ID: "q" + strconv.Itoa(i), Text: q.Q, Kind: "answerable", Gold: gold, AnyOf: true, At: len(s.Messages)})
	}
	for i, q := range set.NeverStored {
		s.Questions = append(s.Questions, benchQuestion{ID: "never" + strconv.Itoa(i), Text: q, Kind: "never-stored", Abstain: true, At: len(s.Messages)})
	}
	return s, nil
}
