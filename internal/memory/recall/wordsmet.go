package recall

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/infmem/infmem/internal/lexicon"
	"github.com/infmem/infmem/mongostore"
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
	return wordsMet(query, texts, 0, nil)
}

// The readings WordsMetKinds adds, as bits of its kinds argument.
const (
	KindHypernym = 1 << iota // a kind or an instance of the word (WordNet)
	KindValue                // a value of the kind the word asks for
	KindWhoName              // in a who-question, the one word left met by a name
	KindPerson               // a word naming one of the profile's people by relation ("my brother") met by their name
)

// WordsMetKinds is WordsMet that also counts a word of the question met
// by a word of the texts that is a kind or an instance of it, and a word
// that asks for a value by a value of its kind (wordMetByKind): "which
// herb do I hate" / "I can't stand coriander" (WordNet: coriander is a
// herb), "what race am I training for" / "Signed up for the Dublin
// Marathon", "how much does the dog walker charge" / "…15 euro a walk",
// "who is our electricity supplier" / "Switched electricity to Flogas".
// Issue 23 item 5: the category or role asked where the note stores an
// instance or a name.
func WordsMetKinds(query string, texts []string, kinds int, contacts []mongostore.Contact) bool {
	return wordsMet(query, texts, kinds, contacts)
}

func wordsMet(query string, texts []string, kinds int, contacts []mongostore.Contact) bool {
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
	people := map[string][]string{} // a query word naming people by relation: their names' words
	if kinds&KindPerson != 0 {
		for _, r := range contactsFor(query, contacts) {
			for _, n := range r.names {
				people[r.word] = append(people[r.word], lowerWords(n)...)
			}
		}
	}
	var unmet []string
	// byValue[i]: texts give a value of the kind words[i] asks for
	// (valueHeld), read once for both loops.
	byValue := make([]bool, len(words))
	valued := false
	for i, q := range words {
		byValue[i] = kinds&KindValue != 0 && valueHeld(q, texts)
		if byValue[i] && !wordHeld(q, held) {
			valued = true
		}
	}
	// A value of the kind asked stands for the note's thing only where
	// the question's other words are the note's heads, not the first
	// noun of a compound: "how much did the dog cost?" is not answered
	// by "the dog walker … 12 pounds a walk". The heads are read only
	// then (a lexicon lookup a word: not on every search).
	in := held
	if valued {
		in = headWords(texts)
	}
	var kindsOf map[string][]string // held word → its hypernyms, read once when a word is unmet
	for i, q := range words {
		if people[q] != nil && slices.ContainsFunc(people[q], func(n string) bool { return slices.Contains(in, n) }) {
			continue
		}
		if !wordHeld(q, in) && !(kinds&KindHypernym != 0 && kindHeld(q, in, &kindsOf)) && !byValue[i] {
			unmet = append(unmet, q)
		}
	}
	// "who is our electricity supplier?": the one word left, the role,
	// met by a name when another word of the question is met.
	if kinds&KindWhoName != 0 && len(unmet) == 1 && len(words) > 1 && asksWho(query) && nameIn(texts) {
		return true
	}
	return len(unmet) == 0
}

// kindHeld reports whether a word of held is a kind or an instance of w
// (lexicon.Hypernyms holds w or its lemma): "beagle" for "dog".
// kinds caches each held word's hypernyms across the question's words.
func kindHeld(w string, held []string, kinds *map[string][]string) bool {
	if *kinds == nil {
		*kinds = make(map[string][]string, len(held))
		for _, h := range held {
			if _, ok := (*kinds)[h]; !ok {
				(*kinds)[h] = lexicon.Hypernyms(h)
			}
		}
	}
	forms := map[string]bool{w: true}
	if l := lexicon.Lemma(w); l != "" {
		forms[l] = true
	}
	for _, h := range held {
		for _, k := range (*kinds)[h] {
			if forms[k] {
				return true
			}
		}
	}
	return false
}

// headWords are the words of texts that are no first noun of a compound
// (modifier), as held words ("'s" trimmed).
func headWords(texts []string) []string {
	var heads []string
	for _, t := range texts {
		ws := lowerWords(t)
		for i, w := range ws {
			if i+1 == len(ws) || !modifier(ws[i+1]) {
				heads = append(heads, strings.TrimSuffix(w, "'s"))
			}
		}
	}
	return heads
}

// modifier reports whether next, the word after another in a text,
// makes that word the first noun of a compound: it is a lowercase noun
// (WordNet gives it hypernyms), not a verb's -ed or -ing form ("Sinead
// moved") and not a word of how things are said ("dog walker": "walker").
func modifier(next string) bool {
	next = strings.TrimSuffix(next, "'s")
	if strings.HasSuffix(next, "ed") || strings.HasSuffix(next, "ing") {
		return false
	}
	return !wordsMetStops[next] && lexicon.Hypernyms(next) != nil
}

// amountWords ask for an amount of money; numberWords for a number.
var (
	amountWords = setOfWords(`charge charges charged cost costs price prices fee fees rate rates pay paid owe owes owed spend spent budget rent salary earn earns worth money`)
	numberWords = setOfWords(`number code difference`)
	amount      = regexp.MustCompile(`[£€$]\s?\d|\d(?:[\d.,]*\d)?\s?(?:pounds?|euros?|dollars?|quid|eur|gbp|usd|p|k)\b`)
	digit       = regexp.MustCompile(`\d`)
)

// valueHeld reports whether texts give a value of the kind a word of the
// question asks for: an amount of money for "charge", "cost", "budget"…,
// a number for "number", "code", "difference".
func valueHeld(w string, texts []string) bool {
	var re *regexp.Regexp
	switch {
	case amountWords[w]:
		re = amount
	case numberWords[w]:
		re = digit
	default:
		return false
	}
	for _, t := range texts {
		if re.MatchString(strings.ToLower(t)) {
			return true
		}
	}
	return false
}

// asksWho reports whether query asks who: its first word is "who" or
// "who's".
func asksWho(query string) bool {
	w := lowerWords(query)
	return len(w) > 0 && (w[0] == "who" || w[0] == "who's" || w[0] == "whos")
}

// nameIn reports whether a text names someone or something: a word
// written with a capital letter that does not start a sentence.
func nameIn(texts []string) bool {
	for _, t := range texts {
		start := true
		for _, w := range strings.Fields(t) {
			r := []rune(w)
			if !start && unicode.IsUpper(r[0]) && w != "I" && !strings.HasPrefix(w, "I'") {
				return true
			}
			start = strings.ContainsAny(w[len(w)-1:], ".!?:;")
		}
	}
	return false
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
