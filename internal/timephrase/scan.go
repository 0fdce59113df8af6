package timephrase

import (
	"strconv"
	"strings"
	"time"
)

// Scan finds the first time reference in running text — a note or a
// message rather than a phrase — and returns the period it names, read as
// by someone at instant now: "I went to the support group yesterday",
// written on 8 May 2023, names 7 May 2023. It reads only the words around
// likely anchors (month and weekday names, time units, "yesterday",
// numbers), with the rules of this package and without the fallback, so a
// long text costs little more than a short phrase. References that only
// open or close a range ("before 2020"), that are longer than
// scanMaxSpan, or that name just the present instant are not reported.
func (p *Parser) Scan(text string, now time.Time, loc *time.Location) (Range, bool) {
	r, _, ok := p.ScanNext(text, now, loc)
	return r, ok
}

// ScanNext is Scan, and for a month named alone ("in October", "the
// October half term"), which Scan reads as the latest that has begun, also
// the first that begins after now (next) when it begins sooner after now
// than the latest ended before it: a note written in August about "the
// October half term" most likely means the coming one, one written in
// November about "October" the one just gone. next is zero otherwise.
func (p *Parser) ScanNext(text string, now time.Time, loc *time.Location) (r, next Range, ok bool) {
	if loc == nil {
		loc = now.Location()
	}
	if len(text) > maxScanBytes {
		text = strings.ToValidUTF8(text[:maxScanBytes], "")
	}
	if !mayRefer(text) {
		return Range{}, Range{}, false
	}
	toks := tokenize(text)
	c := &ctx{now: now.In(loc), weekStart: p.weekStart}
	covered := -1 // last token of a window that held no reading at all
	for i := range toks {
		if i <= covered || !isAnchor(toks, i) {
			continue
		}
		lo, hi := max(0, i-scanBefore), min(len(toks), i+scanAfter+1)
		best, found := newChart(c, toks[lo:hi]).best()
		if !found {
			covered = hi - 1
			continue
		}
		// A reading that is not reported ("before May 2023") may hide one
		// that is ("May 2023"): the next anchor gets a window of its own.
		r = best.p.r
		if best.err != nil || r.From.IsZero() || !r.From.Before(r.To) || r.To.Sub(r.From) > scanMaxSpan {
			continue
		}
		if best.p.unit == unitMonth && best.p.after != nil {
			if n, ok := best.p.after(c.now); ok && n.From.After(r.From) && n.From.Sub(c.now) < c.now.Sub(r.To) {
				next = n
			}
		}
		return r, next, true
	}
	return Range{}, Range{}, false
}

// ScanNext is Parser.ScanNext with a Parser built by New().
func ScanNext(text string, now time.Time, loc *time.Location) (r, next Range, ok bool) {
	return defaultParser.ScanNext(text, now, loc)
}

// Scan is Parser.Scan with a Parser built by New().
func Scan(text string, now time.Time, loc *time.Location) (Range, bool) {
	return defaultParser.Scan(text, now, loc)
}

var defaultParser = New()

const (
	// scanBefore and scanAfter are the words read around an anchor: enough
	// for the longest rule ("the twenty first of june 2023") and a
	// connective on either side ("from ... to ...").
	scanBefore = 4
	scanAfter  = 6
	// scanMaxSpan is the longest period Scan reports: a year (and a leap
	// day). "Since 2019" says little about when something happened.
	scanMaxSpan = 367 * 24 * time.Hour
	// maxScanBytes bounds the text read.
	maxScanBytes = 16 << 10
)

// anchorWords can stand in every reading a rule makes; a window around each
// one is read.
var anchorWords = map[string]bool{
	"today": true, "yesterday": true, "tomorrow": true, "tonight": true,
	"weekend": true, "ago": true, "morning": true, "afternoon": true,
	"evening": true, "night": true, "noon": true, "midnight": true,
}

// isAnchor reports whether toks[i] can stand in a time reference. A bare
// number ("3 kids", "note 42") is one only beside a calendar or clock word,
// or when it looks like a year, a date or a time of day: reading a window
// around every number would cost most of Scan's time for nothing.
func isAnchor(toks []string, i int) bool {
	t := toks[i]
	if t == "" {
		return false
	}
	if c := t[0]; c >= '0' && c <= '9' {
		if strings.ContainsAny(t, "/-:") || strings.HasSuffix(t, "am") || strings.HasSuffix(t, "pm") {
			return true
		}
		if _, ok := parseDayNumber(t); ok && t != strings.TrimRight(t, "stndrh") {
			return true // 5th, 21st
		}
		if n, err := strconv.Atoi(t); err == nil && n >= 1900 && n <= 2199 {
			return true
		}
		for j := max(0, i-2); j <= min(len(toks)-1, i+2); j++ {
			if j != i && calendarWord(toks[j]) {
				return true
			}
		}
		return false
	}
	return anchorWords[t] || calendarWord(t)
}

// calendarWord: a month, weekday or time-unit name, or an ordinal.
func calendarWord(t string) bool {
	if _, ok := monthWords[t]; ok {
		return true
	}
	if _, ok := weekdayWords[t]; ok {
		return true
	}
	if _, ok := unitWords[t]; ok {
		return true
	}
	if _, ok := ordinalWords[t]; ok {
		return true
	}
	return t == "ago" || t == "am" || t == "pm" || t == "of"
}

// mayRefer is a quick first look, without allocating: whether text has a
// calendar, clock or time-unit word, or a number written like a year, a
// date or a time. Most texts have none and need no closer reading.
func mayRefer(text string) bool {
	var buf [12]byte
	for i := 0; i < len(text); {
		c := text[i]
		if !isWordByte(c) {
			i++
			continue
		}
		j := i
		for j < len(text) && (isWordByte(text[j]) || (text[j] == '/' || text[j] == ':' || text[j] == '-') && j+1 < len(text) && isDigit(text[j+1]) && isDigit(text[j-1])) {
			j++
		}
		word := text[i:j]
		i = j
		if isDigit(word[0]) {
			if strings.ContainsAny(word, "/:-") || len(word) == 4 && (word[:2] == "19" || word[:2] == "20" || word[:2] == "21") {
				return true
			}
			if !isDigit(word[len(word)-1]) {
				return true // 5th, 9am
			}
			// "9 am", "9 p.m."
			if rest := strings.TrimLeft(text[i:], " "); len(rest) >= 2 && (rest[0]|0x20 == 'a' || rest[0]|0x20 == 'p') && (rest[1]|0x20 == 'm' || rest[1] == '.') {
				return true
			}
			continue
		}
		if len(word) < 3 || len(word) > len(buf) {
			continue
		}
		n := copy(buf[:], word)
		for k := 0; k < n; k++ {
			if b := buf[k]; b >= 'A' && b <= 'Z' {
				buf[k] = b + 'a' - 'A'
			}
		}
		if quickAnchors[string(buf[:n])] {
			return true
		}
	}
	return false
}

// quickAnchors are the words mayRefer looks for: every anchor word but
// numbers.
var quickAnchors = func() map[string]bool {
	m := map[string]bool{"ago": true}
	for w := range anchorWords {
		m[w] = true
	}
	for _, words := range [][]string{keys(monthWords), keys(weekdayWords), keys(unitWords), keys(ordinalWords)} {
		for _, w := range words {
			m[w] = true
		}
	}
	for w := range m {
		if len(w) < 3 || strings.ContainsAny(w, " -") {
			delete(m, w) // mayRefer reads words of three letters or more, without spaces or hyphens
		}
	}
	return m
}()

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordByte: an ASCII letter or digit, or any byte of a non-ASCII rune
// (read as part of a word; such words are never anchors).
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c >= 0x80
}
