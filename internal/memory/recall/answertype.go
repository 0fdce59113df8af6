package recall

import (
	"regexp"
	"slices"
	"strings"

	"github.com/infmem/infmem/internal/facts"
)

// The value a question asks for, absent. A question that asks for a value
// of one kind — "when is …" a date, "how much …" an amount, "who is …" a
// person, "what's the … number" a number — is answered by a note only if
// the note gives such a value: "how much does the vet charge for the
// annual jabs?" is not answered by "Pepper's vet is Dr Kelly…; her annual
// jabs are due in May", however close its words and meaning. When none of
// the notes that clear the relevance bar gives a value of the kind asked,
// the answer is likely not stored (issue 23 item 5: never-stored questions
// answered by a note about the thing that does not say what was asked).
//
// Notes only: a turn of a conversation is dated by its session, and "when
// did …" is answered by when it was said, not by a date in its words
// (LoCoMo's and messy chat's answerable questions told nothing_relevant
// by such a rule, BENCHMARKS.md 2026-11-27e); the caller reads notes.

// askedKinds are the kinds of value that answer query, or nil when it asks
// for none of them plainly; digits: a number answers it only written in
// digits (an amount, a code: "every two months" is not what "how much"
// asks), not for a count ("how many": "eight people").
func askedKinds(query string) (kinds []facts.Kind, digits bool) {
	toks := thingWord.FindAllString(strings.ToLower(query), -1)
	if len(toks) < 3 {
		return nil, false
	}
	w0, w1 := toks[0], toks[1]
	switch {
	case w0 == "when's" || w0 == "when" && (w1 == "is" || w1 == "are" || w1 == "does" || w1 == "do" || w1 == "will"):
		// "when was / did …" may be answered by when the note was written.
		return []facts.Kind{facts.Date, facts.Time}, false
	case w0 == "what" && (w1 == "time" || w1 == "date"):
		return []facts.Kind{facts.Date, facts.Time}, false
	case w0 == "how" && w1 == "much":
		return []facts.Kind{facts.Amount, facts.Number}, true
	case w0 == "how" && w1 == "many":
		return []facts.Kind{facts.Number, facts.Amount}, false
	case w0 == "who's" || w0 == "who" && (w1 == "is" || w1 == "are"):
		// A person, or a firm (read as a place after "to", "at", "with").
		return []facts.Kind{facts.Name, facts.Place}, false
	case w0 == "what's" || w0 == "what" && w1 == "is":
		// "what's [the/my/…] … number": the first noun phrase's last word.
		i := 1
		if w0 == "what" {
			i = 2
		}
		var last string
		for ; i < len(toks); i++ {
			w := toks[i]
			if thingDeterminers[w] {
				continue
			}
			if thingStops[w] {
				break
			}
			last = thingStem(w)
		}
		switch last {
		case "number", "code", "pin", "postcode":
			return []facts.Kind{facts.Number}, true
		}
	}
	return nil, false
}

// AnswerAbsent reports whether query asks for a value of one kind (a date
// or time, an amount or count, a person, a number) and none of texts (the
// notes that clear the relevance bar) gives one.
//
// lower reads the notes written without a capital letter by their words,
// not their capitals (gives).
func AnswerAbsent(query string, texts []string, lower bool) bool {
	return AnswerAbsentIn(query, texts, lower, false)
}

// AnswerAbsentIn is AnswerAbsent; with short, a date or time also counts
// given in a short form (givesShort: "17/01", "14h", "mer 18h45").
func AnswerAbsentIn(query string, texts []string, lower, short bool) bool {
	kinds, digits := askedKinds(query)
	if kinds == nil || len(texts) == 0 {
		return false
	}
	for _, t := range texts {
		if slices.ContainsFunc(kinds, func(k facts.Kind) bool { return gives(t, k, digits, lower) || short && givesShort(t, k) }) {
			return false
		}
	}
	return true
}

// ordinalDay is a day of the month said alone: "by the 15th".
var ordinalDay = regexp.MustCompile(`(?i)\b([1-9]|[12][0-9]|3[01])(st|nd|rd|th)\b`)

// lowerDate is a month that is also a word ("may", "march"), written
// without its capital, where it can only be the month: by a day's number
// ("may 4", "14 march") or after a word that dates ("in may", "by march").
var lowerDate = regexp.MustCompile(`\b(([1-9]|[12][0-9]|3[01])(st|nd|rd|th)?( of)? (may|march)|(may|march) ([1-9]|[12][0-9]|3[01])(st|nd|rd|th)?|(in|by|until|till|since|from|early|late|mid|end of|start of|beginning of) (may|march))\b`)

// gives reports whether text states a value of kind k; with digits, a
// number counts only written in digits. With lower, a text written
// without a capital letter (facts.Uncapitalised) gives a name when it
// holds one by facts.LowerNames, and a date by a month written without
// its capital (lowerDate): the same verdict as for the text capitalised
// (issue 23 item 5: "léa's best friend is chloé" names her).
func gives(text string, k facts.Kind, digits, lower bool) bool {
	if lower && facts.Uncapitalised(text) {
		switch k {
		case facts.Name, facts.Place:
			if len(facts.LowerNames(text)) > 0 {
				return true
			}
		case facts.Date:
			if lowerDate.MatchString(text) {
				return true
			}
		}
	}
	vs := facts.Extract(text).Of(k)
	if k == facts.Number && digits {
		return slices.ContainsFunc(vs, func(v string) bool { return strings.Contains(text, v) })
	}
	if k == facts.Date && ordinalDay.MatchString(text) {
		return true
	}
	return len(vs) > 0
}

// leadKinds are the kinds of value that answer query for KindLeadOrder:
// askedKinds', and with where a place for "where …".
func leadKinds(query string, where bool) (kinds []facts.Kind, digits bool) {
	kinds, digits = askedKinds(query)
	if kinds != nil || !where {
		return kinds, digits
	}
	toks := thingWord.FindAllString(strings.ToLower(query), -1)
	if len(toks) >= 3 && (toks[0] == "where" || toks[0] == "where's") {
		return []facts.Kind{facts.Place}, false
	}
	return nil, false
}

// givesAny reports whether text states a value of one of kinds, by its
// capitals (KindLead reads as it was measured; AnswerAbsentLower is
// answerabsent's).
func givesAny(text string, kinds []facts.Kind, digits bool) bool {
	return slices.ContainsFunc(kinds, func(k facts.Kind) bool { return gives(text, k, digits, false) })
}

// KindLeadOrder applies Options.KindLead to a search's results for query,
// best first (texts, their evidence): when the query asks for a value of
// one kind (askedKinds) and the first result, a note, gives none, the
// first note after it among the first KindLeadTop that gives one leads,
// if its ranking score is at least KindLead times the first's and not
// above it (a note put first by another rule's reordering keeps its
// place); the others keep their order. held(i) says the i-th result
// takes part in an update or a contradiction: such pairs are left as
// they are (the newer of an update stays first). It returns the place
// of the result that leads, or 0 when none moves.
//
// The reading: two notes about the same thing ("the kitchen") whose
// words and meaning score alike, one saying the value asked ("18,400
// pounds") and one another detail ("can start on May 4"): the one that
// answers goes first. The relevance verdicts are not the rule's: the
// caller keeps each rank's confidence and verdict.
func KindLeadOrder(query string, texts []string, ev []*Evidence, held func(int) bool, ro *Options) int {
	if ro.KindLead <= 0 || len(texts) < 2 || len(ev) != len(texts) {
		return 0
	}
	kinds, digits := leadKinds(query, ro.KindLeadWhere > 0)
	if kinds == nil {
		return 0
	}
	first := ev[0]
	if first == nil || !first.Alone || first.Score <= 0 || held(0) || givesAny(texts[0], kinds, digits) {
		return 0
	}
	top := min(len(texts), int(ro.KindLeadTop))
	for j := 1; j < top; j++ {
		e := ev[j]
		if e == nil || !e.Alone || held(j) || !givesAny(texts[j], kinds, digits) {
			continue
		}
		if e.Score >= ro.KindLead*first.Score && e.Score <= first.Score {
			return j
		}
		return 0
	}
	return 0
}
