package timephrase

import (
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
	if loc == nil {
		loc = now.Location()
	}
	if len(text) > maxScanBytes {
		text = strings.ToValidUTF8(text[:maxScanBytes], "")
	}
	toks := tokenize(text)
	c := &ctx{now: now.In(loc), weekStart: p.weekStart}
	covered := -1 // last token of a window that held no reading at all
	for i, t := range toks {
		if i <= covered || !isAnchor(t) {
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
		r := best.p.r
		if best.err != nil || r.From.IsZero() || !r.From.Before(r.To) || r.To.Sub(r.From) > scanMaxSpan {
			continue
		}
		return r, true
	}
	return Range{}, false
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

func isAnchor(t string) bool {
	if t == "" {
		return false
	}
	if c := t[0]; c >= '0' && c <= '9' {
		return true
	}
	if anchorWords[t] {
		return true
	}
	if _, ok := monthWords[t]; ok {
		return true
	}
	if _, ok := weekdayWords[t]; ok {
		return true
	}
	if _, ok := unitWords[t]; ok {
		return true
	}
	_, ok := ordinalWords[t]
	return ok
}
