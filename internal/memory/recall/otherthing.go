package recall

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/mongostore"
)

// Another thing of the same kind. A question that asks for a value — a
// date, an amount or count, a person or a place — of a thing it names
// with a word before the thing's own ("how much is the water bill?",
// "when is my dad's birthday?", "how much is our home insurance?") is
// not answered by a memory that gives such a value for another thing of
// that kind ("Paid the electricity bill of 84 euros", "Alex's birthday is
// 9 August", "Car insurance is with Admiral…, £412"): the words and the
// meaning are close, the thing is not the one asked about. When the
// results give such values only for other things, and none holds the
// thing with the question's word before it, the answer is likely not
// stored (issue 23 item 5: the everyday sets' never-stored questions
// answered by a note about a sibling thing).

// askedThing is what such a question asks about.
type askedThing struct {
	// kinds are the details that answer it.
	kinds []facts.Kind
	// head is the thing's word (stemmed: "bill", "birthday"); mods the
	// words before it in the question, each with the words that may
	// stand for it (a relation's other words, the contact it names).
	head string
	mods [][]string
	// words are the question's words (stemmed).
	words map[string]bool
}

var (
	thingWord = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}'’-]*`)
	// thingStops end the thing's words in a question and are never the
	// word before a thing in a memory.
	thingStops = setOfWords(`a an the another other same such both either neither first second third my our your his her their its this that these those some any every
		of to in on at for by with from about as into over after before under between and or but so if than then
		is are was were be been am do does did has have had will would can could should shall may might must
		i me we us you he him she her they them it who whom whose what which when where why how
		not no now again still next last due soon ever also just only very really each per
		up down out off away back gonna gotta wanna`)
	// thingParticiples end no thing's name: "when was the script shown".
	thingParticiples = setOfWords(`shown done given taken made held paid sent bought sold built seen known born won begun
		written grown drawn thrown flown worn torn chosen spoken broken stolen frozen left lost kept met told found heard`)
	// thingOrdinals say which one of a kind, not what kind.
	thingOrdinals = setOfWords(`first second third fourth fifth last next latest`)
	// thingDeterminers may stand between the copula and the thing.
	thingDeterminers = setOfWords(`the my our your his her their a an this that`)
	thingCopulas     = setOfWords(`is are was were`)
)

func setOfWords(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// thingStem is w in lower case without a possessive 's or a plural s.
func thingStem(w string) string {
	w = strings.ToLower(w)
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	w = strings.TrimRight(w, "'’")
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") {
		w = w[:len(w)-1]
	}
	return w
}

// askedFrame reads the opening "WH-WORD [is/was/…]" that readThing and
// readOwner share: the question's words as written and in lower case, the
// value kinds its WH-word asks for, and the index of the word after the
// copula; ok is false for a question of fewer than minWords words or
// another opening. anyWhat lets a bare "what" open it, asking for a
// number (the caller checks there is one).
func askedFrame(q string, minWords int, anyWhat bool) (orig, toks []string, kinds []facts.Kind, next int, ok bool) {
	orig = thingWord.FindAllString(q, -1)
	if len(orig) < minWords {
		return nil, nil, nil, 0, false
	}
	toks = make([]string, len(orig))
	for i, w := range orig {
		toks[i] = strings.ToLower(w)
	}
	i := 1
	switch w := toks[0]; {
	case w == "when" || w == "when's":
		kinds = []facts.Kind{facts.Date, facts.Time}
	case w == "how" && (toks[1] == "much" || toks[1] == "many"):
		kinds, i = []facts.Kind{facts.Amount, facts.Number}, 2
	case w == "what" && (toks[1] == "time" || toks[1] == "date" || toks[1] == "day"):
		kinds, i = []facts.Kind{facts.Date, facts.Time}, 2
	case w == "who" || w == "who's":
		kinds = []facts.Kind{facts.Name}
	case w == "where" || w == "where's":
		kinds = []facts.Kind{facts.Place, facts.Name}
	case anyWhat && (w == "what" || w == "what's" || w == "whats"):
		kinds = []facts.Kind{facts.Number}
	default:
		return nil, nil, nil, 0, false
	}
	if !strings.HasSuffix(toks[0], "'s") && !strings.HasSuffix(toks[0], "’s") && toks[0] != "whats" {
		if i >= len(toks) || !thingCopulas[toks[i]] {
			return nil, nil, nil, 0, false
		}
		i++
	}
	return orig, toks, kinds, i, true
}

// readThing reads a question "WH-WORD is [the/my/…] MOD… THING …" that
// asks for a date, an amount or count, a person or a place; nil for any
// other question, or one that names its thing with no word before it.
func readThing(q string, contacts []mongostore.Contact) *askedThing {
	orig, toks, kinds, i, ok := askedFrame(q, 4, false)
	if !ok {
		return nil
	}
	a := &askedThing{words: map[string]bool{}, kinds: kinds}
	for _, t := range toks {
		a.words[thingStem(t)] = true
	}
	if i < len(toks) && thingDeterminers[toks[i]] {
		i++
	}
	var np []string
	for ; i < len(toks) && len(np) < 4; i++ {
		w := toks[i]
		if thingOrdinals[w] {
			continue // "Joanna's second movie script": which one, not what kind
		}
		if thingStops[w] || w[0] >= '0' && w[0] <= '9' {
			break
		}
		if properPlace(orig[i], contacts) {
			// "the Lisbon hotel": a proper name before the thing names a
			// place, a brand or a name of its own, which memories may not
			// share (the Lisbon hotel is the Alfama hotel): another thing's
			// value is no sign that this one was never told.
			return nil
		}
		np = append(np, w)
	}
	// A word in -ing or -ed may say what kind of thing ("wedding
	// anniversary") but is not the thing ("my sister coming to stay").
	for len(np) > 0 && (strings.HasSuffix(np[len(np)-1], "ing") || strings.HasSuffix(np[len(np)-1], "ed") || thingParticiples[np[len(np)-1]]) {
		np = np[:len(np)-1]
	}
	if len(np) < 2 {
		return nil
	}
	a.head = thingStem(np[len(np)-1])
	refs := contactsFor(q, contacts)
	var mods []string
	for _, m := range np[:len(np)-1] {
		mods = append(mods, thingStem(m))
	}
	for _, m := range mods {
		a.mods = append(a.mods, standsFor(m, mods, refs))
	}
	return a
}

// properPlace reports whether w, a word before the thing in a question,
// is a proper name standing as a modifier ("Lisbon", "Squarespace"), not
// a possessor ("Leo's") nor one of the user's contacts: a possessor is a
// person, and another person's value is another thing's; a place or a
// brand may contain or be another name of the thing a memory names.
func properPlace(w string, contacts []mongostore.Contact) bool {
	r := []rune(w)
	if len(r) == 0 || !unicode.IsUpper(r[0]) || strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") {
		return false
	}
	lw := strings.ToLower(w)
	for _, c := range contacts {
		if slices.Contains(strings.Fields(strings.ToLower(c.Name)), lw) {
			return false
		}
	}
	return true
}

// standsFor is w, a word before the thing in a question (mods: all of
// them), with the words that may stand for it: a relation's other words
// ("mum" for "mother") and the names of the contacts the question names
// by a relation (contactsFor: "my partner" is Alex, the partner, not
// Nadia, the business partner; "the partner bonus" names nobody) when w
// is that relation's word, or another word of the same phrase that is a
// word of their relation or a qualifier ("business partner", "best
// friend": the name holds both).
func standsFor(w string, mods []string, refs []personRef) []string {
	alts := []string{w}
	for _, y := range sameRelation(w) {
		if y != w {
			alts = append(alts, y)
		}
	}
	for _, r := range refs {
		rw := thingStem(r.word)
		if rw != w && !(slices.Contains(mods, rw) && (slices.Contains(relationQualifiers, w) || slices.ContainsFunc(r.relation, func(x string) bool { return thingStem(x) == w }))) {
			continue
		}
		for _, name := range r.names {
			for _, n := range strings.Fields(name) {
				alts = append(alts, thingStem(n))
			}
		}
	}
	return alts
}

// namedIn adds to each word before the thing the names the texts give it
// right after it: "Our dog Pepper is a collie" makes "Pepper's vet" the
// dog's vet, as a contact's name stands for its relation.
func (a *askedThing) namedIn(texts []string) {
	for m, alts := range a.mods {
		for _, t := range texts {
			toks := thingWord.FindAllString(t, -1)
			for j := 0; j+1 < len(toks); j++ {
				next := []rune(toks[j+1])
				if !slices.Contains(alts, thingStem(toks[j])) || !unicode.IsUpper(next[0]) || thingStops[strings.ToLower(toks[j+1])] {
					continue
				}
				if n := thingStem(toks[j+1]); !slices.Contains(a.mods[m], n) {
					a.mods[m] = append(a.mods[m], n)
				}
			}
		}
	}
}

// credentialWords name what a memory gives of one thing only: the
// password of the guest wifi is not the work VPN's.
var credentialWords = setOfWords(`password passcode passphrase login username pin`)

// credentialLinks join a credential to its thing: "the password for …".
var credentialLinks = setOfWords(`for of to on`)

// otherOwner reports whether query asks for a credential of a thing
// ("what's the password for the work VPN?", "what's my work email
// password?") while a result that clears the bar holds that credential's
// word (for something else: "We use Bitwarden as the family password
// manager") and no result holds every word the question names the thing
// with.
func otherOwner(query string, texts []string, clears []bool, contacts []mongostore.Contact) bool {
	toks := thingWord.FindAllString(strings.ToLower(query), -1)
	i := 0
	switch {
	case len(toks) > 0 && (toks[0] == "what's" || toks[0] == "whats"):
		i = 1
	case len(toks) > 1 && toks[0] == "what" && thingCopulas[toks[1]]:
		i = 2
	default:
		return false
	}
	for i < len(toks) && thingDeterminers[toks[i]] {
		i++
	}
	var attr string
	var thing []string
	if i < len(toks) && credentialWords[toks[i]] {
		// "the password for [the] THING…"
		attr, i = toks[i], i+1
		if i >= len(toks) || !credentialLinks[toks[i]] {
			return false
		}
		for i++; i < len(toks) && thingDeterminers[toks[i]]; i++ {
		}
		for ; i < len(toks) && !thingStops[toks[i]] && len(thing) < 4; i++ {
			thing = append(thing, toks[i])
		}
	} else {
		// "[my] THING… password"
		for ; i < len(toks) && !thingStops[toks[i]] && len(thing) < 5; i++ {
			thing = append(thing, toks[i])
		}
		if len(thing) < 2 || !credentialWords[thing[len(thing)-1]] {
			return false
		}
		attr, thing = thing[len(thing)-1], thing[:len(thing)-1]
	}
	if len(thing) == 0 || i < len(toks) && !thingStops[toks[i]] {
		return false
	}
	refs := contactsFor(query, contacts)
	stemmed := make([]string, len(thing))
	for j, w := range thing {
		stemmed[j] = thingStem(w)
	}
	alts := make([][]string, len(thing))
	for j, w := range stemmed {
		alts[j] = standsFor(w, stemmed, refs)
	}
	named := false
	for j, t := range texts {
		stems := map[string]bool{}
		for _, w := range thingWord.FindAllString(t, -1) {
			stems[thingStem(w)] = true
		}
		all := true
		for _, a := range alts {
			all = all && slices.ContainsFunc(a, func(w string) bool { return stems[w] })
		}
		if all {
			return false // the thing asked about is there
		}
		named = named || j < len(clears) && clears[j] && stems[thingStem(attr)]
	}
	return named
}

// OtherThing reports whether query asks for a value of a thing it names
// with a word before it while the results (texts, best first; clears
// says which clear the relevance bar) give such values only for other
// things of the kind: a result that clears the bar holds the thing with
// another word before it and a value of the kind asked, and no result
// holds the thing with the question's words.
func OtherThing(query string, texts []string, clears []bool, contacts []mongostore.Contact) bool {
	if otherOwner(query, texts, clears, contacts) {
		return true
	}
	a := readThing(query, contacts)
	if a == nil {
		return false
	}
	a.namedIn(texts)
	other := false
	for i, t := range texts {
		toks := thingWord.FindAllString(t, -1)
		stems := make([]string, len(toks))
		for j, w := range toks {
			stems[j] = thingStem(w)
		}
		if !slices.Contains(stems, a.head) {
			continue
		}
		all := true
		for _, alts := range a.mods {
			all = all && slices.ContainsFunc(alts, func(w string) bool { return slices.Contains(stems, w) })
		}
		if all {
			return false // the thing asked about is there
		}
		if other || i >= len(clears) || !clears[i] {
			continue
		}
		for j, s := range stems {
			if s != a.head || j == 0 {
				continue
			}
			b := strings.ToLower(toks[j-1])
			if thingStops[b] || a.words[stems[j-1]] || b[0] >= '0' && b[0] <= '9' {
				continue
			}
			d := facts.Extract(t)
			other = slices.ContainsFunc(a.kinds, func(k facts.Kind) bool { return len(d.Of(k)) > 0 })
			break
		}
	}
	return other
}
