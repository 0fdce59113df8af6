package recall

import (
	"strings"

	"github.com/infmem/infmem/internal/lexicon"
)

// Every word met. A question about notes whose every content word the
// first notes hold — the word itself, its lemma, a synonym of its first
// senses (internal/lexicon) or a word of its stem ("hair" / "Hairdresser")
// — is about what they say, however low the relevance bar (fitted on
// chat turns) puts them: "who cuts my hair" / "Hairdresser is Jo at
// Cutting Room…" (issue 23 item 5: the everyday sets' answerable
// questions told nothing_relevant). Read over the first three notes
// together it is off by default (Options.WordsMetBar: on a held-out set
// it answered never-stored questions); read over the first note alone it
// is on (Options.WordsMetFirstBar).

// wordsMetStops are the words of how a question is asked, not of what it
// asks about.
var wordsMetStops = setOfWords(`a an the my our your his her their its this that these those some any every what which who whom whose when where why how
	is are was were be been am do does did has have had will would can could should shall may might must i me we us you he him she they them it
	of to in on at for by with from about as into over after before under between and or but so if than then not no now again still next last
	up down out off away back there here just only very really also much many more most get got go going gonna need want like know tell remind
	say said thing things one time day week year days moment while someday ever currently`)

// queryWords are the content words of query, lower case, without a
// possessive 's; nil when it has none.
func queryWords(query string) []string {
	var out []string
	for _, w := range lowerWords(query) {
		w = strings.TrimSuffix(w, "'s")
		if len(w) < 3 || wordsMetStops[w] || strings.Trim(w, "0123456789") == "" {
			continue
		}
		out = append(out, w)
	}
	return out
}

// WordsMet reports whether every content word of query is held by texts
// (a word, its lemma or a synonym, or a word of its stem).
func WordsMet(query string, texts []string) bool {
	words := queryWords(query)
	if len(words) == 0 || len(texts) == 0 {
		return false
	}
	var held []string
	for _, t := range texts {
		for _, w := range lowerWords(t) {
			held = append(held, strings.TrimSuffix(w, "'s"))
		}
	}
	for _, q := range words {
		if !wordHeld(q, held) {
			return false
		}
	}
	return true
}

// wordHeld reports whether a word of held is w, its lemma or a synonym,
// or shares its stem.
func wordHeld(w string, held []string) bool {
	forms := map[string]bool{}
	addForms(forms, w)
	for _, h := range held {
		if forms[h] || sameStem(w, h) {
			return true
		}
		if l := lexicon.Lemma(h); l != "" && forms[l] {
			return true
		}
	}
	return false
}
