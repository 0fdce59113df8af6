package main

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

func init() {
	registerSet("messy", "locomo/locomo-dev.json", loadMessySet)
}

// messySeed fixes the perturbation; --messy-seed changes it.
var messySeed uint64 = 23

// loadMessySet is LoCoMo as people really chat, standing in for real chat
// logs we do not have: a seeded, reproducible perturbation of every turn
// and question (same protocol and gold as locomo, gold counted by turn).
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
	variant := map[string]nameVariant{}
	for n := range names {
		variant[n] = messyName(n)
	}
	// People send a thought as several short messages: most turns of two
	// sentences or more become one message per sentence or two, each
	// counting for the turn (gold is the turn: a hit is any of its
	// messages).
	var msgs []benchMessage
	for _, m := range s.Messages {
		r := messyRand(m.ID)
		v := variant[m.Speaker]
		text := strings.TrimPrefix(m.Content, m.Speaker+": ")
		text = replaceNames(text, variant, false)
		parts := []string{text}
		if r.Float64() < 0.7 {
			parts = splitSentences(r, text)
		}
		for k, p := range parts {
			p = messyText(r, p, true)
			if strings.TrimSpace(p) == "" {
				continue
			}
			f := m
			f.ID, f.Session = fmt.Sprintf("%s#%d", m.ID, k), m.ID
			f.Content, f.Speaker = v.chat+": "+p, v.chat
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
		q.Text = messyQuestion(messyRand("q/"+q.ID), replaceNames(q.Text, variant, true))
	}
	return s, nil
}

func messyRand(key string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(messySeed, h.Sum64()))
}

// nameVariant is how a speaker is written in the chat and in questions.
type nameVariant struct{ chat, question string }

var messySurnames = []string{"Khan", "Okafor", "Silva", "Nguyen", "Brennan", "Haddad", "Kowalski", "Moreau"}

func messyName(name string) nameVariant {
	r := messyRand("name/" + name)
	switch r.IntN(4) {
	case 0: // misspelled in the chat
		return nameVariant{chat: misspell(r, name), question: name}
	case 1: // first name in the chat, full name in the question
		return nameVariant{chat: name, question: name + " " + messySurnames[r.IntN(len(messySurnames))]}
	case 2: // lowercase in the chat
		return nameVariant{chat: strings.ToLower(name), question: name}
	default: // misspelled in the question
		return nameVariant{chat: name, question: misspell(r, name)}
	}
}

// misspell doubles a consonant, or swaps a vowel for a near one
// ("Muhammad" / "Muhhamed").
func misspell(r *rand.Rand, name string) string {
	rs := []rune(name)
	if len(rs) < 3 {
		return name + string(rs[len(rs)-1])
	}
	for range 10 {
		i := 1 + r.IntN(len(rs)-1)
		c := unicode.ToLower(rs[i])
		switch {
		case strings.ContainsRune("aeiou", c):
			swap := map[rune]rune{'a': 'e', 'e': 'a', 'i': 'e', 'o': 'u', 'u': 'o'}
			rs[i] = swap[c]
			return string(rs)
		case unicode.IsLetter(c):
			return string(rs[:i+1]) + string(c) + string(rs[i+1:])
		}
	}
	return name
}

// replaceNames writes speakers' names the way the chat (or, for
// questions, the asker) spells them.
func replaceNames(text string, variant map[string]nameVariant, question bool) string {
	names := make([]string, 0, len(variant))
	for name := range variant {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := variant[name]
		to := v.chat
		if question {
			to = v.question
		}
		if to == name {
			continue
		}
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
		text = re.ReplaceAllString(text, to)
	}
	return text
}

// messyTimeWords are relative time words a chat message loses most of the
// time: the real set's "when" answers are the message's own date.
var messyTimeWords = regexp.MustCompile(`(?i)\s*\b(?:yesterday|today|tonight|this (?:morning|afternoon|evening|week|weekend|month)|last (?:week|weekend|night|month|year|summer|friday|saturday|sunday|monday|tuesday|wednesday|thursday|fri)|(?:a few|two|three|\d+) (?:days|weeks|months|years) ago|a (?:week|month|year) ago|recently)\b`)

// messyShort is chat shorthand, in a fixed order (the perturbation is
// reproducible).
var messyShort = [][2]string{{"you", "u"}, {"your", "ur"}, {"because", "bc"}, {"please", "pls"}, {"thanks", "thx"}, {"okay", "ok"},
	{"though", "tho"}, {"really", "rly"}, {"going to", "gonna"}, {"want to", "wanna"}, {"are", "r"}, {"to be honest", "tbh"}, {"by the way", "btw"}}

var messyShortRe = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(messyShort))
	for i, p := range messyShort {
		out[i] = regexp.MustCompile(`\b` + p[0] + `\b`)
	}
	return out
}()

var messyEmoji = []string{"😂", "😊", "❤️", "👍", "🙏", "😅", "🔥", "🥲", "😍", "🎉", "💪", "🤔"}

var apostrophe = strings.NewReplacer("'", "", "’", "")

var wordRe = regexp.MustCompile(`[\p{L}]{4,}`)

// messyText perturbs one chat message.
func messyText(r *rand.Rand, text string, turn bool) string {
	if turn && r.Float64() < 0.7 {
		text = messyTimeWords.ReplaceAllString(text, "")
	}
	text = apostrophe.Replace(text)
	if r.Float64() < 0.85 {
		text = strings.ToLower(text)
	}
	for i, p := range messyShort {
		if r.Float64() < 0.4 {
			text = messyShortRe[i].ReplaceAllString(text, p[1])
		}
	}
	typo := 0.06
	if !turn {
		typo = 0.04
	}
	text = wordRe.ReplaceAllStringFunc(text, func(w string) string {
		if r.Float64() < typo {
			return typoWord(r, w)
		}
		return w
	})
	text = strings.TrimRight(text, ".!? ")
	if r.Float64() < 0.3 {
		text += strings.Repeat("!", r.IntN(3))
	}
	if turn && r.Float64() < 0.3 {
		e := messyEmoji[r.IntN(len(messyEmoji))]
		if r.Float64() < 0.5 {
			text += " " + e + e
		} else if sp := strings.IndexByte(text, ' '); sp > 0 {
			text = text[:sp] + " " + e + text[sp:]
		}
	}
	return text
}

// messyQuestion perturbs a question: lowercase most of the time,
// apostrophes dropped, fewer typos, the question mark often gone.
func messyQuestion(r *rand.Rand, text string) string {
	out := messyText(r, text, false)
	if r.Float64() < 0.5 {
		out += "?"
	}
	return out
}

// typoWord makes one typing mistake in w: two letters swapped, one
// dropped, or one doubled.
func typoWord(r *rand.Rand, w string) string {
	rs := []rune(w)
	if len(rs) < 4 || !utf8.ValidString(w) {
		return w
	}
	i := 1 + r.IntN(len(rs)-2)
	switch r.IntN(3) {
	case 0:
		rs[i], rs[i+1] = rs[i+1], rs[i]
	case 1:
		rs = append(rs[:i], rs[i+1:]...)
	default:
		rs = append(rs[:i+1], rs[i:]...)
	}
	return string(rs)
}

var sentenceEnd = regexp.MustCompile(`[.!?]+\s+`)

// splitSentences cuts text after sentence ends into parts of one or two
// sentences.
func splitSentences(r *rand.Rand, text string) []string {
	var sentences []string
	last := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(text, -1) {
		sentences = append(sentences, text[last:loc[1]])
		last = loc[1]
	}
	if last < len(text) {
		sentences = append(sentences, text[last:])
	}
	var parts []string
	for i := 0; i < len(sentences); {
		n := 1 + r.IntN(2)
		parts = append(parts, strings.TrimSpace(strings.Join(sentences[i:min(i+n, len(sentences))], "")))
		i += n
	}
	return parts
}
