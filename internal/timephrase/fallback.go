package timephrase

import (
	"regexp"
	"time"

	"github.com/olebedev/when"
	"github.com/olebedev/when/rules"
	"github.com/olebedev/when/rules/common"
	"github.com/olebedev/when/rules/en"
)

// The fallback is github.com/olebedev/when with its English and common rules.
// It reads the long tail this package has no rules for ("next Tuesday",
// "next Tue at 5pm", "half an hour ago", "tmr"), but returns a single instant
// and gets several things wrong for this use: "2023-03-05" becomes 03:05
// today, a weekday with no qualifier ("Monday at 5pm") is the next one rather
// than the last, "in 2 months" wraps December to the same year, and day
// arithmetic in 24-hour steps slips a day across a DST change near midnight.
// Hence the rules here go first and own all of those forms.

func newFallback() *when.Parser {
	w := when.New(&rules.Options{Distance: 5, MatchByOrder: true})
	w.Add(en.All...)
	w.Add(common.All...)
	return w
}

// clockLike recognises a fallback match that names a time of day or a
// sub-day offset; such an instant is read as the hour containing it, any other
// as the day containing it.
var clockLike = regexp.MustCompile(`\d\s*(?:am|pm|a\.|p\.)|\d:\d|\b(?:noon|midday|midnight|hours?|min(?:ute)?s?|sec(?:ond)?s?)\b`)

// readWithWhen returns the fallback's reading of the phrase and how many
// words it accounts for.
func (p *Parser) readWithWhen(c *ctx, ch *chart) (Range, int, bool) {
	res := p.whenParse(ch.text, c.now)
	if res == nil {
		return Range{}, 0, false
	}
	first, covered := -1, 0
	for i, off := range ch.offs {
		if off >= res.Index && off+len(ch.toks[i]) <= res.Index+len(res.Text) {
			if first < 0 {
				first = i
			}
			covered++
		}
	}
	if covered == 0 {
		return Range{}, 0, false
	}
	if covered == 1 {
		// A lone month or weekday name that the rules declined is an
		// ordinary word here ("we may", "I sat"); when would read "May" as
		// today's day of the month in May.
		w := ch.toks[first]
		if _, ok := monthWords[w]; ok {
			return Range{}, 0, false
		}
		if _, ok := weekdayWords[w]; ok {
			return Range{}, 0, false
		}
	}
	loc := c.now.Location()
	if clockLike.MatchString(res.Text) {
		return containing(res.Time.In(loc), unitHour, c.weekStart), covered, true
	}
	// For a date, read again from local noon: when moves by multiples of 24
	// hours, which from a time near midnight can cross into the wrong day
	// when the clocks change.
	y, m, d := c.now.Date()
	res = p.whenParse(ch.text, time.Date(y, m, d, 12, 0, 0, 0, loc))
	if res == nil {
		return Range{}, 0, false
	}
	return dayOf(res.Time.In(loc)), covered, true
}

// whenParse runs the fallback, treating its errors and panics as "no
// reading": its rules index regexp captures and build dates without bounds
// checks, and a phrase it cannot read must not bring the server down.
func (p *Parser) whenParse(text string, base time.Time) (res *when.Result) {
	defer func() {
		if recover() != nil {
			res = nil
		}
	}()
	r, err := p.fallback.Parse(text, base)
	if err != nil {
		return nil
	}
	return r
}
