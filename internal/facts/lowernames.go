package facts

import (
	"strings"
	"unicode"

	"github.com/infmem/infmem/internal/lexicon"
)

// Names in a text written without capitals. The facts read a name by its
// capital ("Léa's best friend is Chloé"); a writer who uses none ("léa's
// best friend is chloé", "thesis supervisor is dr marieke de groot") names
// people all the same, and a rule that reads "no name here" from the
// missing capitals tells such a writer's notes apart from everyone else's
// (issue 23 item 5). LowerNames reads them by what is left: a word after a
// title ("dr kelly", "mrs abernethy"), or a word that is no English word
// the facts or the lexicon (WordNet) know ("chloé", "giffgaff"). Names
// WordNet holds as words ("kelly", "ruth") are read only after a title:
// the reading errs towards fewer names, as the capitals' would for a
// firm named with common words ("direct line").

// Uncapitalised reports whether text has no capital letter at all: the
// writer's capitals say nothing of its names.
func Uncapitalised(text string) bool {
	return strings.IndexFunc(text, unicode.IsUpper) < 0
}

// LowerNames returns the words of text that are names by LowerNames's
// reading (see above), lower case, in order.
func LowerNames(text string) []string {
	var out []string
	words := split(text)
	for i, w := range words {
		lower := possessive(strings.ToLower(w.text))
		if i > 0 && titles[strings.TrimSuffix(strings.ToLower(words[i-1].text), ".")] && isWordOfLetters(lower) {
			out = append(out, lower)
			continue
		}
		if unknownWord(lower) {
			out = append(out, lower)
		}
	}
	return out
}

// isWordOfLetters: only letters (any script), at least two.
func isWordOfLetters(w string) bool {
	n := 0
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
		n++
	}
	return n >= 2
}

// unknownWord reports whether a lowercase word is no word the facts or
// the lexicon know: not a function word, number, calendar word, title,
// nor a noun, verb or adjective of WordNet (or an adverb made of one:
// "quickly").
func unknownWord(w string) bool {
	if !isWordOfLetters(w) || len(w) < 3 {
		return false
	}
	if plainWords[w] || stopWords[w] || commonStarters[w] || commonWords[w] || titles[w] || numberWords[w] != 0 || negationWords[w] || cueWords[w] || stateCues[w] || verbs[w] {
		return false
	}
	if _, ok := calendar[w]; ok {
		return false
	}
	known := lexicon.Known
	if known(w) {
		return false
	}
	if base, ok := strings.CutSuffix(w, "ly"); ok && (known(base) || strings.HasSuffix(base, "i") && known(strings.TrimSuffix(base, "i")+"y")) {
		return false
	}
	return true
}

// plainWords are common words the lexicon (nouns, verbs, adjectives) does
// not hold: adverbs, conjunctions, and a few words newer than WordNet.
var plainWords = setOf(`because together already whenever however although though unless whether
	usual usually else around away rather instead including myself yourself himself herself ourselves themselves
	ago soon yet ever even almost quite anyway anymore online offline weekend weekends weekday weekdays
	app apps admin podcast podcasts email emails website websites euro euros okay`)
