package recall

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/infmem/infmem/internal/facts"
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
	KindHypernym      = 1 << iota // a kind or an instance of the word (WordNet)
	KindValue                     // a value of the kind the word asks for
	KindWhoName                   // in a who-question, the one word left met by a name
	KindPerson                    // a word naming one of the profile's people by relation ("my brother") met by their name
	KindFunction                  // a function word or a word of the present state ("per", "new") not asked about, as "now" is not
	KindOccupation                // "do for a living", "job", "work" met by an occupation the texts give someone ("is a solicitor")
	KindWhoNear                   // in a who-question, the one word left met by a name next to a met word ("Hairdresser is Jo")
	KindVerb                      // the question's verbs left unmet when a noun of it is met ("which herb do I hate" / "can't stand coriander")
	KindAbbrev                    // a note's shorthand for a question word ("bday" / "birthday", "appt" / "appointment") or for two ("dd" / "direct debit")
	KindVerbAsked                 // an inverted question's last word, its verb, left unmet when the note gives the value asked ("where does my best friend work?" / "deb's an estate agent at moginie james")
	KindOccupationAs              // an occupation said "as a …" ("rhys doing nights as a porter") for "do for work"
	KindRelationWords             // with KindPerson, every word of a relation of two ("best friend") met by the person's name, not only the one that names it
)

// The readings of abstain10 (issue 23 item 5, 2026-11-29 sixth): a
// person's terse notes, right first and told nothing_relevant by the bar.
const KindsTerse = KindAbbrev | KindVerbAsked | KindOccupationAs | KindRelationWords

// The readings of answer5 (issue 23 item 5, 2026-11-29): KindFunction,
// KindOccupation, KindWhoNear and KindVerb.
const KindsSaid = KindFunction | KindOccupation | KindWhoNear | KindVerb

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
	words, unmet := unmetWords(query, texts, kinds, contacts)
	if len(words) == 0 || len(texts) == 0 {
		return false
	}
	// "who is our electricity supplier?": the one word left, the role,
	// met by a name when another word of the question is met.
	if kinds&KindWhoName != 0 && len(unmet) == 1 && len(words) > 1 && asksWho(query) && nameIn(texts) {
		return true
	}
	if kinds&KindWhoNear != 0 && len(unmet) == 1 && len(words) > 1 && asksWho(query) && nameNear(words, unmet, texts) {
		return true
	}
	if kinds&KindVerbAsked != 0 && len(words) > 1 && askedGiven(query, texts) {
		// "how often" asks a frequency: its "often" is no word of the
		// thing.
		left := slices.DeleteFunc(slices.Clone(unmet), func(w string) bool { return w == "often" && strings.HasPrefix(strings.ToLower(query), "how often") })
		if len(left) == 1 && left[0] == invertedVerb(query) && len(words) > len(unmet) {
			return true
		}
	}
	if kinds&KindVerb != 0 && len(unmet) > 0 && verbsOnly(query, words, unmet) {
		// The thing asked about is named as a head in the texts, not as
		// the first noun of a compound: "how do I take my coffee?" is not
		// met by "he wants a proper coffee grinder".
		_, unmetHeads := unmetIn(query, texts, kinds, contacts, true)
		return verbsOnly(query, words, unmetHeads)
	}
	return len(unmet) == 0
}

// unmetWords are the content words of query (queryWords) and those of
// them texts do not hold under the readings of kinds.
func unmetWords(query string, texts []string, kinds int, contacts []mongostore.Contact) (words, unmet []string) {
	return unmetIn(query, texts, kinds, contacts, false)
}

// unmetIn is unmetWords; with heads, the texts' words read are only their
// heads (headWords), not the first noun of a compound.
func unmetIn(query string, texts []string, kinds int, contacts []mongostore.Contact, heads bool) (words, unmet []string) {
	words = queryWords(query)
	if kinds&KindFunction != 0 {
		words = slices.DeleteFunc(words, func(w string) bool { return functionWords[w] })
	}
	if len(words) == 0 || len(texts) == 0 {
		return words, words
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
			if kinds&KindRelationWords != 0 && len(r.relation) > 1 {
				// "my best friend": "best" names Deb with "friend".
				for _, w := range r.relation {
					if w != r.word && slices.Contains(words, w) {
						for _, n := range r.names {
							people[w] = append(people[w], lowerWords(n)...)
						}
					}
				}
			}
		}
	}
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
	if valued || heads {
		in = headWords(texts)
	}
	var kindsOf map[string][]string // held word → its hypernyms, read once when a word is unmet
	var rel *relatedReader          // the related readings (KindsRelated), read once when a word is unmet
	for i, q := range words {
		if people[q] != nil && slices.ContainsFunc(people[q], func(n string) bool { return slices.Contains(in, n) }) {
			continue
		}
		if kinds&KindOccupation != 0 && occupationWords[q] && asksOccupation(query) && occupationIn(texts, predicate) {
			continue
		}
		if kinds&KindOccupationAs != 0 && occupationWords[q] && asksOccupation(query) && occupationIn(texts, predicateAs) {
			continue
		}
		if kinds&KindAbbrev != 0 && abbrevHeld(q, words[i+1:], in) {
			continue
		}
		if kinds&KindAbbrev != 0 && i > 0 && abbrevHeld(words[i-1], words[i:i+1], in) {
			continue // the second word of two a note's initials stand for
		}
		if !wordHeld(q, in) && !(kinds&KindHypernym != 0 && kindHeld(q, in, &kindsOf)) && !byValue[i] {
			if kinds&KindsRelated != 0 {
				if rel == nil {
					rel = &relatedReader{query: query, kinds: kinds, texts: texts, held: in}
				}
				if rel.met(q, i, words) {
					continue
				}
			}
			unmet = append(unmet, q)
		}
	}
	return words, unmet
}

// abbrevHeld reports whether a word of held is a shorthand for w that no
// dictionary holds (lexicon.Known): three letters or more, w's first and
// last letters, the others in w's order, shorter than w ("bday" /
// "birthday", "appt" / "appointment", "acct" / "account", "mgr" /
// "manager"); or the initials of w and the question word after it,
// next (two or three letters: "dd" / "direct debit", "ou" / "open
// university"), dictionary word or not.
func abbrevHeld(w string, next []string, held []string) bool {
	var initials string
	if len(next) > 0 && next[0] != "" && w != "" {
		initials = w[:1] + next[0][:1]
	}
	for _, h := range held {
		if h == initials && !wordsMetStops[h] && !functionWords[h] {
			return true
		}
		if len(h) >= 3 && len(h) < len(w) && h[0] == w[0] && h[len(h)-1] == w[len(w)-1] && subsequence(h, w) && !lexicon.Known(h) {
			return true
		}
	}
	return false
}

// subsequence reports whether the letters of a are in b, in order.
func subsequence(a, b string) bool {
	j := 0
	for i := 0; i < len(b) && j < len(a); i++ {
		if b[i] == a[j] {
			j++
		}
	}
	return j == len(a)
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

// functionWords are words of how a question is put, not of what it asks
// about, that wordsMetStops does not hold: prepositions and quantifiers
// ("how much do I charge per day?" / "My day rate … is 650 euro") and
// the words of the present state, which say "now" ("what colour are
// Ada's new specs?" / "Ada got glasses last week, a blue pair").
var functionWords = setOfWords(`per via each both either neither within during until till since through upon onto toward towards among against new current latest`)

// occupationWords name what someone does for work.
var occupationWords = setOfWords(`living work job jobs occupation profession career trade`)

// asksOccupation reports whether query asks what someone does for work:
// "what does my wife do for a living?", "what's Tom's job?", "what does
// Sam do for work?".
var asksOccupationRe = regexp.MustCompile(`(?i)\b(?:do|does|did)\b.*\bfor (?:a )?(?:living|work|job)\b|\b(?:job|occupation|profession|career)\b`)

func asksOccupation(query string) bool {
	return asksOccupationRe.MatchString(query)
}

// predicate finds a noun phrase said of someone: "is a solicitor", "I'm a
// contract IT consultant", "works as a nurse".
var predicate = regexp.MustCompile(`(?i)\b(?:is|am|are|was|'m|works as|working as|job as|trained as)\s+(?:an?|the)\s+((?:[\w-]+\s+){0,3}[\w-]+)`)

// predicateAs finds a noun phrase said of someone by "as a": "doing
// nights as a porter", "started as a sound engineer".
var predicateAs = regexp.MustCompile(`(?i)\bas\s+(?:an?)\s+((?:[\w-]+\s+){0,3}[\w-]+)`)

// occupationIn reports whether texts say of someone that they are a
// person of some kind (a noun whose WordNet hypernyms, one or two levels
// up, are an organism's: "solicitor" → professional → … organism) that
// is no relation ("a friend", "a cousin"): an occupation.
func occupationIn(texts []string, pred *regexp.Regexp) bool {
	for _, t := range texts {
		for _, m := range pred.FindAllStringSubmatch(t, -1) {
			for _, w := range lowerWords(m[1]) {
				if personNoun(w) && sameRelation(w) == nil {
					return true
				}
			}
		}
	}
	return false
}

// personNoun reports whether WordNet makes w a kind of person: its
// hypernyms, or theirs, hold "organism" (the lexicon holds none of the
// five levels nearest the root, "person" among them) and none is an
// animal's.
func personNoun(w string) bool {
	h := lexicon.Hypernyms(w)
	if h == nil {
		return false
	}
	if slices.Contains(h, "animal") {
		return false
	}
	if slices.Contains(h, "organism") {
		return true
	}
	for _, k := range h {
		if hk := lexicon.Hypernyms(k); slices.Contains(hk, "organism") && !slices.Contains(hk, "animal") {
			return true
		}
	}
	return false
}

// nameNear reports whether a text names someone or something (a
// capitalised word past a sentence's start) at most two words from a
// word that meets a met word of the question: "who cuts my hair?" /
// "Hairdresser is Jo", "who is our electricity supplier?" / "Switched
// electricity to Flogas", not "who is our family doctor?" / "… a family
// law firm on Park Square".
func nameNear(words, unmet []string, texts []string) bool {
	var met []string
	for _, w := range words {
		if !slices.Contains(unmet, w) {
			met = append(met, w)
		}
	}
	for _, t := range texts {
		fields := strings.Fields(t)
		var names, hits []int
		start := true
		for i, f := range fields {
			r := []rune(f)
			if !start && unicode.IsUpper(r[0]) && f != "I" && !strings.HasPrefix(f, "I'") && !calendarName(f) {
				names = append(names, i)
			}
			for _, w := range lowerWords(f) {
				if slices.ContainsFunc(met, func(q string) bool { return wordHeld(q, []string{strings.TrimSuffix(w, "'s")}) }) {
					hits = append(hits, i)
				}
			}
			start = strings.ContainsAny(f[len(f)-1:], ".!?:;")
		}
		for _, n := range names {
			for _, h := range hits {
				if n != h && n-h <= 2 && h-n <= 2 {
					return true
				}
			}
		}
	}
	return false
}

// calendarName reports whether a text's word is a weekday's or a month's
// name ("Fridays", "March,"): a time, not someone or something named.
func calendarName(f string) bool {
	for _, w := range lowerWords(f) {
		if slices.Contains(calendarNames, strings.TrimSuffix(w, "s")) {
			return true
		}
	}
	return false
}

// subjects precede a question's verb.
var subjects = setOfWords(`i we you he she they who to`)

// verbsOnly reports whether every unmet word is a verb of query (the
// word after a subject, "who" or "to": "do I hate", "who cuts", "to
// fix"), none asks for a value (amountWords, numberWords: a value
// absent is no other wording), and a word of the question that is no
// verb is met: a relation said in other words ("can't stand", "long
// runs"), the thing asked about named.
func verbsOnly(query string, words, unmet []string) bool {
	verbs := questionVerbs(query)
	for _, u := range unmet {
		if !verbs[u] || amountWords[u] || numberWords[u] {
			return false
		}
	}
	return slices.ContainsFunc(words, func(w string) bool { return !verbs[w] }) // met, as every unmet word is a verb
}

// questionVerbs are the words of query read as its verbs: each word after
// a subject, "who" or "to" ("do I hate", "who cuts", "to fix").
func questionVerbs(query string) map[string]bool {
	toks := lowerWords(query)
	verbs := map[string]bool{}
	for i := 1; i < len(toks); i++ {
		if subjects[toks[i-1]] {
			verbs[strings.TrimSuffix(toks[i], "'s")] = true
		}
	}
	return verbs
}

// auxiliaries invert a question: "where does my best friend work?".
var auxiliaries = setOfWords(`do does did will would can could should`)

// invertedVerb is the verb of an inverted question asking a value — a
// question word, an auxiliary after it (or after "how often", "what
// time"), its subject, and the verb last: "where does my best friend
// work?" → "work", "how often does the cleaner come?" → "come"; "" for
// any other question.
func invertedVerb(query string) string {
	toks := lowerWords(query)
	i := 1
	if len(toks) > 2 && (toks[0] == "how" && toks[1] == "often" || toks[0] == "what" && toks[1] == "time") {
		i = 2
	}
	if len(toks) < i+3 || !auxiliaries[toks[i]] {
		return ""
	}
	switch toks[0] {
	case "where", "when", "who", "how", "what":
	default:
		return ""
	}
	for len(toks) > i+3 && (wordsMetStops[toks[len(toks)-1]] || functionWords[toks[len(toks)-1]]) {
		toks = toks[:len(toks)-1] // "… work now?", "… these days?"
	}
	if thingDeterminers[toks[len(toks)-2]] || wordsMetStops[toks[len(toks)-2]] && !subjects[toks[len(toks)-2]] {
		return "" // "how often should I water the plant?": a noun after its determiner
	}
	return strings.TrimSuffix(toks[len(toks)-1], "'s")
}

// frequency is a note's word for how often: "every other fri", "twice a
// week", "3x a week", "£10 a month", "weekly".
var frequency = regexp.MustCompile(`(?i)\b(?:every|each|daily|weekly|fortnightly|monthly|yearly|annually|once|twice|\d+\s?x)\b|\b(?:a|per) (?:day|week|fortnight|month|year)\b|/(?:day|wk|week|mo|month|yr|year)\b`)

// askedGiven reports whether query asks for a value of one kind — a date
// or time, an amount, a person (askedKinds), a place for "where", a
// frequency for "how often" — and a text gives one (gives, notes
// written without capitals read by their words).
func askedGiven(query string, texts []string) bool {
	toks := lowerWords(query)
	if len(toks) > 1 && toks[0] == "how" && toks[1] == "often" {
		return slices.ContainsFunc(texts, frequency.MatchString)
	}
	kinds, digits := leadKinds(query, true)
	if kinds == nil && len(toks) > 2 && toks[0] == "when" {
		kinds = []facts.Kind{facts.Date, facts.Time} // "when does … start?"
	}
	for _, t := range texts {
		if slices.ContainsFunc(kinds, func(k facts.Kind) bool {
			if k == facts.Place && facts.Uncapitalised(t) {
				return lowerPlace(t)
			}
			return gives(t, k, digits, true)
		}) {
			return true
		}
	}
	return false
}

// placeWord is a word after a preposition of place.
var placeWord = regexp.MustCompile(`\b(?:at|in|near|from|to)\s+([\p{L}][\p{L}'-]*)`)

// lowerPlace reports whether text, written without capitals, gives a
// place: a name (facts.LowerNames) right after "at", "in", "near",
// "from" or "to" ("an estate agent at moginie james"), or any word after
// "at" that is no time ("a pharmacist at boots", not "at night", "at 9");
// not any name ("ffion due in april" names the person asked about, no
// place).
func lowerPlace(text string) bool {
	names := facts.LowerNames(text)
	for _, m := range placeWord.FindAllStringSubmatch(strings.ToLower(text), -1) {
		w := strings.TrimSuffix(m[1], "'s")
		if slices.Contains(names, w) {
			return true
		}
		if strings.HasPrefix(m[0], "at") && !wordsMetStops[w] && !notPlace[w] && !calendarName(w) {
			return true
		}
	}
	return false
}

// notPlace are words after "at" that say when, not where.
var notPlace = setOfWords(`night nights noon midnight lunch lunchtime dinner breakfast weekend weekends christmas easter dawn dusk least most first last once times`)
