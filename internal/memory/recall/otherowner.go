package recall

import (
	"slices"
	"strings"
	"unicode"

	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/mongostore"
)

// Another owner's thing. A question that asks for a value of someone's
// thing ("what is Grace's mobile number?", "when is Sam's wedding?") is
// not answered by a memory that gives that thing of someone else: "Dad's
// new mobile number is 07700 900418", "Our wedding anniversary is 18
// September". The memory's owner is read from the words before its
// thing's word (a possessive, or "our"/"my" for the user); the
// question's owner stands for itself, the relations the profile gives
// that name and their other words ("Tom" is "dad" when Tom is the
// father), and the names the profile gives a relation ("my dad's" is
// Tom's). When a result that clears the bar gives the thing, with a value
// of the kind asked, only for another owner, and no result holds the
// thing with the question's owner, the answer is likely not stored
// (issue 23 item 5: never-stored questions answered by a note on a
// sibling's or the user's own thing).

// ownerValueHeads are the things a "what is X's …" question asks a
// value of: a number or code.
var ownerValueHeads = setOfWords(`number code pin postcode`)

// ownerUser are the words by which a memory gives the user's own thing.
var ownerUser = setOfWords(`our my`)

// partnerRelations are the relations whose thing may be "our" thing.
var partnerRelations = setOfWords(`partner wife husband spouse fiance fiancee girlfriend boyfriend`)

// askedOwner is what such a question asks: its thing's head, the value
// kinds that answer it, and the words that stand for its owner.
type askedOwner struct {
	head    string
	kinds   []facts.Kind
	owner   []string
	partner bool
}

// readOwner reads "when/who/where/how much … is [my] OWNER's [MOD…] THING"
// (readThing's frames) and "what is/what's [my] OWNER's [MOD…]
// number/code"; nil for any other question or one without a possessive
// owner before its thing.
func readOwner(q string, contacts []mongostore.Contact) *askedOwner {
	_, toks, kinds, i, ok := askedFrame(q, 3, true)
	if !ok {
		return nil
	}
	if i < len(toks) && (toks[i] == "my" || toks[i] == "our" || toks[i] == "the") {
		i++
	}
	// OWNER's: the first word of the thing's phrase, a possessive.
	if i >= len(toks) || !(strings.HasSuffix(toks[i], "'s") || strings.HasSuffix(toks[i], "’s")) {
		return nil
	}
	owner := thingStem(toks[i])
	if owner == "" || thingStops[owner] {
		return nil
	}
	var np []string
	for i++; i < len(toks) && len(np) < 3; i++ {
		w := toks[i]
		if thingOrdinals[w] {
			continue
		}
		if thingStops[w] || w[0] >= '0' && w[0] <= '9' || strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") {
			break
		}
		np = append(np, w)
	}
	// A word in -ing or -ed after the thing's word is not the thing ("my
	// sister's flight landing"); alone, it is ("Sam's wedding").
	for len(np) > 1 && (strings.HasSuffix(np[len(np)-1], "ing") || strings.HasSuffix(np[len(np)-1], "ed") || thingParticiples[np[len(np)-1]]) {
		np = np[:len(np)-1]
	}
	if len(np) == 0 {
		return nil
	}
	a := &askedOwner{head: thingStem(np[len(np)-1]), kinds: kinds}
	if toks[0] == "what" || toks[0] == "what's" || toks[0] == "whats" {
		if !ownerValueHeads[a.head] {
			return nil
		}
	}
	a.owner = append(a.owner, owner)
	a.owner = append(a.owner, sameRelation(owner)...)
	for _, r := range contactsFor(q, contacts) {
		if thingStem(r.word) != owner && !slices.Contains(sameRelation(owner), thingStem(r.word)) {
			continue
		}
		for _, name := range r.names {
			for _, n := range strings.Fields(name) {
				a.owner = append(a.owner, thingStem(n))
			}
		}
	}
	for _, c := range contacts {
		names := strings.Fields(strings.ToLower(c.Name))
		rel := relationParts(c.Relation)
		isOwner := slices.Contains(names, owner) || slices.ContainsFunc(rel, func(r string) bool { return slices.Contains(a.owner, thingStem(r)) })
		if !isOwner {
			continue
		}
		for _, n := range names {
			a.owner = append(a.owner, thingStem(n))
		}
		for _, r := range rel {
			a.owner = append(a.owner, thingStem(r))
			a.owner = append(a.owner, sameRelation(r)...)
			a.partner = a.partner || partnerRelations[r]
		}
	}
	if partnerRelations[owner] || slices.ContainsFunc(sameRelation(owner), func(r string) bool { return partnerRelations[r] }) {
		a.partner = true
	}
	return a
}

// namedIn adds to the owner's words the names the texts give right
// after one of them: "Our dog Pepper is a collie" makes "Pepper's vet"
// the dog's vet.
func (a *askedOwner) namedIn(texts []string) {
	for _, t := range texts {
		toks := thingWord.FindAllString(t, -1)
		for j := 0; j+1 < len(toks); j++ {
			next := []rune(toks[j+1])
			if !slices.Contains(a.owner, thingStem(toks[j])) || !unicode.IsUpper(next[0]) || thingStops[strings.ToLower(toks[j+1])] {
				continue
			}
			if n := thingStem(toks[j+1]); !slices.Contains(a.owner, n) {
				a.owner = append(a.owner, n)
			}
		}
	}
}

// noteOwner is the owner a memory gives its thing at toks[j] (lower
// case): the nearest possessive before it within the thing's phrase, or
// "our"/"my" (returned as "our"); "" when none.
func noteOwner(toks []string, j int) string {
	for k := j - 1; k >= 0 && k >= j-4; k-- {
		w := toks[k]
		if ownerUser[w] {
			return "our"
		}
		if thingStops[w] || w[0] >= '0' && w[0] <= '9' {
			return ""
		}
		if strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") {
			return thingStem(w)
		}
	}
	return ""
}

// OtherOwner reports whether query asks for a value of someone's thing
// while the results (texts, best first; clears says which clear the
// relevance bar) give it only for someone else: a result that clears the
// bar holds the thing with another owner before it and a value of the
// kind asked, and no result holds the thing with the question's owner
// (before it, or anywhere in a memory that holds the thing with no owner
// before it).
func OtherOwner(query string, texts []string, clears []bool, contacts []mongostore.Contact) bool {
	a := readOwner(query, contacts)
	if a == nil {
		return false
	}
	a.namedIn(texts)
	other := false
	for i, t := range texts {
		orig := thingWord.FindAllString(t, -1)
		toks := make([]string, len(orig))
		stems := make([]string, len(orig))
		for j, w := range orig {
			toks[j], stems[j] = strings.ToLower(w), thingStem(w)
		}
		if !slices.Contains(stems, a.head) {
			continue
		}
		for j, s := range stems {
			if s != a.head {
				continue
			}
			o := noteOwner(toks, j)
			switch {
			case o == "" && slices.ContainsFunc(a.owner, func(w string) bool { return slices.Contains(stems, w) }):
				return false // the thing with the owner named elsewhere in the memory
			case o == "":
			case slices.Contains(a.owner, o) || o == "our" && a.partner:
				return false // the owner's thing is there
			case i < len(clears) && clears[i] && !other:
				d := facts.Extract(t)
				other = slices.ContainsFunc(a.kinds, func(k facts.Kind) bool { return len(d.Of(k)) > 0 })
			}
		}
	}
	return other
}
