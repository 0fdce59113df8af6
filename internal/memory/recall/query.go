package recall

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/lexicon"
	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/internal/timephrase"
)

// query is what ranking reads from a search query besides its embedding.
type query struct {
	// scratch holds the arrays score and lendingsInto fill (nil: their
	// own).
	scratch *rankScratch
	// demoted is what Options.AskedAbsentWeight took off a candidate's
	// score (score), by its id.
	demoted map[bson.ObjectID]float64
	// terms are the keyword terms, without conversational filler.
	terms textindex.Query
	// names holds the query's words unstemmed, filler included, to match
	// speakers' names.
	names []string
	// when: the query asks when something happened.
	when bool
	// from and to (unix ms) bound a period the query names.
	from, to  int64
	hasPeriod bool
	// recent: the period ended within the last year.
	recent bool
	// unknown is the share of the keyword weight in words no memory holds.
	unknown float64
	// onlyTime: the query asks for a period and nothing else ("what did
	// we talk about yesterday?"): its results are the period's memories.
	onlyTime bool
	// asked has bit i set for each of the profile's contacts the query
	// asks about (peopleOf; 0: none, or no note is told apart by it).
	asked uint64
	// calendar is the bit of the weekday and month names the query says
	// (calendarWords) among memindex.RankQuery.Holds; 0: none.
	calendar uint64
	// coord are the bits of the query's word groups among
	// memindex.RankQuery.Holds (coordGroups; 0: none).
	coord uint64
	// coordOn: Options.CoordWeight cuts by coord (the groups are read for
	// Options.MeaningLead alone otherwise).
	coordOn bool
	// coordCut is what Options.CoordWeight takes off a note's score when
	// the results drawn are put in order (Rank), by its id.
	coordCut map[bson.ObjectID]float64
	// superseded are the candidates drawn that a live memory supersedes
	// (memindex.Candidate.Successor), for Options.MeaningLead.
	superseded map[bson.ObjectID]bool
}

// markSuperseded records the pool's superseded candidates (q.superseded).
func (q *query) markSuperseded(pool []memindex.Candidate) {
	for i := range pool {
		if pool[i].Successor >= 0 {
			if q.superseded == nil {
				q.superseded = map[bson.ObjectID]bool{}
			}
			q.superseded[pool[i].ID] = true
		}
	}
}

// demote records that ranking took cut off the score of candidate id
// for a reason that reorders the results only (Rank reads confidences
// and verdicts in the order without it).
func (q *query) demote(id bson.ObjectID, cut float64) {
	if q.demoted == nil {
		q.demoted = map[bson.ObjectID]float64{}
	}
	q.demoted[id] += cut
}

// whenQuestion recognises questions about when something happened.
var whenQuestion = regexp.MustCompile(`(?i)^\W*(?:when\b|since when\b|what (?:date|day|year|month|time)\b|which (?:date|day|year|month)\b|how long ago\b)`)

// fillerWords are the words of how people ask for a memory ("what did I
// say about…", "remind me…", "tell me about…") rather than of what they
// ask about. A query keeps them only when it has nothing else.
var fillerWords = []string{
	"say", "said", "says", "tell", "told", "remind", "reminded", "remember", "remembered",
	"recall", "know", "knew", "mention", "mentioned", "talk", "talked", "discuss", "discussed",
	"ask", "asked", "anything", "something", "thing", "things", "stuff", "please", "again",
	"chat", "chatted", "conversation", "conversations", "happen", "happened", "new", "news", "latest", "update", "updates",
}

// timeWords are the words of time phrases ("last week", "on Monday", "in
// March", "two days ago"). When a query names a period, the period selects
// the memories and these words are not looked for in their text.
var timeWords = []string{
	"yesterday", "today", "tonight", "tomorrow", "morning", "afternoon", "evening", "night",
	"last", "past", "previous", "next", "ago", "earlier", "recently", "lately", "since", "day", "days",
	"week", "weeks", "weekend", "month", "months", "year", "years", "fortnight", "hour", "hours",
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
	"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
	"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
	"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "couple", "few",
	"first", "second", "third", "1st", "2nd", "3rd", "th", "st", "nd", "rd", "beginning", "end", "middle", "early", "late",
}

// Analyzer reads text as the keyword index does (*memindex.Index).
type Analyzer interface {
	Analyze(text string) textindex.Query
}

// readQuery analyses a query for ranking: its keyword terms (with the
// index's analysis, minus filler), whether it asks "when", and the period
// it names, read in loc at now.
func readQuery(text Analyzer, s string, now time.Time, loc *time.Location) query {
	all := text.Analyze(s)
	q := query{terms: Keywords(text, all), names: textindex.Words(s), when: whenQuestion.MatchString(s)}
	if r, ok := timephrase.Scan(s, now, loc); ok {
		q.from, q.to, q.hasPeriod = r.From.UnixMilli(), r.To.UnixMilli(), true
		q.recent = r.To.After(now.AddDate(-1, 0, 0))
		// The period is looked for by date, not by its words in the text;
		// a query left with no other words asks for the period alone.
		times, filler := spokenTimes(text, s), fillerTerms(text)
		rest := all.Without(func(t string) bool { return times[t] || filler[t] || isNumber(t) })
		if rest.Empty() {
			q.onlyTime = true
		} else {
			q.terms = Keywords(text, all.Without(func(t string) bool { return times[t] || isNumber(t) }))
		}
	}
	return q
}

// isNumber reports whether an analysed term is a number ("2023", "8").
func isNumber(t string) bool {
	for _, c := range t {
		if c < '0' || c > '9' {
			return false
		}
	}
	return t != ""
}

// spokenTimes is the time words of query s (timeWords, or their plurals:
// "mornings") as the index analyses them: only words said as time words,
// not others that analyse alike ("wedding" is "wed" too, "fried" "fri").
func spokenTimes(text Analyzer, s string) map[string]bool {
	times := timeTerms(text)
	out := map[string]bool{}
	for _, w := range textindex.Words(s) {
		if !timeWordSet[w] && !(len(w) > 3 && timeWordSet[strings.TrimSuffix(w, "s")]) {
			continue
		}
		for _, t := range text.Analyze(w).Terms() {
			if times[t] {
				out[t] = true
			}
		}
	}
	return out
}

var timeWordSet = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range timeWords {
		m[w] = true
	}
	return m
}()

// timeTerms is timeWords as the index analyses them.
func timeTerms(text Analyzer) map[string]bool {
	timeOnce.Do(func() {
		timeSet = map[string]bool{}
		for _, t := range text.Analyze(strings.Join(timeWords, " ")).Terms() {
			timeSet[t] = true
		}
	})
	return timeSet
}

// Keywords is an analysed query without its filler, unless nothing else
// is left.
func Keywords(text Analyzer, all textindex.Query) textindex.Query {
	filler := fillerTerms(text)
	if kept := all.Without(func(t string) bool { return filler[t] }); !kept.Empty() {
		return kept
	}
	return all
}

// fillerTerms is fillerWords as the index analyses them.
func fillerTerms(text Analyzer) map[string]bool {
	fillerOnce.Do(func() {
		fillerSet = map[string]bool{}
		for _, t := range text.Analyze(strings.Join(fillerWords, " ")).Terms() {
			fillerSet[t] = true
		}
	})
	return fillerSet
}

var (
	fillerOnce, timeOnce sync.Once
	fillerSet, timeSet   map[string]bool
)

// addPeople adds the names of the people a query names by relation as
// other words for the relation ("sister" or "lena"), and to the names a
// speaker is recognised by.
func (q *query) addPeople(text Analyzer, refs []personRef) {
	for _, r := range refs {
		word := text.Analyze(r.word).Terms()
		for _, n := range r.names {
			alts := text.Analyze(n)
			if len(word) == 1 {
				q.terms = q.terms.WithAlternatives(word[0], alts)
			} else {
				q.terms = q.terms.WithAlternatives("", alts)
			}
			q.names = append(q.names, textindex.Words(n)...)
		}
	}
}

// addSynonyms adds to each keyword term of the query said by a word of s
// that is not a name, a time word, filler or a number the synonyms the
// lexicon knows for that word, as terms that score scale of its weight
// (textindex.Query.WithSynonyms): "how much did I bill them?" finds "sent
// invoice 2231". A synonym the index analyses into more than one term, or
// none, is left out.
func (q *query) addSynonyms(text Analyzer, s string, scale float64) {
	names := namesIn(s)
	own := q.terms.Terms()
	seen := map[string]bool{}
	for _, w := range textindex.Words(s) {
		if seen[w] || names[w] || timeWordSet[w] || slices.Contains(fillerWords, w) || isNumber(w) || len(w) < 3 {
			continue
		}
		seen[w] = true
		t := text.Analyze(w).Terms()
		if len(t) != 1 || !slices.Contains(own, t[0]) {
			continue
		}
		var syns []string
		for _, syn := range lexicon.Synonyms(w) {
			if a := text.Analyze(syn).Terms(); len(a) == 1 && a[0] != t[0] {
				syns = append(syns, syn)
			}
		}
		if len(syns) > 0 {
			q.terms = q.terms.WithSynonyms(t[0], text.Analyze(strings.Join(syns, " ")), scale)
		}
	}
}

// namesIn is the words of s written with a capital letter other than at
// the start of a sentence, lowercased: names ("Shelter", "Leo"), whose
// synonyms would be another word's ("Will", "Bill").
func namesIn(s string) map[string]bool {
	out := map[string]bool{}
	start := true
	for _, f := range strings.FieldsFunc(s, unicode.IsSpace) {
		word := strings.TrimLeftFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if r, _ := utf8.DecodeRuneInString(word); unicode.IsUpper(r) && !start {
			for _, w := range textindex.Words(word) {
				out[w] = true
			}
		}
		if word != "" {
			start = strings.ContainsAny(f[len(f)-1:], ".?!")
		}
	}
	return out
}

// calendarNames are the weekdays and months a note may name a recurring
// or coming time by ("bins go out on Tuesday", "the October half term").
// Not "may" (a word of its own) nor abbreviations ("sun", "wed").
var calendarNames = []string{
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december",
}

// calendarWords is the weekday and month names query s says (a plural
// too: "Tuesdays"), as the index analyses them.
func calendarWords(text Analyzer, s string) textindex.Query {
	var said []string
	for _, w := range textindex.Words(s) {
		w = strings.TrimSuffix(w, "s")
		if slices.Contains(calendarNames, w) && !slices.Contains(said, w) {
			said = append(said, w)
		}
	}
	return text.Analyze(strings.Join(said, " "))
}
