// Package messy turns clean chat into chat as people really write it,
// reproducibly for a seed (Seed): the perturbation of the recall bench's
// "messy" set (cmd/infmem-bench/sets_messy.go), LoCoMo standing in for
// real chat logs. Rand gives each message its own random source; Name
// spells a speaker one way in the chat and another in questions
// (ReplaceNames), Text perturbs a message (lowercase, dropped apostrophes,
// shorthand, typos, emoji, relative time words removed), Question a
// question, and SplitSentences sends a turn as several short messages.
package messy

import (
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Seed fixes the perturbation (infmem-bench recall --messy-seed).
var Seed uint64 = 23

// Rand is the random source of the message or name key.
func Rand(key string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(Seed, h.Sum64()))
}

// Variant is how a speaker is written in the chat and in questions.
type Variant struct{ Chat, Question string }

var messySurnames = []string{"Khan", "Okafor", "Silva", "Nguyen", "Brennan", "Haddad", "Kowalski", "Moreau"}

func Name(name string) Variant {
	r := Rand("name/" + name)
	switch r.IntN(4) {
	case 0: // misspelled in the chat
		return Variant{Chat: misspell(r, name), Question: name}
	case 1: // first name in the chat, full name in the question
		return Variant{Chat: name, Question: name + " " + messySurnames[r.IntN(len(messySurnames))]}
	case 2: // lowercase in the chat
		return Variant{Chat: strings.ToLower(name), Question: name}
	default: // misspelled in the question
		return Variant{Chat: name, Question: misspell(r, name)}
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
func ReplaceNames(text string, variant map[string]Variant, question bool) string {
	names := make([]string, 0, len(variant))
	for name := range variant {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := variant[name]
		to := v.Chat
		if question {
			to = v.Question
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
func Text(r *rand.Rand, text string, turn bool) string {
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

// messyQuestion perturbs a Question: lowercase most of the time,
// apostrophes dropped, fewer typos, the question mark often gone.
func Question(r *rand.Rand, text string) string {
	out := Text(r, text, false)
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
func SplitSentences(r *rand.Rand, text string) []string {
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
