package summarize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitSentences splits text into sentences. Lines are always separate
// sentences (chat messages use newlines for lists and breaks); within a line
// a sentence ends at ".", "!", "?" or "…" followed by whitespace. A full stop
// does not end a sentence after a known abbreviation ("Dr.", "e.g."), an
// initial ("J. Smith"), a list number ("1."), or inside a token (decimals,
// times such as "10.30", URLs, file names), since none of those is followed
// by whitespace. Leading list bullets are dropped; pieces with no letter or
// digit (emoji, "...") are dropped.
func splitSentences(text string) []string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		line = stripBullet(strings.TrimSpace(line))
		if line == "" {
			continue
		}
		out = splitLine(out, line)
	}
	return out
}

func splitLine(out []string, line string) []string {
	start := 0
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		if !isTerminator(r) {
			i += size
			continue
		}
		// The run of terminators and closing quotes or brackets ends at j.
		run := i
		j := i
		for j < len(line) {
			r2, s2 := utf8.DecodeRuneInString(line[j:])
			if !isTerminator(r2) && !isCloser(r2) {
				break
			}
			j += s2
		}
		if j == len(line) {
			break
		}
		next, _ := utf8.DecodeRuneInString(line[j:])
		if !unicode.IsSpace(next) {
			i = j
			continue
		}
		rest := strings.TrimLeftFunc(line[j:], unicode.IsSpace)
		if endsSentence(line[start:run], line[run:j], rest) {
			out = appendSentence(out, line[start:j])
			start = len(line) - len(rest)
		}
		i = j
	}
	return appendSentence(out, line[start:])
}

func appendSentence(out []string, s string) []string {
	s = strings.TrimSpace(s)
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return out
	}
	return append(out, s)
}

func isTerminator(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '”', '’', '»':
		return true
	}
	return false
}

// endsSentence decides whether the terminators punct, after the sentence
// text so far and followed by whitespace and rest, end a sentence.
func endsSentence(before, punct, rest string) bool {
	punct = strings.TrimRightFunc(punct, isCloser)
	nextUpper := startsUpper(rest)
	if strings.ContainsAny(punct, "!?") {
		return true
	}
	if punct != "." {
		// An ellipsis trails off as often as it ends a sentence; only a
		// capital after it marks a new one.
		return nextUpper
	}
	word := lastWord(before)
	lw := strings.ToLower(word)
	switch {
	case word == "":
		return true
	case titleAbbrevs[lw]:
		return false
	case inlineAbbrevs[lw]:
		return false
	case lw == "no" || lw == "nos":
		// "No. 5" is an abbreviation; "No. I can't." is an answer.
		return !startsDigit(rest)
	case ambiguousAbbrevs[lw] || monthAbbrevs[lw]:
		return nextUpper && !startsDigit(rest)
	case isInitial(word):
		return false
	case isDottedAbbrev(lw):
		// "U.S." or "a.m." ends a sentence only when a capital follows.
		return nextUpper
	case isListMarker(before):
		return false
	}
	return true
}

// lastWord is the last whitespace-separated token of s, without opening
// quotes or brackets.
func lastWord(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	if k := strings.LastIndexFunc(s, unicode.IsSpace); k >= 0 {
		s = s[k+1:]
	}
	return strings.TrimLeft(s, "\"'([{“‘«")
}

func startsUpper(s string) bool {
	s = strings.TrimLeft(s, "\"'([{“‘«")
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

func startsDigit(s string) bool {
	r, _ := utf8.DecodeRuneInString(strings.TrimLeft(s, "#(["))
	return unicode.IsDigit(r)
}

// isInitial reports a single capital letter, as in "J. R. Smith".
func isInitial(w string) bool {
	r, size := utf8.DecodeRuneInString(w)
	return size == len(w) && unicode.IsUpper(r)
}

// isDottedAbbrev reports tokens like "u.s" or "a.m" (the final dot is the
// terminator): single letters separated by dots.
func isDottedAbbrev(w string) bool {
	parts := strings.Split(w, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if utf8.RuneCountInString(p) != 1 {
			return false
		}
		r, _ := utf8.DecodeRuneInString(p)
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// isListMarker reports a sentence that so far is only "1" or "a" (an
// ordered-list marker "1." at the start of a line).
func isListMarker(before string) bool {
	s := strings.TrimSpace(before)
	if s == "" || utf8.RuneCountInString(s) > 3 {
		return false
	}
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 {
		return true
	}
	r, size := utf8.DecodeRuneInString(s)
	return size == len(s) && unicode.IsLower(r)
}

// stripBullet drops a leading "-", "*", "•" or "–" list bullet.
func stripBullet(line string) string {
	for _, b := range []string{"- ", "* ", "• ", "– ", "· "} {
		if rest, ok := strings.CutPrefix(line, b); ok {
			return strings.TrimSpace(rest)
		}
	}
	return line
}

// titleAbbrevs precede a name and never end a sentence.
var titleAbbrevs = setOf("mr", "mrs", "ms", "dr", "prof", "st", "mt", "sr", "jr", "rev", "hon",
	"gen", "col", "capt", "lt", "sgt", "fr", "messrs", "mme", "mlle")

// inlineAbbrevs are always followed by more of the same sentence.
var inlineAbbrevs = setOf("e.g", "i.e", "eg", "vs", "cf", "approx", "incl", "esp", "viz", "ca",
	"resp", "fig", "ref", "vol", "pp", "tel", "avg", "w.r.t")

// ambiguousAbbrevs may end a sentence; a capital after them says it did.
var ambiguousAbbrevs = setOf("etc", "inc", "ltd", "co", "corp", "llc", "bros", "dept", "univ",
	"a.m", "p.m", "hrs", "mins", "secs", "yrs", "wk", "wks", "mo", "mos", "min", "max", "est", "ext")

var monthAbbrevs = setOf("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
