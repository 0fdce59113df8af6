package memory

import (
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/internal/timephrase"
)

// query is what ranking reads from a search query besides its embedding.
type query struct {
	// terms are the keyword terms, without conversational filler.
	terms textindex.Query
	// words holds every analysed term of the query, filler included, to
	// match speakers' names.
	words map[string]bool
	// when: the query asks when something happened.
	when bool
	// from and to (unix ms) bound a period the query names.
	from, to  int64
	hasPeriod bool
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
}

// analyzer reads text as the keyword index does.
type analyzer interface {
	Analyze(text string) textindex.Query
}

// readQuery analyses a query for ranking: its keyword terms (with the
// index's analysis, minus filler), whether it asks "when", and the period
// it names, read in loc at now.
func readQuery(text analyzer, s string, now time.Time, loc *time.Location) query {
	all := text.Analyze(s)
	q := query{terms: keywords(text, all), words: map[string]bool{}, when: whenQuestion.MatchString(s)}
	for _, t := range all.Terms() {
		q.words[t] = true
	}
	if r, ok := timephrase.Scan(s, now, loc); ok {
		q.from, q.to, q.hasPeriod = r.From.UnixMilli(), r.To.UnixMilli(), true
	}
	return q
}

// keywords is an analysed query without its filler, unless nothing else
// is left.
func keywords(text analyzer, all textindex.Query) textindex.Query {
	filler := fillerTerms(text)
	if kept := all.Without(func(t string) bool { return filler[t] }); !kept.Empty() {
		return kept
	}
	return all
}

// fillerTerms is fillerWords as the index analyses them.
func fillerTerms(text analyzer) map[string]bool {
	fillerOnce.Do(func() {
		fillerSet = map[string]bool{}
		for _, t := range text.Analyze(strings.Join(fillerWords, " ")).Terms() {
			fillerSet[t] = true
		}
	})
	return fillerSet
}

var (
	fillerOnce sync.Once
	fillerSet  map[string]bool
)
