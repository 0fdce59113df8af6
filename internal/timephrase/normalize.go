package timephrase

import "strings"

// spaced lists characters that only separate words in a time phrase.
const spaced = ",;?!\"()[]{}“”‘…*"

var normalizer = strings.NewReplacer(
	"a.m.", "am", "p.m.", "pm", "a.m", "am", "p.m", "pm",
	"’s", "", "'s", "", "’", "", "'", "",
	"–", " - ", "—", " - ",
)

// tokenize lowercases the phrase and splits it into words, so that rules can
// match whole words separated by single spaces. It keeps the characters that
// carry meaning inside a word (- / : . + in dates and times) and drops
// possessives ("last week's" is "last week"), punctuation, and full stops
// and colons at a word's ends ("Jan.", a sentence's final period, a note's
// "Goal for next year: …").
func tokenize(phrase string) []string {
	s := normalizer.Replace(strings.ToLower(phrase))
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(spaced, r) {
			return ' '
		}
		return r
	}, s)
	var toks []string
	for _, f := range strings.Fields(s) {
		if f = strings.Trim(f, ".:"); f != "" {
			toks = append(toks, f)
		}
	}
	return toks
}
