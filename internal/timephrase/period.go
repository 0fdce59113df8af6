package timephrase

import "time"

// period is what one expression of a phrase denotes before it is combined
// with others.
type period struct {
	unit unit
	// r is the reading of the expression standing alone.
	r Range
	// before and after are set for expressions that recur ("Monday", "March",
	// "May 5"): they return the latest occurrence starting at or before t and
	// the earliest starting at or after t. Explicit ranges use them to place
	// an end that names no year or week ("from Dec 20 to Jan 5").
	before, after func(t time.Time) (Range, bool)
	// clock is the hour of a clock time ("5pm"), or -1.
	clock int
}

func fixed(u unit, r Range) period {
	return period{unit: u, r: r, clock: -1}
}

// recurring builds a period whose standalone reading is before(ref).
func recurring(u unit, ref time.Time, before, after func(time.Time) (Range, bool)) (period, bool) {
	r, ok := before(ref)
	if !ok {
		return period{}, false
	}
	return period{unit: u, r: r, before: before, after: after, clock: -1}, true
}

// mapped applies f to every occurrence of p, for example to take the evening
// of a day.
func (p period) mapped(u unit, f func(Range) Range) period {
	q := period{unit: u, r: f(p.r), clock: -1}
	if p.before != nil {
		before, after := p.before, p.after
		q.before = func(t time.Time) (Range, bool) {
			r, ok := before(t)
			return f(r), ok
		}
		q.after = func(t time.Time) (Range, bool) {
			r, ok := after(t)
			return f(r), ok
		}
	}
	return q
}

// asEnd returns p as the end of a range. A clock time stands alone for the
// hour it falls in, but as an end it is the instant: "until 3pm" stops at
// 15:00 and "from 9am to 5pm" at 17:00.
func (p period) asEnd() period {
	if p.clock < 0 {
		return p
	}
	return p.mapped(p.unit, func(r Range) Range { return Range{From: r.From, To: r.From} })
}

// searchYears bounds the look-back for dates that do not occur every year
// (February 29): eight years always include a leap year, even across 2100.
const searchYears = 8

func weekdayPeriod(now time.Time, w time.Weekday) period {
	before := func(t time.Time) (Range, bool) {
		y, m, d := t.Date()
		back := (int(t.Weekday()) - int(w) + 7) % 7
		return dayRange(y, m, d-back, t.Location()), true
	}
	after := func(t time.Time) (Range, bool) {
		day := startOfDay(t)
		if day.Before(t) {
			day = shift(day, unitDay, 1)
		}
		y, m, d := day.Date()
		fwd := (int(w) - int(day.Weekday()) + 7) % 7
		return dayRange(y, m, d+fwd, t.Location()), true
	}
	// A weekday on its own means the latest one before today: on a
	// Wednesday, "Wednesday" is last week's (today would be "today").
	p, _ := recurring(unitDay, startOfDay(now).Add(-time.Nanosecond), before, after)
	return p
}

func monthPeriod(now time.Time, m time.Month) period {
	before := func(t time.Time) (Range, bool) {
		y := t.Year()
		if midnight(y, m, 1, t.Location()).After(t) {
			y--
		}
		return monthRange(y, m, t.Location()), true
	}
	after := func(t time.Time) (Range, bool) {
		y := t.Year()
		if midnight(y, m, 1, t.Location()).Before(t) {
			y++
		}
		return monthRange(y, m, t.Location()), true
	}
	p, _ := recurring(unitMonth, now, before, after)
	return p
}

// monthDayPeriod is a day of the year without a year: "May 5", "5/5".
func monthDayPeriod(now time.Time, m time.Month, d int) (period, bool) {
	before := func(t time.Time) (Range, bool) {
		for y := t.Year(); y >= t.Year()-searchYears; y-- {
			if d <= daysIn(y, m) && !midnight(y, m, d, t.Location()).After(t) {
				return dayRange(y, m, d, t.Location()), true
			}
		}
		return Range{}, false
	}
	after := func(t time.Time) (Range, bool) {
		for y := t.Year(); y <= t.Year()+searchYears; y++ {
			if d <= daysIn(y, m) && !midnight(y, m, d, t.Location()).Before(t) {
				return dayRange(y, m, d, t.Location()), true
			}
		}
		return Range{}, false
	}
	return recurring(unitDay, now, before, after)
}

// dayOfMonthPeriod is a day of the month alone: "the 5th".
func dayOfMonthPeriod(now time.Time, d int) (period, bool) {
	before := func(t time.Time) (Range, bool) {
		y, m, _ := t.Date()
		for k := 0; k <= 12; k++ {
			first := midnight(y, m-time.Month(k), 1, t.Location())
			if d <= daysIn(first.Year(), first.Month()) {
				day := midnight(first.Year(), first.Month(), d, t.Location())
				if !day.After(t) {
					return dayOf(day), true
				}
			}
		}
		return Range{}, false
	}
	after := func(t time.Time) (Range, bool) {
		y, m, _ := t.Date()
		for k := 0; k <= 12; k++ {
			first := midnight(y, m+time.Month(k), 1, t.Location())
			if d <= daysIn(first.Year(), first.Month()) {
				day := midnight(first.Year(), first.Month(), d, t.Location())
				if !day.Before(t) {
					return dayOf(day), true
				}
			}
		}
		return Range{}, false
	}
	return recurring(unitDay, now, before, after)
}

// hull returns the smallest range covering a and b, so that an explicit
// range given backwards ("from March 15 to March 1") still means the days
// between.
func hull(a, b Range) Range {
	r := a
	if b.From.Before(r.From) {
		r.From = b.From
	}
	if b.To.After(r.To) {
		r.To = b.To
	}
	return r
}

// between is the explicit range "from a to b", both ends included. Ends that
// name no year or week ("Monday", "Dec 20") can be placed more than one way;
// between takes their standalone readings, then tries moving a recurring end
// next to the other one (the end forward to the first occurrence at or after
// the start, or the start back to the last occurrence at or before the end)
// and keeps the shortest of the resulting ranges. So on 2025-01-03 "from Dec
// 20 to Jan 5" runs from 2024-12-20 to 2025-01-05, while "from March 15 to
// March 1", given backwards, is the first half of the latest March.
func between(a, b period) Range {
	b = b.asEnd()
	best := hull(a.r, b.r)
	try := func(r Range) {
		if r.To.Sub(r.From) < best.To.Sub(best.From) {
			best = r
		}
	}
	if b.after != nil {
		if r, ok := b.after(a.r.From); ok {
			try(hull(a.r, r))
		}
	}
	if a.before != nil {
		if r, ok := a.before(b.r.From); ok {
			try(hull(r, b.r))
		}
	}
	return best
}
