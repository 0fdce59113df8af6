package timephrase

import (
	"sort"
	"strconv"
	"strings"
	"time"
)

var monthWords = map[string]time.Month{
	"january": time.January, "jan": time.January,
	"february": time.February, "feb": time.February,
	"march": time.March, "mar": time.March,
	"april": time.April, "apr": time.April,
	"may":  time.May,
	"june": time.June, "jun": time.June,
	"july": time.July, "jul": time.July,
	"august": time.August, "aug": time.August,
	"september": time.September, "sept": time.September, "sep": time.September,
	"october": time.October, "oct": time.October,
	"november": time.November, "nov": time.November,
	"december": time.December, "dec": time.December,
}

var weekdayWords = map[string]time.Weekday{
	"monday": time.Monday, "mon": time.Monday,
	"tuesday": time.Tuesday, "tue": time.Tuesday, "tues": time.Tuesday,
	"wednesday": time.Wednesday, "wed": time.Wednesday,
	"thursday": time.Thursday, "thu": time.Thursday, "thur": time.Thursday, "thurs": time.Thursday,
	"friday": time.Friday, "fri": time.Friday,
	"saturday": time.Saturday, "sat": time.Saturday,
	"sunday": time.Sunday, "sun": time.Sunday,
}

// weakWords are month and weekday names that are also everyday English
// ("we may", "I sat", "the sun"). Standing alone inside a longer sentence
// they are not taken as dates; see match.inContext.
var weakWords = map[string]bool{
	"may": true, "march": true, "mar": true, "jan": true,
	"sat": true, "sun": true, "wed": true,
}

// contextWords are the tokens that, placed just before a weak word, make it
// clearly a date: "in May", "since March", "last Sat", "to May".
var contextWords = map[string]bool{
	"in": true, "on": true, "during": true, "since": true, "until": true,
	"till": true, "til": true, "before": true, "after": true, "from": true,
	"to": true, "between": true, "and": true, "of": true, "through": true,
	"thru": true, "-": true, "by": true,
}

// followingContextWords do the same placed just after a weak word.
var followingContextWords = map[string]bool{
	"to": true, "until": true, "till": true, "through": true, "thru": true,
	"-": true, "onwards": true, "onward": true,
}

var countWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
	"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
	"twelve": 12, "couple": 2, "a couple": 2, "a couple of": 2, "couple of": 2,
}

// vagueCountWords stand for "a few". See fewLow and fewHigh.
var vagueCountWords = []string{"a few", "few", "several"}

// A vague count ("a few days ago") covers the units fewLow to fewHigh back;
// "the past few days" reaches fewHigh days back.
const (
	fewLow  = 2
	fewHigh = 5
)

// maxCount bounds numeric counts so that unit arithmetic cannot overflow a
// time.Duration; results outside years 1–9999 are rejected later anyway.
const maxCount = 999999

var ordinalWords = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
	"sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
	"eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
	"fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
	"nineteenth": 19, "twentieth": 20, "twenty-first": 21, "twenty-second": 22,
	"twenty-third": 23, "twenty-fourth": 24, "twenty-fifth": 25,
	"twenty-sixth": 26, "twenty-seventh": 27, "twenty-eighth": 28,
	"twenty-ninth": 29, "thirtieth": 30, "thirty-first": 31,
}

var unitWords = map[string]unit{
	"second": unitSecond, "seconds": unitSecond, "sec": unitSecond, "secs": unitSecond,
	"minute": unitMinute, "minutes": unitMinute, "min": unitMinute, "mins": unitMinute,
	"hour": unitHour, "hours": unitHour, "hr": unitHour, "hrs": unitHour,
	"day": unitDay, "days": unitDay,
	"week": unitWeek, "weeks": unitWeek, "wk": unitWeek, "wks": unitWeek,
	"month": unitMonth, "months": unitMonth,
	"year": unitYear, "years": unitYear, "yr": unitYear, "yrs": unitYear,
}

// dayParts gives each part of the day as [from, to) hours on its day; the
// night runs past midnight into the next morning.
var dayParts = map[string][2]int{
	"morning":   {5, 12},
	"afternoon": {12, 17},
	"evening":   {17, 24},
	"night":     {18, 24 + 5},
}

// alt returns a non-capturing regexp alternation of words, longest first, with
// spaces and hyphens in multi-word entries accepted either way.
func alt(words ...string) string {
	ws := append([]string(nil), words...)
	sort.Slice(ws, func(i, j int) bool {
		if len(ws[i]) != len(ws[j]) {
			return len(ws[i]) > len(ws[j])
		}
		return ws[i] < ws[j]
	})
	for i, w := range ws {
		ws[i] = strings.ReplaceAll(w, "-", "[ -]")
	}
	return "(?:" + strings.Join(ws, "|") + ")"
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// parseCount reads a count such as "3", "three", "an" or "a couple of". A vague
// count ("a few") reports vague and no number.
func parseCount(s string) (n int, vague bool, ok bool) {
	for _, w := range vagueCountWords {
		if s == w {
			return 0, true, true
		}
	}
	if n, ok := countWords[s]; ok {
		return n, false, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxCount {
		return 0, false, false
	}
	return n, false, true
}

// parseDayNumber reads a day of the month: "5", "5th", "fifth", "twenty first".
func parseDayNumber(s string) (int, bool) {
	if n, ok := ordinalWords[strings.ReplaceAll(s, " ", "-")]; ok {
		return n, true
	}
	s = strings.TrimRight(s, "stndrh")
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 31 {
		return 0, false
	}
	return n, true
}
