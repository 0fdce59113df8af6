package recall

import (
	"slices"
	"strings"
	"unicode"

	"github.com/infmem/infmem/internal/lexicon"
)

// The asked kind, absent. A question that names someone's thing with a
// modifier no memory holds ("what's Pepper's microchip number?", "who is
// Aoife's piano teacher?") asks about a thing never stored: a note about
// the same someone that gives the thing's head for something else ("the
// neighbours at number 14 feed Pepper", "Aoife … her teacher is Mr
// Doyle") is about the question's other words, not about what it asks.
// A note that says the modifier in other words still answers it: a word
// of its stem ("dental" / "dentist"), an instance or a kind of it ("the
// beer labels" / "Fyne Ales", "the house insurance" / "Home insurance":
// WordNet makes a house a home). Read per result, so that another result
// that gives the thing stays. Issue 23 item 5: never-stored questions
// answered by a note on the subject's other detail.
//
// Why so narrow (BENCHMARKS.md, "The asked word absent, and its
// stand-ins"): on the everyday sets 37 answerable questions answered
// with their right note first have a word no memory holds and no such
// stand-in in that note (a category stored as a name, "what song" /
// "Wonderwall"; a verb or adjective in other words, "fastest" /
// "personal best"), against 12 never-stored questions answered; a
// modifier read without its owner ("who is my phone contract with?")
// weakens a note on another thing answering the same words ("Broadband
// … the contract ends in August") where the answer, in other words
// ("Mobile is giffgaff"), is under the bar.

// Asked is a modifier of the question no memory holds, the head noun it
// modifies and the owner named before it ("microchip", "number",
// "pepper").
type Asked struct{ Owner, Modifier, Head string }

// AskedAbsent returns the modifiers of query's nouns that no memory
// holds (known is asked the word, its lemma and its synonyms), each with
// its head and its owner: "OWNER's MODIFIER HEAD", the modifier a
// lower-case content word right before a noun (WordNet gives it
// hypernyms; not a verb's -ed or -ing form), neither of them a name
// (capitalised past the question's start) or a verb of the question (the
// word after a subject), the owner a possessive other than the user's.
func AskedAbsent(query string, known func(word string) bool) []Asked {
	toks := lowerWords(query)
	var names, verbs map[string]bool
	var out []Asked
	for i := 1; i+1 < len(toks); i++ {
		o, m, h := toks[i-1], toks[i], toks[i+1]
		owner, ok := strings.CutSuffix(o, "'s")
		if !ok {
			owner, ok = strings.CutSuffix(o, "s'")
			owner += "s"
		}
		if !ok || len(owner) < 2 || wordsMetStops[owner] {
			continue
		}
		if strings.HasSuffix(m, "'s") || len(m) < 3 || wordsMetStops[m] || functionWords[m] || strings.Trim(m, "0123456789") == "" || !modifier(h) {
			continue
		}
		if names == nil {
			names, verbs = namesOf(query), questionVerbs(query)
		}
		h = strings.TrimSuffix(h, "'s")
		if names[m] || names[h] || verbs[m] || knownForm(m, known) {
			continue
		}
		out = append(out, Asked{Owner: owner, Modifier: m, Head: h})
	}
	return out
}

// OtherKindOf reports whether text names the owner and gives the head of
// one of asked (AskedAbsent) and says its modifier in no other words:
// not a word of its stem, its lemma or synonym, nor a word that is a kind
// or an instance of it or of which it is one.
func OtherKindOf(asked []Asked, text string) bool {
	var words []string
	for _, w := range lowerWords(text) {
		words = append(words, strings.TrimSuffix(w, "'s"))
	}
	var kinds map[string][]string
	for _, a := range asked {
		if !wordHeld(a.Owner, words) || !wordHeld(a.Head, words) || wordHeld(a.Modifier, words) || kindHeld(a.Modifier, words, &kinds) {
			continue
		}
		up := lexicon.Hypernyms(a.Modifier) // "house" is a "home"
		if slices.ContainsFunc(words, func(w string) bool { return slices.Contains(up, w) }) {
			continue
		}
		return true
	}
	return false
}

// knownForm reports whether known holds w, its lemma or a synonym of its
// first senses.
func knownForm(w string, known func(string) bool) bool {
	if known(w) {
		return true
	}
	if l := lexicon.Lemma(w); l != "" && l != w && known(l) {
		return true
	}
	return slices.ContainsFunc(lexicon.Synonyms(w), known)
}

// namesOf are the lower-case words of query written with a capital
// letter past its first word (the question's names: "Iceland",
// "Rachel"), "I" aside.
func namesOf(query string) map[string]bool {
	names := map[string]bool{}
	for i, f := range strings.Fields(strings.ReplaceAll(query, "’", "'")) {
		r := []rune(f)
		if i == 0 || len(r) == 0 || !unicode.IsUpper(r[0]) || f == "I" || strings.HasPrefix(f, "I'") {
			continue
		}
		for _, w := range lowerWords(f) {
			names[strings.TrimSuffix(w, "'s")] = true
		}
	}
	return names
}
