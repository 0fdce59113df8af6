package recall

import (
	"strings"

	"github.com/infmem/infmem/internal/lexicon"
)

// The detail asked for, absent. A question that asks for a detail of a
// thing — "what storytelling techniques did Shawn recommend?", "what was
// the atmosphere like at the dinner?", "how did Kim react to the plan?" —
// is not answered by a memory that only mentions the thing ("I met Shawn,
// a veteran producer, and he shared insights on storytelling…", "I just
// celebrated with a dinner at The Coral Reef…"): the memory is about the
// topic, the question's other words are in it, and the detail (the
// question's focus: the techniques, the atmosphere, the reaction) is not.
// When the first result covers the question's words and neither it nor
// any other result that covers them (nor the turns folded into them)
// holds the focus word or a form of it (its lemma, a synonym of its first
// senses, a word of the same stem), the answer is likely not stored
// (issue 23 item 5: BEAM's abstention questions, whose first result is
// the turn that mentions the thing).
//
// A question whose first result leaves some of its words out is not read:
// there the focus missing says nothing the coverage does not already say,
// and such questions are mostly answered by a turn in other words
// ("What activities has Melanie done with her family?" → "we went
// camping"). Nor is a focus that names a kind of value (a date, a rate, a
// number: AnswerAbsent reads those) or a whole ("a summary", "the order").

// FocusCoverage is the share of the question's keyword weight the first
// result must match (Evidence.Coverage) for FocusAbsent to be asked.
const FocusCoverage = 0.9

var (
	// focusSkip may stand before the focus: determiners and words that
	// narrow it without naming it ("what specific techniques").
	focusSkip = setOfWords(`the my our your his her their its a an any some this that these those
		specific particular exact exactly precisely key main other kind kinds type types sort sorts actual overall`)
	// focusKinds take "of" before the focus: "what kind of music".
	focusKinds = setOfWords(`kind kinds type types sort sorts`)
	// focusStops end the focus's words.
	focusStops = setOfWords(`was were is are did do does has have had i you he she we they it me him them us
		of in for on at during about with to from that when after before by like or and as between into while since over under
		behind beyond besides around through throughout among within without against toward towards across regarding including via per
		can could would should will shall may might must be been being than who whom which what where why how not`)
	// focusAux after "what" mean the question asks what someone did, not
	// for a detail named by a noun.
	focusAux = setOfWords(`did do does has have had will would can could should shall may might must`)
	// focusNone are foci that name no detail: a kind of value (read by
	// AnswerAbsent), a whole ("a summary of …", "the latest news on …":
	// whatever is stored), or words too general.
	focusNone = setOfWords(`time times day days date dates year years month months week weeks thing things one ones way ways
		name names part lot bit number numbers place places color colour percentage percent rate rates amount amounts
		price prices cost costs score scores age count total figure figures size sizes height weight distance duration
		budget salary fee fees summary order overview list recap rundown breakdown news update updates status situation story latest gist`)
	// focusAsk are the verbs of "can you share / tell me about … the X".
	focusAsk = setOfWords(`share tell provide give describe list summarize summarise remind recall`)
	// focusAskFill may stand between such a verb and the focus.
	focusAskFill = setOfWords(`me about details detail more on what of any`)
	// focusReact are the verbs of "how did X react / feel / respond", and
	// the noun each asks for.
	focusReact = map[string]string{"react": "reaction", "reacted": "reaction", "feel": "feeling", "felt": "feeling",
		"respond": "response", "responded": "response"}
)

// readFocus returns the focus words of query — the head nouns of "what
// (specific) X…", "which X…", "what was the X like", "what are the X of
// …", "how did … react/feel/respond", "can you share/tell me about the
// X…", one per "X or Y" — or nil when it asks for no such detail.
func readFocus(query string) []string {
	toks := lowerWords(query)
	if len(toks) < 3 {
		return nil
	}
	w0, w1 := toks[0], toks[1]
	var heads []string
	switch {
	case w0 == "what's" || w0 == "what" || w0 == "which":
		i := 1
		switch {
		case w0 == "what's" || w0 == "what" && thingCopulas[w1]:
			if w0 == "what" {
				i = 2
			}
			if n := toks[i]; !focusSkip[n] && !possessive(n) {
				return nil // "what was discussed", "what's new"
			}
		case focusAux[w1]:
			return nil
		}
		heads = focusPhrase(toks, i)
	case w0 == "how" && (w1 == "did" || w1 == "does" || w1 == "do" || w1 == "was" || w1 == "were"):
		for _, t := range toks[2:] {
			if n, ok := focusReact[t]; ok {
				heads = []string{n}
				break
			}
		}
	case (w0 == "can" || w0 == "could") && w1 == "you" && focusAsk[toks[2]]:
		i := 3
		for i < len(toks) && focusAskFill[toks[i]] {
			i++
		}
		heads = focusPhrase(toks, i)
	}
	out := heads[:0]
	for _, h := range heads {
		if focusNone[h] {
			return nil // "what was the age and role of …" asks for a value too
		}
		if len(h) > 2 && strings.Trim(h, "0123456789") != "" {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// possessive reports whether w ends in 's.
func possessive(w string) bool {
	return strings.HasSuffix(w, "'s")
}

// focusPhrase reads the noun phrase from toks[i]: the last word of each
// of its "X and/or Y" parts.
func focusPhrase(toks []string, i int) []string {
	var heads []string
	last := ""
	for ; i < len(toks); i++ {
		w := toks[i]
		if focusSkip[w] || possessive(w) && last == "" || w == "of" && last == "" && i > 0 && focusKinds[toks[i-1]] {
			continue
		}
		if (w == "and" || w == "or") && last != "" {
			heads, last = append(heads, last), ""
			continue
		}
		if focusStops[w] || possessive(w) {
			break
		}
		last = w
	}
	if last != "" {
		heads = append(heads, last)
	}
	return heads
}

// FocusAbsent reports whether query asks for a detail (readFocus) that
// none of texts (the results that cover the query's words and the turns
// folded into them) holds:
// no word of theirs is a focus word, its lemma or a synonym of it, or
// shares its stem (the first four letters or more, all but the last two
// of the shorter word: "advice" / "advised", "reaction" / "react").
func FocusAbsent(query string, texts []string) bool {
	heads := readFocus(query)
	if heads == nil || len(texts) == 0 {
		return false
	}
	forms := map[string]bool{}
	for _, h := range heads {
		addForms(forms, h)
	}
	for _, t := range texts {
		for _, w := range lowerWords(t) {
			w = strings.TrimSuffix(w, "'s")
			if forms[w] || forms[lexicon.Lemma(w)] {
				return false
			}
			for f := range forms {
				if sameStem(f, w) {
					return false
				}
			}
		}
	}
	return true
}

// lowerWords is text's words (thingWord), lower case, a curly
// apostrophe read as a straight one.
func lowerWords(text string) []string {
	return thingWord.FindAllString(strings.ToLower(strings.ReplaceAll(text, "’", "'")), -1)
}

// addForms adds to forms w, its lemma and the synonyms of its first
// senses (internal/lexicon).
func addForms(forms map[string]bool, w string) {
	forms[w] = true
	if l := lexicon.Lemma(w); l != "" {
		forms[l] = true
	}
	for _, s := range lexicon.Synonyms(w) {
		forms[s] = true
	}
}

// sameStem reports whether a and b share their first four letters or
// more, and all but at most the last two of the shorter one.
func sameStem(a, b string) bool {
	n, m := 0, min(len(a), len(b))
	for n < m && a[n] == b[n] {
		n++
	}
	return n >= 4 && n >= m-2
}
