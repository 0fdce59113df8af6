package main

import (
	"fmt"
	"strings"

	"github.com/infmem/infmem/cmd/infmem-bench/internal/messy"
)

func init() {
	registerSet("messy", "locomo/locomo-dev.json", loadMessySet)
}

// loadMessySet is LoCoMo as people really chat, standing in for real chat
// logs we do not have: a seeded, reproducible perturbation of every turn
// and question (same protocol and gold as locomo, gold counted by turn;
// the text changes are package messy's).
// Most turns of several sentences are sent as several short messages.
// Messages: mostly
// lowercase, apostrophes dropped ("dont", "im"), chat shorthand ("u",
// "bc"), a typo in some words, emoji, final punctuation dropped, and most
// relative time words removed, so that "when did X…" is answered by the
// turn's own date. Speakers' names are spelled one way in the chat and
// another in the questions: a misspelling either side ("Carolline" /
// "Caroline"), a first name in the chat and a full name in the question,
// or a lowercase name in the chat.
func loadMessySet(path string) (*benchSet, error) {
	d, err := readLocomo(path)
	if err != nil {
		return nil, err
	}
	s := locomoSet(d)
	s.Name = "messy"
	names := map[string]bool{}
	for _, m := range s.Messages {
		names[m.Speaker] = true
	}
	variant := map[string]messy.Variant{}
	for n := range names {
		variant[n] = messy.Name(n)
	}
	// People send a thought as several short messages: most turns of two
	// sentences or more become one message per sentence or two, each
	// counting for the turn (gold is the turn: a hit is any of its
	// messages).
	var msgs []benchMessage
	for _, m := range s.Messages {
		r := messy.Rand(m.ID)
		v := variant[m.Speaker]
		text := strings.TrimPrefix(m.Content, m.Speaker+": ")
		text = messy.ReplaceNames(text, variant, false)
		parts := []string{text}
		if r.Float64() < 0.7 {
			parts = messy.SplitSentences(r, text)
		}
		for k, p := range parts {
			p = messy.Text(r, p, true)
			if strings.TrimSpace(p) == "" {
				continue
			}
			f := m
			f.ID, f.Session = fmt.Sprintf("%s#%d", m.ID, k), m.ID
			f.Content, f.Speaker = v.Chat+": "+p, v.Chat
			msgs = append(msgs, f)
		}
	}
	s.Messages = msgs
	for i := range s.Questions {
		q := &s.Questions[i]
		if q.Gold != nil {
			q.GoldSessions, q.Gold = q.Gold, nil
		}
		q.At = len(msgs)
	}
	for i := range s.Questions {
		q := &s.Questions[i]
		q.Text = messy.Question(messy.Rand("q/"+q.ID), messy.ReplaceNames(q.Text, variant, true))
	}
	return s, nil
}
