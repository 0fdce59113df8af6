package memory

import (
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

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

// readQuery analyses a query for ranking: its keyword terms (with the
// index's analysis, minus filler), whether it asks "when", and the period
// it names, read in loc at now.
func readQuery(text *textindex.Index, s string, now time.Time, loc *time.Location) query {
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
func keywords(text *textindex.Index, all textindex.Query) textindex.Query {
	filler := fillerTerms(text)
	if kept := all.Without(func(t string) bool { return filler[t] }); !kept.Empty() {
		return kept
	}
	return all
}

// fillerTerms is fillerWords as the index analyses them.
func fillerTerms(text *textindex.Index) map[string]bool {
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

// speakerMatcher reports whether a query names a memory's speaker: every
// word of the speaker's name is among the query's words. Answers are
// cached per query, since a conversation has few speakers.
type speakerMatcher struct {
	ix   *index
	q    *query
	seen map[uint32]bool
}

func (m *speakerMatcher) named(speaker uint32) bool {
	if speaker == 0 || int(speaker) >= len(m.ix.speakers.names) {
		return false
	}
	if v, ok := m.seen[speaker]; ok {
		return v
	}
	if m.seen == nil {
		m.seen = map[uint32]bool{}
	}
	words := m.ix.text.Analyze(m.ix.speakers.names[speaker]).Terms()
	named := len(words) > 0
	for _, w := range words {
		named = named && m.q.words[w]
	}
	m.seen[speaker] = named
	return named
}

// during reports whether the item happened in [from, to) or its text
// refers to a time that overlaps it.
func (it *item) during(from, to int64) bool {
	if it.ts >= from && it.ts < to {
		return true
	}
	return it.refFrom != 0 && it.refFrom < to && it.refTo > from
}

// maxSpeakerPrefix bounds the name speakerPrefix reads.
const maxSpeakerPrefix = 40

// speakerPrefix returns the name a conversation turn starts with
// ("Caroline: I went…" is Caroline's): one to three words, each
// capitalised, before a colon and a space at the very start.
func speakerPrefix(text string) string {
	i := strings.IndexByte(text, ':')
	if i <= 0 || i > maxSpeakerPrefix || i+1 >= len(text) || text[i+1] != ' ' {
		return ""
	}
	name := text[:i]
	words := strings.Split(name, " ")
	if len(words) > 3 {
		return ""
	}
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) {
			return ""
		}
		for _, c := range w {
			if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '.' && c != '-' && c != '\'' {
				return ""
			}
		}
	}
	return name
}
