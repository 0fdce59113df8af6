package timephrase

import "time"

// unit is the granularity of a period. Combinators use it (a part of the day
// attaches only to a day), and counted phrases name one.
type unit int

const (
	unitInstant unit = iota // "now": usable only as the end of a range
	unitSecond
	unitMinute
	unitHour
	unitPart // morning, afternoon, evening, night
	unitDay
	unitWeek
	unitWeekend
	unitMonth
	unitYear
	unitSpan // any other stretch: explicit ranges, "the past 3 days"
)

// Calendar arithmetic is done on dates (time.Date normalises overflowing
// days and months) rather than by adding hours, so that a day stays a
// calendar day across daylight-saving changes: 23 or 25 hours long.

func midnight(y int, m time.Month, d int, loc *time.Location) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

func startOfDay(t time.Time) time.Time {
	y, m, d := t.Date()
	return midnight(y, m, d, t.Location())
}

func dayRange(y int, m time.Month, d int, loc *time.Location) Range {
	return Range{From: midnight(y, m, d, loc), To: midnight(y, m, d+1, loc)}
}

func dayOf(t time.Time) Range {
	y, m, d := t.Date()
	return dayRange(y, m, d, t.Location())
}

func monthRange(y int, m time.Month, loc *time.Location) Range {
	return Range{From: midnight(y, m, 1, loc), To: midnight(y, m+1, 1, loc)}
}

func yearRange(y int, loc *time.Location) Range {
	return Range{From: midnight(y, time.January, 1, loc), To: midnight(y+1, time.January, 1, loc)}
}

// daysIn returns the number of days in month m of year y.
func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// weekOf returns the week containing t, starting on weekStart.
func weekOf(t time.Time, weekStart time.Weekday) Range {
	y, m, d := t.Date()
	back := (int(t.Weekday()) - int(weekStart) + 7) % 7
	return Range{From: midnight(y, m, d-back, t.Location()), To: midnight(y, m, d-back+7, t.Location())}
}

// floorBy truncates t to the start of the second, minute or hour on the local
// clock. It subtracts the clock fields instead of using Truncate, which works
// on absolute time and would misplace hours in zones offset by half an hour.
func floorBy(t time.Time, u unit) time.Time {
	t = t.Add(-time.Duration(t.Nanosecond()))
	if u >= unitMinute {
		t = t.Add(-time.Duration(t.Second()) * time.Second)
	}
	if u >= unitHour {
		t = t.Add(-time.Duration(t.Minute()) * time.Minute)
	}
	return t
}

var clockUnits = map[unit]time.Duration{
	unitSecond: time.Second,
	unitMinute: time.Minute,
	unitHour:   time.Hour,
}

// containing returns the calendar unit u (second to year) that contains t.
func containing(t time.Time, u unit, weekStart time.Weekday) Range {
	switch u {
	case unitSecond, unitMinute, unitHour:
		from := floorBy(t, u)
		return Range{From: from, To: from.Add(clockUnits[u])}
	case unitDay:
		return dayOf(t)
	case unitWeek:
		return weekOf(t, weekStart)
	case unitMonth:
		return monthRange(t.Year(), t.Month(), t.Location())
	default:
		return yearRange(t.Year(), t.Location())
	}
}

// shift moves t by n units. Units up to an hour move by elapsed time;
// days and weeks move on the calendar keeping the clock reading; months and
// years keep the day of the month where it exists and otherwise clamp to the
// month's last day, so that "a month before March 31" is in February.
func shift(t time.Time, u unit, n int) time.Time {
	if d, ok := clockUnits[u]; ok {
		return t.Add(time.Duration(n) * d)
	}
	y, m, d := t.Date()
	hh, mm, ss := t.Clock()
	switch u {
	case unitDay:
		d += n
	case unitWeek:
		d += 7 * n
	case unitMonth:
		// Normalise first so that the year carries, then clamp the day.
		first := time.Date(y, m+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
		y, m = first.Year(), first.Month()
		d = min(d, daysIn(y, m))
	case unitYear:
		y += n
		d = min(d, daysIn(y, m))
	}
	return time.Date(y, m, d, hh, mm, ss, t.Nanosecond(), t.Location())
}
