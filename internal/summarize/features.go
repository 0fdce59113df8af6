package summarize

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// features are what make a sentence a fact worth keeping whatever its
// centrality. They are detected with rules, not a model: a false positive
// costs a few characters of the budget, a false negative may lose a fact.
type features struct {
	date     bool // a date or time expression: "June 5", "2023-03-05", "next Tuesday", "at 3pm"
	number   bool // a number or amount: "$300", "3 kids", "forty"
	name     bool // a proper name: a capitalised word that is not merely sentence-initial
	decision bool // a decision or commitment: "decided", "will", "plan to", "deadline"
	ref      bool // a URL or e-mail address
}

func (f features) must() bool { return f.date || f.number || f.name || f.decision || f.ref }

// token is a word of a sentence. initial marks the first word of a sentence
// or of a quotation or clause after a colon, where capitals say nothing
// about names.
type token struct {
	text, lower string
	initial     bool
}

// words splits s into word tokens: runs of letters, digits and inner
// apostrophes.
func words(s string) []token {
	var out []token
	initial := true
	prev := ' '
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			// A straight quote opens a quotation only after a space.
			if strings.ContainsRune(":“‘(—–", r) || (r == '"' && unicode.IsSpace(prev)) {
				initial = true
			}
			prev = r
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r2, s2 := utf8.DecodeRuneInString(s[j:])
			if isWordRune(r2) {
				j += s2
				continue
			}
			// An apostrophe between letters belongs to the word: "I'll".
			if (r2 == '\'' || r2 == '’') && j+s2 < len(s) {
				r3, _ := utf8.DecodeRuneInString(s[j+s2:])
				if unicode.IsLetter(r3) {
					j += s2
					continue
				}
			}
			break
		}
		w := s[i:j]
		out = append(out, token{text: w, lower: strings.ToLower(w), initial: initial})
		initial = false
		prev = 'a'
		i = j
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// corpus holds what name detection learns from the whole conversation.
type corpus struct {
	// lowerSeen holds words written in lower case somewhere other than at
	// a sentence start: such a word is a common word when capitalised at
	// the start of a sentence ("Booked the hotel."), not a name.
	lowerSeen map[string]bool
	// speakers holds the lower-cased words of the speakers' names: the
	// header names them, so "Wow, Caroline!" is not a named fact.
	speakers map[string]bool
}

func newCorpus(sentences [][]token) *corpus {
	c := &corpus{lowerSeen: map[string]bool{}}
	for _, toks := range sentences {
		for _, t := range toks {
			r, _ := utf8.DecodeRuneInString(t.text)
			if unicode.IsLower(r) {
				c.lowerSeen[t.lower] = true
			}
		}
	}
	return c
}

func detect(s string, toks []token, c *corpus) features {
	ls := strings.ToLower(s)
	return features{
		date:     hasDate(s, ls, toks),
		number:   hasNumber(s, toks),
		name:     hasName(toks, c),
		decision: hasDecision(toks),
		ref:      refRE.MatchString(s),
	}
}

var (
	refRE = regexp.MustCompile(`(?i)\bhttps?://\S+|\bwww\.\S+\.\S+|[\w.+-]+@[\w-]+\.[\w.-]+`)

	// dateRE finds date and time expressions in a lower-cased sentence.
	// The patterns are joined into one expression, which matches in a
	// single pass instead of one per pattern.
	dateRE = anyOf(
		`\b\d{4}-\d{1,2}-\d{1,2}\b`,
		`\b\d{1,2}/\d{1,2}(/\d{2,4})?\b`,
		`\b\d{1,2}\.\d{1,2}\.\d{2,4}\b`,
		`\b\d{1,2}(:\d{2})?\s?(am|pm|a\.m\.|p\.m\.)`,
		`\b\d{1,2}:\d{2}\b`,
		`\b(at|by|from|until|till|before|after|around|about)\s+\d{1,2}([.:]\d{2})?\b`,
		`\bo['’]clock\b`,
		`\b\d{1,2}(st|nd|rd|th)\b`,
		`\b(19|20)\d{2}s?\b`,
		`\b(today|tonight|tomorrow|tmrw|tmr|yesterday|weekends?|noon|midday|midnight|eod|eow|eom|overnight|fortnight)\b`,
		`\b(this|next|last|every|coming|past|previous|following)\s+(morning|afternoon|evening|night|week|weekend|month|year|quarter|semester|term|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`,
		`\b(in|within|for|after)\s+(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several)\s+(minute|hour|day|night|week|month|year|quarter)s?\b`,
		`\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several)\s+(minute|hour|day|night|week|month|year)s?\s+(ago|later|from now|earlier|before|after)\b`,
		`\bend of (the )?(day|week|month|year|quarter|sprint|term)\b`,
		`\bq[1-4]\b`,
		`\b(summer|winter|spring|autumn)\b`,
		`\b(the|this|next|last|in|by|until|early|late|mid)[- ]fall\b`,
		`\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b`,
		`\b(january|february|april|june|july|august|september|october|november|december)\b`,
		// "May" and "March" are also a verb; they are months next to a
		// number or after a preposition.
		`\b(may|march|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+\d{1,2}(st|nd|rd|th)?\b`,
		`\b\d{1,2}(st|nd|rd|th)?\s+(of\s+)?(may|march|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b`,
		`\b(in|of|by|until|till|since|early|mid|late|next|last|this|before|after|from|through|during)\s+(may|march)\b`,
	)
	// Capitalised forms that are dates only when written with a capital
	// in the middle of a sentence.
	capitalDates = setOf("may", "march", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
		"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")
)

func hasDate(s, ls string, toks []token) bool {
	// The expression is slow beside a map lookup; every pattern needs a
	// digit or one of dateKeywords.
	if hasDigit(s) || slices.ContainsFunc(toks, func(t token) bool { return dateKeywords[strings.TrimSuffix(t.lower, "s")] }) {
		if dateRE.MatchString(ls) {
			return true
		}
	}
	for _, t := range toks {
		if !t.initial && capitalDates[t.lower] && startsUpper(t.text) {
			return true
		}
	}
	return false
}

var numberWords = setOf("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
	"nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
	"hundred", "hundreds", "thousand", "thousands", "million", "millions", "billion", "billions",
	"dozen", "dozens", "twice", "half", "percent")

func hasNumber(s string, toks []token) bool {
	if strings.ContainsAny(s, "$€£¥₹%") {
		return true
	}
	if hasDigit(s) {
		return true
	}
	for _, t := range toks {
		if numberWords[t.lower] {
			return true
		}
	}
	return false
}

// hasName reports a capitalised word that is a name rather than an
// ordinary word capitalised by position: mid-sentence capitals count
// (except "I" and chat words like "OK"); a sentence-initial capital counts
// when it is an acronym, or is neither a common English word nor written in
// lower case elsewhere in the conversation.
func hasName(toks []token, c *corpus) bool {
	for _, t := range toks {
		if isName(t, c) {
			return true
		}
	}
	return false
}

func isName(t token, c *corpus) bool {
	r, _ := utf8.DecodeRuneInString(t.text)
	if !unicode.IsUpper(r) {
		return false
	}
	lw := strings.ReplaceAll(t.lower, "’", "'")
	if lw == "i" || strings.HasPrefix(lw, "i'") || chatWords[lw] || calendarWords[lw] {
		return false
	}
	if c != nil && c.speakers[strings.TrimSuffix(lw, "'s")] {
		return false
	}
	if !t.initial {
		return true
	}
	if isAcronym(t.text) {
		return true
	}
	if commonWords[lw] || ackWords[lw] {
		return false
	}
	return c == nil || !c.lowerSeen[t.lower]
}

func isAcronym(w string) bool {
	n := 0
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsUpper(r) {
			n++
		}
	}
	return n >= 2
}

// chatWords are capitalised in chat without being names.
var chatWords = setOf("ok", "okay", "lol", "omg", "btw", "fyi", "tbh", "imo", "imho", "thx", "ty",
	"hi", "hey", "hello", "yes", "no", "yeah", "yep", "nope", "thanks", "lmao", "haha", "pls", "plz")

func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }

// dateKeywords are the words, singular, of which every digit-free pattern
// of dateRE needs one.
var dateKeywords = setOf("today", "tonight", "tomorrow", "tmrw", "tmr", "yesterday", "weekend",
	"noon", "midday", "midnight", "eod", "eow", "eom", "overnight", "fortnight", "o'clock", "o’clock",
	"morning", "afternoon", "evening", "night", "week", "month", "year", "quarter", "semester",
	"term", "summer", "winter", "spring", "fall", "autumn", "minute", "hour", "day", "sprint",
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
	"february", "april", "june", "july", "august", "september", "october", "november", "december",
	"may", "march")

// calendarWords are capitalised but are dates, not names.
var calendarWords = setOf("january", "february", "march", "april", "may", "june", "july", "august",
	"september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
	"sep", "sept", "oct", "nov", "dec", "monday", "tuesday", "wednesday", "thursday", "friday",
	"saturday", "sunday", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun")

// decisionWords mark a decision or commitment on their own.
var decisionWords = setOf("decided", "decide", "decides", "deciding", "decision", "decisions",
	"agreed", "agree", "agrees", "agreement", "will", "won't", "shall", "promise", "promised",
	"promises", "must", "deadline", "deadlines", "due", "commit", "committed", "commits",
	"commitment", "gonna", "booked", "scheduled", "confirmed", "finalized", "finalised",
	"approved", "settled", "chose", "chosen", "assigned", "plan", "plans", "planned", "planning",
	"let's", "todo")

// decisionPairs mark a decision as two words: "going to", "need to".
var decisionPairs = setOf("going to", "need to", "needs to", "have to", "has to", "remember to",
	"don't forget", "action item", "action items")

func hasDecision(toks []token) bool {
	for i, t := range toks {
		lw := normWord(t.lower)
		if decisionWords[lw] || strings.HasSuffix(lw, "'ll") {
			return true
		}
		if i+1 < len(toks) && decisionPairs[lw+" "+normWord(toks[i+1].lower)] {
			return true
		}
	}
	return false
}

// anyOf compiles patterns into one expression matching any of them.
func anyOf(patterns ...string) *regexp.Regexp {
	return regexp.MustCompile("(?:" + strings.Join(patterns, ")|(?:") + ")")
}

// isAck reports a trivial acknowledgement ("ok", "thanks!", "sounds good",
// "lol", "Thanks Lena"): at most six words, all from the acknowledgement
// vocabulary but for at most one addressed name, no digits.
func isAck(toks []token) bool {
	if len(toks) == 0 || len(toks) > 6 {
		return false
	}
	names := 0
	for _, t := range toks {
		if ackWords[withoutApostrophes(t.lower)] {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(t.text); !t.initial && unicode.IsUpper(r) && !isAcronym(t.text) && names == 0 {
			names++
			continue
		}
		return false
	}
	return names < len(toks)
}

func withoutApostrophes(w string) string {
	return strings.Map(func(r rune) rune {
		if r == '\'' || r == '’' {
			return -1
		}
		return r
	}, w)
}

// isAnswer reports an acknowledgement that answers a question ("yes",
// "sure", "sounds good", "no"): after a question it carries the decision.
func isAnswer(toks []token) bool {
	for _, t := range toks {
		if answerWords[t.lower] {
			return true
		}
	}
	return false
}

var ackWords = setOf(
	"ok", "okay", "k", "kk", "okie", "okey", "alright", "allright", "right", "sure", "yes", "yeah",
	"yep", "yup", "ya", "yea", "no", "nope", "nah", "thanks", "thank", "you", "thx", "ty", "tysm",
	"much", "so", "very", "lot", "a", "lol", "lmao", "rofl", "haha", "hahaha", "hehe", "heh", "hmm",
	"hm", "oh", "ah", "aha", "wow", "cool", "nice", "great", "good", "awesome", "perfect", "sweet",
	"fine", "excellent", "sounds", "works", "for", "me", "got", "it", "gotcha", "np", "problem",
	"welcome", "youre", "cheers", "bye", "goodbye", "see", "later", "then", "hi", "hey", "hello",
	"morning", "night", "agreed", "agree", "i", "exactly", "indeed", "true", "totally", "definitely",
	"absolutely", "of", "course", "will", "do", "noted", "understood", "makes", "sense", "that",
	"thats", "this", "is", "same", "too", "roger", "deal", "the", "all", "well", "done", "and",
	"glad", "to", "help", "correct", "love", "everyone", "everybody", "guys", "folks", "team",
	"here", "would", "be", "idea", "ideal", "lovely", "wonderful", "fantastic", "brilliant", "amazing")

var answerWords = setOf("yes", "yeah", "yep", "yup", "ya", "yea", "sure", "ok", "okay", "k", "kk",
	"alright", "agreed", "agree", "deal", "definitely", "absolutely", "no", "nope", "nah", "fine",
	"will", "works", "sounds", "course", "correct", "right", "exactly", "true")

// commonWords are English words often capitalised only because they start
// a sentence.
var commonWords = setOf(
	"a", "an", "the", "this", "that", "these", "those", "there", "here", "it", "its", "it's",
	"we", "we're", "we'll", "we've", "you", "you're", "you'll", "he", "she", "they", "they're",
	"me", "my", "our", "your", "his", "her", "their", "them", "us", "him", "what", "what's",
	"when", "where", "why", "how", "who", "which", "whose", "whom", "yes", "no", "not", "so",
	"but", "and", "or", "nor", "if", "then", "than", "also", "too", "well", "oh", "ah", "um",
	"uh", "hmm", "sure", "ok", "okay", "great", "good", "nice", "cool", "fine", "perfect",
	"awesome", "thanks", "thank", "please", "sorry", "let", "let's", "maybe", "perhaps", "just",
	"only", "even", "still", "already", "actually", "anyway", "anyways", "basically", "honestly",
	"really", "probably", "definitely", "absolutely", "exactly", "right", "agreed", "sounds",
	"do", "does", "did", "don't", "doesn't", "didn't", "can", "can't", "could", "couldn't",
	"would", "wouldn't", "should", "shouldn't", "will", "won't", "shall", "may", "might",
	"must", "is", "isn't", "are", "aren't", "was", "wasn't", "were", "weren't", "be", "been",
	"have", "has", "had", "haven't", "hasn't", "having", "get", "got", "go", "going", "make",
	"take", "see", "look", "check", "need", "want", "think", "know", "remember", "note", "keep",
	"try", "send", "book", "call", "tell", "ask", "bring", "buy", "pick", "use", "put", "add",
	"all", "some", "any", "every", "each", "both", "either", "neither", "none", "many", "much",
	"more", "most", "few", "several", "other", "another", "such", "same", "one", "after",
	"before", "since", "because", "as", "at", "in", "on", "for", "to", "from", "with", "without",
	"by", "of", "about", "into", "over", "under", "between", "during", "until", "while",
	"though", "although", "however", "otherwise", "instead", "meanwhile", "besides", "yet",
	"now", "later", "soon", "first", "second", "third", "finally", "last", "next", "again",
	"once", "also", "either", "hey", "hi", "hello", "dear", "welcome", "wow", "yeah", "yep",
	"nope", "alright", "hopefully", "unfortunately", "luckily", "apparently", "otherwise",
	"ideally", "personally", "overall", "plus", "whatever", "anything", "everything",
	"nothing", "something", "someone", "everyone", "anyone", "nobody", "somebody", "i'm",
	"i'll", "i've", "i'd", "she's", "he's", "that's", "there's", "here's", "how's", "where's",
	"who's", "let’s", "good", "bad", "new", "old", "big", "small", "long", "short", "same",
)
