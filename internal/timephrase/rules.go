package timephrase

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A rule recognises one kind of simple expression ("last week", "May 5th",
// "3 days ago") as a run of whole words. Combinations of expressions
// (ranges, "yesterday evening", "since Monday") are built from rule matches
// in ranges.go.
type rule struct {
	name  string
	re    *regexp.Regexp
	build func(m match) (period, error)
}

// errDecline tells the chart that a rule's words matched but do not mean a
// time here (a weak word such as "may" inside a sentence). Any other error
// means the words name a time that does not exist, such as February 30.
var errDecline = errors.New("not a time expression here")

// match is one rule's match over tokens [start, end) of the phrase.
type match struct {
	c          *ctx
	toks       []string
	start, end int
	groups     map[string]string
}

func (m match) get(name string) string { return m.groups[name] }

func (m match) atoi(name string) int {
	n, _ := strconv.Atoi(m.groups[name])
	return n
}

// inContext reports whether a weak word matched here is meant as a date:
// it is the whole phrase, a preposition or connective comes just before it
// ("in May", "to May"), or a range word just after ("March to May", "March
// onwards").
func (m match) inContext() bool {
	if m.start == 0 && m.end == len(m.toks) {
		return true
	}
	if m.start > 0 && contextWords[m.toks[m.start-1]] {
		return true
	}
	return m.end < len(m.toks) && followingContextWords[m.toks[m.end]]
}

// Pattern fragments. Each rule's pattern is matched at the start of a word
// and must end at the end of a word; words are separated by single spaces.
var (
	reMonth   = "(?P<month>" + alt(keys(monthWords)...) + ")"
	reWeekday = "(?P<weekday>" + alt(keys(weekdayWords)...) + ")"
	reDayWord = `\d{1,2}(?:st|nd|rd|th)?|` + alt(keys(ordinalWords)...)
	reDay     = "(?P<day>" + reDayWord + ")"
	reDay2    = "(?P<day2>" + reDayWord + ")"
	reYear    = `(?P<year>\d{4})`
	reCount   = `(?P<count>\d{1,6}|` + alt(append(keys(countWords), vagueCountWords...)...) + ")"
	reUnit    = "(?P<unit>" + alt(keys(unitWords)...) + ")"
	reAt      = `(?:(?:at|around|about) )?`
)

// relOffset maps a relative word to a count of units from now.
var relOffset = map[string]int{
	"this": 0, "current": 0,
	"last": -1, "previous": -1, "prior": -1, "past": -1, "this past": -1,
	"next": 1, "coming": 1, "following": 1,
}

var simpleRules = []rule{
	{name: "relative day", re: re(`(?:the )?(?P<w>today|yesterday|tomorrow|day before yesterday|day after tomorrow)`), build: buildRelativeDay},
	{name: "part of today", re: re(`(?:this|in the) (?P<part>morning|afternoon|evening|night)|(?P<w>tonight|last night)`), build: buildPartOfToday},
	{name: "calendar unit", re: re(`(?P<rel>this past|this|current|last|previous|prior|next|coming|following) (?P<cal>week|month|year)`), build: buildCalendarUnit},
	{name: "past unit", re: re(`(?:(?:the )?past|the last) ` + reUnit + `|last (?P<unit_alt>hour|minute)`), build: buildPastOne},
	{name: "past count", re: re(`(?:(?:the )?(?:past|last|previous|prior) |within (?:the )?(?:(?:past|last) )?)` + reCount + ` ` + reUnit), build: buildPastCount},
	{name: "ago", re: re(reCount + ` ` + reUnit + ` (?:ago|back)`), build: buildAgo},
	{name: "from now", re: re(`in ` + reCount + ` ` + reUnit + `|` + alias(reCount) + ` ` + alias(reUnit) + ` from now`), build: buildFromNow},
	{name: "weekend", re: re(`(?:(?P<rel>this past|this|last|previous|past|next|coming) )?weekend`), build: buildWeekend},
	{name: "weekday", re: re(`(?P<on>on )?` + reWeekday), build: buildWeekday},
	{name: "relative weekday", re: re(`(?P<rel>this past|this|last|previous|past) ` + reWeekday), build: buildRelativeWeekday},
	{name: "weekday in week", re: re(reWeekday + ` (?:of )?(?P<rel>this|last|previous|next) week|(?P<rel_alt>this|last|previous|next) week ` + alias(reWeekday)), build: buildWeekdayInWeek},
	{name: "month", re: re(`(?P<in>(?:in|during) )?` + reMonth), build: buildMonth},
	{name: "relative month", re: re(`(?P<rel>this past|this|last|previous|past|next|coming) ` + reMonth), build: buildRelativeMonth},
	{name: "month and year", re: re(`(?:(?:in|during) )?` + reMonth + ` (?:of )?` + reYear), build: buildMonthYear},
	{name: "numeric month", re: re(`(?P<year>\d{4})[-/](?P<mnum>\d{1,2})|(?P<mnum_alt>\d{1,2})/(?P<year_alt>\d{4})`), build: buildNumericMonth},
	{name: "month of relative year", re: re(reMonth + ` (?:of )?(?P<rel>this|last|next) year`), build: buildMonthOfRelativeYear},
	{name: "year", re: re(`(?:the )?(?P<kw>year )?` + reYear), build: buildYear},
	{name: "month day", re: re(reMonth + ` (?:the )?` + reDay + `(?: ` + reYear + `)?`), build: buildMonthDay},
	{name: "day month", re: re(`(?:the )?` + reDay + ` (?:of )?` + reMonth + `(?: ` + reYear + `)?`), build: buildMonthDay},
	{name: "month day range", re: re(reMonth + ` ` + reDay + `(?:-| - | to | through | thru | until | till | and )` + reDay2 + `(?: ` + reYear + `)?`), build: buildMonthDayRange},
	{name: "slash date", re: re(`(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?`), build: buildSlashDate},
	{name: "iso date", re: re(`(?P<year>\d{4})[-/](?P<mnum>\d{1,2})[-/](?P<day>\d{1,2})`), build: buildISODate},
	{name: "iso datetime", re: re(`(?P<year>\d{4})-(?P<mnum>\d{2})-(?P<day>\d{2})t(?P<h>\d{2})(?::(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.\d{1,9})?)?)?(?P<zone>z|[+-]\d{2}(?::?\d{2})?)?`), build: buildISODateTime},
	{name: "day of month", re: re(`(?:on )?the (?P<day>\d{1,2}(?:st|nd|rd|th))`), build: buildDayOfMonth},
	{name: "clock", re: re(reAt + `(?P<h>\d{1,2})(?::(?P<mi>\d{2}))? ?(?P<ampm>am|pm)|` + reAt + `(?P<h24>\d{1,2}):(?P<mi24>\d{2})|` + reAt + `(?P<word>noon|midday|midnight)`), build: buildClock},
	{name: "now", re: re(`(?:right )?now|the present`), build: buildNow},
	{name: "the other day", re: re(`the other day`), build: buildOtherDay},
}

// re compiles a rule pattern anchored at a word start and ending at a word
// end. Leftmost-longest matching lets the longest reading win ("May 5 2023"
// over "May 5") whatever the order of alternatives.
func re(pattern string) *regexp.Regexp {
	r := regexp.MustCompile(`^(?:` + pattern + `)(?: |$)`)
	r.Longest()
	return r
}

// altSuffix marks a second copy of a named group in another alternative of
// the same pattern; matches fold it back onto the plain name.
const altSuffix = "_alt"

// alias renames the first named group of a fragment so that it can appear
// twice in one pattern.
func alias(fragment string) string {
	i := strings.Index(fragment, "(?P<")
	j := strings.Index(fragment[i:], ">")
	return fragment[:i+j] + altSuffix + fragment[i+j:]
}

// maxRuleWords is more than any rule can match ("the twenty first of june
// 2023" is six words). Matching within that window rather than against the
// rest of the phrase keeps long inputs cheap.
const maxRuleWords = 10

// find matches r against the words from token start on; text is the words
// joined by single spaces and offs the byte offset of each word.
func (r rule) find(c *ctx, toks []string, text string, offs []int, start int) (match, bool) {
	window := text[offs[start]:]
	if start+maxRuleWords < len(toks) {
		window = text[offs[start] : offs[start+maxRuleWords]-1]
	}
	loc := r.re.FindStringSubmatchIndex(window)
	if loc == nil {
		return match{}, false
	}
	// Words are separated by single spaces, so the match covers one word more
	// than the spaces inside it.
	end := start + strings.Count(strings.TrimSuffix(window[:loc[1]], " "), " ") + 1
	groups := map[string]string{}
	for i, name := range r.re.SubexpNames() {
		if name == "" || loc[2*i] < 0 {
			continue
		}
		groups[strings.TrimSuffix(name, altSuffix)] = text[offs[start]+loc[2*i] : offs[start]+loc[2*i+1]]
	}
	return match{c: c, toks: toks, start: start, end: end, groups: groups}, true
}

func (m match) unit() unit { return unitWords[m.get("unit")] }

func buildRelativeDay(m match) (period, error) {
	off := map[string]int{"today": 0, "yesterday": -1, "tomorrow": 1, "day before yesterday": -2, "day after tomorrow": 2}[m.get("w")]
	return fixed(unitDay, dayOf(shift(m.c.now, unitDay, off))), nil
}

func partOf(day Range, part string) Range {
	y, mo, d := day.From.Date()
	h := dayParts[part]
	loc := day.From.Location()
	return Range{From: time.Date(y, mo, d, h[0], 0, 0, 0, loc), To: time.Date(y, mo, d, h[1], 0, 0, 0, loc)}
}

func buildPartOfToday(m match) (period, error) {
	today := dayOf(m.c.now)
	switch m.get("w") {
	case "tonight":
		return fixed(unitPart, partOf(today, "night")), nil
	case "last night":
		return fixed(unitPart, partOf(dayOf(shift(m.c.now, unitDay, -1)), "night")), nil
	}
	return fixed(unitPart, partOf(today, m.get("part"))), nil
}

func buildCalendarUnit(m match) (period, error) {
	u := unitWords[m.get("cal")]
	t := shift(m.c.now, u, relOffset[m.get("rel")])
	return fixed(u, containing(t, u, m.c.weekStart)), nil
}

// pastRange is "the past n units": from n units before now until now. For
// days and longer it starts at midnight, so that "the past 3 days" on a
// Wednesday afternoon covers all of Sunday, Monday, Tuesday and today so far.
func pastRange(now time.Time, u unit, n int) Range {
	from := shift(now, u, -n)
	if u >= unitDay {
		from = startOfDay(from)
	}
	return Range{From: from, To: now}
}

func buildPastOne(m match) (period, error) {
	return fixed(unitSpan, pastRange(m.c.now, m.unit(), 1)), nil
}

func buildPastCount(m match) (period, error) {
	n, vague, ok := parseCount(m.get("count"))
	if !ok {
		return period{}, fmt.Errorf("%q is too large a count", m.get("count"))
	}
	if vague {
		n = fewHigh
	}
	return fixed(unitSpan, pastRange(m.c.now, m.unit(), n)), nil
}

// offsetUnit is the unit n units from now ("3 days ago" is the whole day
// three days back); a vague count covers fewLow to fewHigh units.
func offsetUnit(m match, sign int) (period, error) {
	n, vague, ok := parseCount(m.get("count"))
	if !ok {
		return period{}, fmt.Errorf("%q is too large a count", m.get("count"))
	}
	u, c := m.unit(), m.c
	if vague {
		a := containing(shift(c.now, u, sign*fewLow), u, c.weekStart)
		b := containing(shift(c.now, u, sign*fewHigh), u, c.weekStart)
		return fixed(unitSpan, hull(a, b)), nil
	}
	return fixed(u, containing(shift(c.now, u, sign*n), u, c.weekStart)), nil
}

func buildAgo(m match) (period, error)     { return offsetUnit(m, -1) }
func buildFromNow(m match) (period, error) { return offsetUnit(m, 1) }

// buildWeekend reads weekends as Saturday and Sunday whatever the week start.
// "The weekend" is the one under way or else the latest; "last weekend" the
// latest finished one; "this weekend" the one under way or else the coming
// one; "next weekend" the one after that.
func buildWeekend(m match) (period, error) {
	now := m.c.now
	y, mo, d := now.Date()
	back := (int(now.Weekday()) - int(time.Saturday) + 7) % 7
	cur := Range{From: midnight(y, mo, d-back, now.Location()), To: midnight(y, mo, d-back+2, now.Location())}
	ongoing := back <= 1
	weeks := 0
	switch relOffset[m.get("rel")] {
	case -1:
		if ongoing {
			weeks = -1
		}
	case 0:
		if m.get("rel") != "" && !ongoing {
			weeks = 1
		}
	case 1:
		weeks = 2
		if ongoing {
			weeks = 1
		}
		if m.get("rel") == "coming" && !ongoing {
			weeks = 1
		}
	}
	return fixed(unitWeekend, Range{From: shift(cur.From, unitWeek, weeks), To: shift(cur.To, unitWeek, weeks)}), nil
}

func buildWeekday(m match) (period, error) {
	word := m.get("weekday")
	if weakWords[word] && m.get("on") == "" && !m.inContext() {
		return period{}, errDecline
	}
	return weekdayPeriod(m.c.now, weekdayWords[word]), nil
}

// buildRelativeWeekday: "this Friday" is the Friday of the current week, even
// if still to come; "last Friday" is the latest Friday before today, the same
// as "Friday" alone.
func buildRelativeWeekday(m match) (period, error) {
	w := weekdayWords[m.get("weekday")]
	if relOffset[m.get("rel")] == 0 {
		return fixed(unitDay, dayInWeek(m.c, 0, w)), nil
	}
	return fixed(unitDay, weekdayPeriod(m.c.now, w).r), nil
}

// dayInWeek returns weekday w of the week weeks away from the current one.
func dayInWeek(c *ctx, weeks int, w time.Weekday) Range {
	week := weekOf(shift(c.now, unitWeek, weeks), c.weekStart)
	y, mo, d := week.From.Date()
	return dayRange(y, mo, d+(int(w)-int(c.weekStart)+7)%7, week.From.Location())
}

func buildWeekdayInWeek(m match) (period, error) {
	return fixed(unitDay, dayInWeek(m.c, relOffset[m.get("rel")], weekdayWords[m.get("weekday")])), nil
}

// buildMonth: a month alone is the latest one that has begun, so in May
// "May" is this May and "June" is last June.
func buildMonth(m match) (period, error) {
	word := m.get("month")
	if weakWords[word] && m.get("in") == "" && !m.inContext() {
		return period{}, errDecline
	}
	return monthPeriod(m.c.now, monthWords[word]), nil
}

// buildRelativeMonth: "last March" is the latest March that has ended (in
// March, the one a year ago); "this March" is the current year's; "next
// March" the first that begins after now.
func buildRelativeMonth(m match) (period, error) {
	mo, now := monthWords[m.get("month")], m.c.now
	y := now.Year()
	switch relOffset[m.get("rel")] {
	case -1:
		if mo >= now.Month() {
			y--
		}
	case 1:
		if mo <= now.Month() {
			y++
		}
	}
	return fixed(unitMonth, monthRange(y, mo, now.Location())), nil
}

func checkYear(y int) error {
	if y < 1 || y > 9999 {
		return fmt.Errorf("year %d is out of range", y)
	}
	return nil
}

func buildMonthYear(m match) (period, error) {
	y := m.atoi("year")
	if err := checkYear(y); err != nil {
		return period{}, err
	}
	return fixed(unitMonth, monthRange(y, monthWords[m.get("month")], m.c.now.Location())), nil
}

func buildNumericMonth(m match) (period, error) {
	y, mo := m.atoi("year"), m.atoi("mnum")
	if err := checkYear(y); err != nil {
		return period{}, err
	}
	if mo < 1 || mo > 12 {
		return period{}, fmt.Errorf("there is no month %d", mo)
	}
	return fixed(unitMonth, monthRange(y, time.Month(mo), m.c.now.Location())), nil
}

func buildMonthOfRelativeYear(m match) (period, error) {
	y := m.c.now.Year() + relOffset[m.get("rel")]
	return fixed(unitMonth, monthRange(y, monthWords[m.get("month")], m.c.now.Location())), nil
}

// buildYear: a number alone counts as a year only between 1900 and 2199, so
// that other numbers in a sentence are not taken for years; "the year 1850"
// is accepted.
func buildYear(m match) (period, error) {
	y := m.atoi("year")
	if m.get("kw") == "" && (y < 1900 || y > 2199) {
		return period{}, errDecline
	}
	if err := checkYear(y); err != nil {
		return period{}, err
	}
	return fixed(unitYear, yearRange(y, m.c.now.Location())), nil
}

// dayPeriod is a date with or without a year (y == 0): without one it is the
// latest such date not after today.
func dayPeriod(c *ctx, y int, mo time.Month, d int) (period, error) {
	if y == 0 {
		if d < 1 || d > daysIn(2024, mo) {
			return period{}, fmt.Errorf("%s has no day %d", mo, d)
		}
		p, ok := monthDayPeriod(c.now, mo, d)
		if !ok {
			return period{}, fmt.Errorf("%s %d has not occurred in the last %d years", mo, d, searchYears)
		}
		return p, nil
	}
	if err := checkYear(y); err != nil {
		return period{}, err
	}
	if d < 1 || d > daysIn(y, mo) {
		return period{}, fmt.Errorf("%s %d has no day %d", mo, y, d)
	}
	return fixed(unitDay, dayRange(y, mo, d, c.now.Location())), nil
}

func buildMonthDay(m match) (period, error) {
	d, ok := parseDayNumber(m.get("day"))
	if !ok {
		return period{}, fmt.Errorf("%q is not a day of the month", m.get("day"))
	}
	return dayPeriod(m.c, m.atoi("year"), monthWords[m.get("month")], d)
}

// buildMonthDayRange reads "March 1-15" as both days and those between.
func buildMonthDayRange(m match) (period, error) {
	d1, ok1 := parseDayNumber(m.get("day"))
	d2, ok2 := parseDayNumber(m.get("day2"))
	if !ok1 || !ok2 {
		return period{}, fmt.Errorf("%q is not a range of days", m.get("day")+"-"+m.get("day2"))
	}
	d1, d2 = min(d1, d2), max(d1, d2)
	mo := monthWords[m.get("month")]
	first, err := dayPeriod(m.c, m.atoi("year"), mo, d1)
	if err != nil {
		return period{}, err
	}
	if _, err := dayPeriod(m.c, m.atoi("year"), mo, d2); err != nil {
		return period{}, err
	}
	return first.mapped(unitSpan, func(r Range) Range {
		y, mo, _ := r.From.Date()
		end := midnight(y, mo, d2+1, r.From.Location())
		if monthEnd := midnight(y, mo+1, 1, r.From.Location()); end.After(monthEnd) {
			end = monthEnd // February 29 in a year without one
		}
		return Range{From: r.From, To: end}
	}), nil
}

// buildSlashDate reads a/b/y in US order, month first, unless the first
// number cannot be a month and the second can ("25/12/2023" is 25 December).
// A two-digit year is put in the century that brings it nearest to now.
func buildSlashDate(m match) (period, error) {
	a, b := m.atoi("a"), m.atoi("b")
	mo, d := a, b
	if a > 12 && b <= 12 {
		mo, d = b, a
	}
	if mo < 1 || mo > 12 || d < 1 {
		return period{}, fmt.Errorf("%s is not a date (month/day/year)", m.get("a")+"/"+m.get("b"))
	}
	y := 0
	if ys := m.get("y"); ys != "" {
		y = m.atoi("y")
		if len(ys) == 2 {
			y = nearestCentury(y, m.c.now.Year())
		}
	}
	return dayPeriod(m.c, y, time.Month(mo), d)
}

func nearestCentury(yy, now int) int {
	best := now - now%100 + yy
	for _, y := range []int{best - 100, best + 100} {
		if abs(y-now) < abs(best-now) {
			best = y
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func buildISODate(m match) (period, error) {
	mo := m.atoi("mnum")
	if mo < 1 || mo > 12 {
		return period{}, fmt.Errorf("there is no month %d", mo)
	}
	return dayPeriod(m.c, m.atoi("year"), time.Month(mo), m.atoi("day"))
}

// buildISODateTime reads an RFC 3339-style date and time as the second,
// minute or hour it names, by the finest field given. Without a zone the
// clock reading is in the user's zone.
func buildISODateTime(m match) (period, error) {
	y, mo, d, h := m.atoi("year"), m.atoi("mnum"), m.atoi("day"), m.atoi("h")
	mi, s, u := 0, 0, unitHour
	if m.get("mi") != "" {
		mi, u = m.atoi("mi"), unitMinute
	}
	if m.get("s") != "" {
		s, u = m.atoi("s"), unitSecond
	}
	if err := checkYear(y); err != nil {
		return period{}, err
	}
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, time.Month(mo)) || h > 23 || mi > 59 || s > 59 {
		return period{}, fmt.Errorf("%s is not a valid date and time", strings.ToUpper(m.toks[m.start]))
	}
	zone := m.c.now.Location()
	if z := m.get("zone"); z == "z" {
		zone = time.UTC
	} else if z != "" {
		digits := strings.ReplaceAll(z[1:], ":", "")
		zh, _ := strconv.Atoi(digits[:2])
		zm := 0
		if len(digits) == 4 {
			zm, _ = strconv.Atoi(digits[2:])
		}
		if zh > 23 || zm > 59 {
			return period{}, fmt.Errorf("%s is not a valid time zone offset", z)
		}
		off := zh*3600 + zm*60
		if z[0] == '-' {
			off = -off
		}
		zone = time.FixedZone("", off)
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, 0, zone).In(m.c.now.Location())
	return fixed(u, Range{From: t, To: t.Add(clockUnits[u])}), nil
}

func buildDayOfMonth(m match) (period, error) {
	d, _ := parseDayNumber(m.get("day"))
	p, ok := dayOfMonthPeriod(m.c.now, d)
	if !ok {
		return period{}, fmt.Errorf("no month has a day %d", d)
	}
	return p, nil
}

// buildClock reads a clock time as the hour it falls in, on the day given
// with it ("yesterday at 5pm") or else the latest that has begun.
func buildClock(m match) (period, error) {
	var h int
	switch {
	case m.get("word") == "midnight":
		h = 0
	case m.get("word") != "":
		h = 12
	case m.get("h24") != "":
		h = m.atoi("h24")
		if h > 23 || m.atoi("mi24") > 59 {
			return period{}, errDecline
		}
	default:
		h = m.atoi("h")
		if h < 1 || h > 12 || m.atoi("mi") > 59 {
			return period{}, errDecline
		}
		h %= 12
		if m.get("ampm") == "pm" {
			h += 12
		}
	}
	// A clock time recurs daily. Alone it is the latest such hour that has
	// begun: at 15:04, "at 5pm" is yesterday's, as with weekdays. As the end
	// of a range it follows the start, so "from 10pm to 2am" runs past
	// midnight.
	before := func(t time.Time) (Range, bool) {
		r := atHour(dayOf(t), h)
		if r.From.After(t) {
			r = atHour(dayOf(shift(t, unitDay, -1)), h)
		}
		return r, true
	}
	after := func(t time.Time) (Range, bool) {
		r := atHour(dayOf(t), h)
		if r.From.Before(t) {
			r = atHour(dayOf(shift(t, unitDay, 1)), h)
		}
		return r, true
	}
	r, _ := before(m.c.now)
	return period{unit: unitHour, r: r, before: before, after: after, clock: h}, nil
}

// atHour is the hour starting at h o'clock on the given day.
func atHour(day Range, h int) Range {
	y, mo, d := day.From.Date()
	from := time.Date(y, mo, d, h, 0, 0, 0, day.From.Location())
	return Range{From: from, To: from.Add(time.Hour)}
}

func buildNow(m match) (period, error) {
	return fixed(unitInstant, Range{From: m.c.now, To: m.c.now}), nil
}

// buildOtherDay reads "the other day" as the six days before yesterday:
// recent, but not so recent that one would say "yesterday".
func buildOtherDay(m match) (period, error) {
	now := m.c.now
	return fixed(unitSpan, Range{From: startOfDay(shift(now, unitDay, -7)), To: startOfDay(shift(now, unitDay, -1))}), nil
}
