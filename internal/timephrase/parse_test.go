package timephrase

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// laNow is a Wednesday afternoon in daylight-saving time.
func laNow(t testing.TB) time.Time {
	return time.Date(2025, time.May, 14, 15, 4, 0, 0, mustLoad(t, "America/Los_Angeles"))
}

const (
	laNowStr = "2025-05-14T15:04:00-07:00"
	open     = "0001-01-01T00:00:00Z"
)

func TestParseLosAngeles(t *testing.T) {
	runTable(t, New(), laNow(t), []row{
		// Days.
		{"today", "2025-05-14T00:00:00-07:00", "2025-05-15T00:00:00-07:00"},
		{"yesterday", "2025-05-13T00:00:00-07:00", "2025-05-14T00:00:00-07:00"},
		{"tomorrow", "2025-05-15T00:00:00-07:00", "2025-05-16T00:00:00-07:00"},
		{"the day before yesterday", "2025-05-12T00:00:00-07:00", "2025-05-13T00:00:00-07:00"},
		{"day after tomorrow", "2025-05-16T00:00:00-07:00", "2025-05-17T00:00:00-07:00"},
		// Parts of days.
		{"this morning", "2025-05-14T05:00:00-07:00", "2025-05-14T12:00:00-07:00"},
		{"this afternoon", "2025-05-14T12:00:00-07:00", "2025-05-14T17:00:00-07:00"},
		{"this evening", "2025-05-14T17:00:00-07:00", "2025-05-15T00:00:00-07:00"},
		{"in the evening", "2025-05-14T17:00:00-07:00", "2025-05-15T00:00:00-07:00"},
		{"tonight", "2025-05-14T18:00:00-07:00", "2025-05-15T05:00:00-07:00"},
		{"last night", "2025-05-13T18:00:00-07:00", "2025-05-14T05:00:00-07:00"},
		{"yesterday morning", "2025-05-13T05:00:00-07:00", "2025-05-13T12:00:00-07:00"},
		{"yesterday afternoon", "2025-05-13T12:00:00-07:00", "2025-05-13T17:00:00-07:00"},
		{"yesterday evening", "2025-05-13T17:00:00-07:00", "2025-05-14T00:00:00-07:00"},
		{"yesterday in the morning", "2025-05-13T05:00:00-07:00", "2025-05-13T12:00:00-07:00"},
		{"tomorrow night", "2025-05-15T18:00:00-07:00", "2025-05-16T05:00:00-07:00"},
		{"monday morning", "2025-05-12T05:00:00-07:00", "2025-05-12T12:00:00-07:00"},
		{"friday night", "2025-05-09T18:00:00-07:00", "2025-05-10T05:00:00-07:00"},
		// Clock times: the hour they fall in, on the day given or else the
		// latest such hour that has begun.
		{"yesterday at 5pm", "2025-05-13T17:00:00-07:00", "2025-05-13T18:00:00-07:00"},
		{"5 p.m. yesterday", "2025-05-13T17:00:00-07:00", "2025-05-13T18:00:00-07:00"},
		{"monday at 5pm", "2025-05-12T17:00:00-07:00", "2025-05-12T18:00:00-07:00"},
		{"5pm on monday", "2025-05-12T17:00:00-07:00", "2025-05-12T18:00:00-07:00"},
		{"at noon", "2025-05-14T12:00:00-07:00", "2025-05-14T13:00:00-07:00"},
		{"at 15:00", "2025-05-14T15:00:00-07:00", "2025-05-14T16:00:00-07:00"},
		{"midnight", "2025-05-14T00:00:00-07:00", "2025-05-14T01:00:00-07:00"},
		{"12am", "2025-05-14T00:00:00-07:00", "2025-05-14T01:00:00-07:00"},
		{"at 5pm", "2025-05-13T17:00:00-07:00", "2025-05-13T18:00:00-07:00"},
		{"11pm", "2025-05-13T23:00:00-07:00", "2025-05-14T00:00:00-07:00"},
		{"at 17:30", "2025-05-13T17:00:00-07:00", "2025-05-13T18:00:00-07:00"},
		// As the end of a range a clock time is an instant, and the end
		// follows the start past midnight.
		{"between 9am and 5pm", "2025-05-14T09:00:00-07:00", "2025-05-14T17:00:00-07:00"},
		{"yesterday between 9am and 5pm", "2025-05-13T09:00:00-07:00", "2025-05-13T17:00:00-07:00"},
		{"from 9am to 5pm on monday", "2025-05-12T09:00:00-07:00", "2025-05-12T17:00:00-07:00"},
		{"from 10pm to 2am", "2025-05-13T22:00:00-07:00", "2025-05-14T02:00:00-07:00"},
		{"yesterday from 10pm to 2am", "2025-05-13T22:00:00-07:00", "2025-05-14T02:00:00-07:00"},
		{"monday at 5pm to tuesday at 9am", "2025-05-12T17:00:00-07:00", "2025-05-13T09:00:00-07:00"},
		{"since 9am", "2025-05-14T09:00:00-07:00", laNowStr},
		{"after 3pm", "2025-05-14T15:00:00-07:00", laNowStr},
		{"until 3pm", open, "2025-05-14T15:00:00-07:00"},
		// Calendar weeks (Monday first), months and years.
		{"this week", "2025-05-12T00:00:00-07:00", "2025-05-19T00:00:00-07:00"},
		{"last week", "2025-05-05T00:00:00-07:00", "2025-05-12T00:00:00-07:00"},
		{"previous week", "2025-05-05T00:00:00-07:00", "2025-05-12T00:00:00-07:00"},
		{"next week", "2025-05-19T00:00:00-07:00", "2025-05-26T00:00:00-07:00"},
		{"this month", "2025-05-01T00:00:00-07:00", "2025-06-01T00:00:00-07:00"},
		{"last month", "2025-04-01T00:00:00-07:00", "2025-05-01T00:00:00-07:00"},
		{"next month", "2025-06-01T00:00:00-07:00", "2025-07-01T00:00:00-07:00"},
		{"this year", "2025-01-01T00:00:00-08:00", "2026-01-01T00:00:00-08:00"},
		{"last year", "2024-01-01T00:00:00-08:00", "2025-01-01T00:00:00-08:00"},
		// The past N units: from midnight N units back until now.
		{"the past week", "2025-05-07T00:00:00-07:00", laNowStr},
		{"in the past week", "2025-05-07T00:00:00-07:00", laNowStr},
		{"the last month", "2025-04-14T00:00:00-07:00", laNowStr},
		{"the past year", "2024-05-14T00:00:00-07:00", laNowStr},
		{"in the last 3 days", "2025-05-11T00:00:00-07:00", laNowStr},
		{"the past two weeks", "2025-04-30T00:00:00-07:00", laNowStr},
		{"last 2 months", "2025-03-14T00:00:00-07:00", laNowStr},
		{"past three years", "2022-05-14T00:00:00-07:00", laNowStr},
		{"the last couple of days", "2025-05-12T00:00:00-07:00", laNowStr},
		{"the last few days", "2025-05-09T00:00:00-07:00", laNowStr},
		{"within 3 days", "2025-05-11T00:00:00-07:00", laNowStr},
		// ... and exactly N units back for units shorter than a day.
		{"past 24 hours", "2025-05-13T15:04:00-07:00", laNowStr},
		{"in the last twelve hours", "2025-05-14T03:04:00-07:00", laNowStr},
		{"the last hour", "2025-05-14T14:04:00-07:00", laNowStr},
		{"last hour", "2025-05-14T14:04:00-07:00", laNowStr},
		{"past 30 minutes", "2025-05-14T14:34:00-07:00", laNowStr},
		// N units ago: the whole unit containing that moment.
		{"3 days ago", "2025-05-11T00:00:00-07:00", "2025-05-12T00:00:00-07:00"},
		{"three days ago", "2025-05-11T00:00:00-07:00", "2025-05-12T00:00:00-07:00"},
		{"eleven days ago", "2025-05-03T00:00:00-07:00", "2025-05-04T00:00:00-07:00"},
		{"two weeks ago", "2025-04-28T00:00:00-07:00", "2025-05-05T00:00:00-07:00"},
		{"a month ago", "2025-04-01T00:00:00-07:00", "2025-05-01T00:00:00-07:00"},
		{"an hour ago", "2025-05-14T14:00:00-07:00", "2025-05-14T15:00:00-07:00"},
		{"a year ago", "2024-01-01T00:00:00-08:00", "2025-01-01T00:00:00-08:00"},
		{"5 minutes ago", "2025-05-14T14:59:00-07:00", "2025-05-14T15:00:00-07:00"},
		{"a couple of days ago", "2025-05-12T00:00:00-07:00", "2025-05-13T00:00:00-07:00"},
		{"a few days ago", "2025-05-09T00:00:00-07:00", "2025-05-13T00:00:00-07:00"},
		{"a few weeks ago", "2025-04-07T00:00:00-07:00", "2025-05-05T00:00:00-07:00"},
		{"the other day", "2025-05-07T00:00:00-07:00", "2025-05-13T00:00:00-07:00"},
		// In N units: the unit containing that moment.
		{"in 3 days", "2025-05-17T00:00:00-07:00", "2025-05-18T00:00:00-07:00"},
		{"in 2 months", "2025-07-01T00:00:00-07:00", "2025-08-01T00:00:00-07:00"},
		{"3 weeks from now", "2025-06-02T00:00:00-07:00", "2025-06-09T00:00:00-07:00"},
		// Weekdays: alone or with "last", the latest one before today.
		{"last monday", "2025-05-12T00:00:00-07:00", "2025-05-13T00:00:00-07:00"},
		{"monday", "2025-05-12T00:00:00-07:00", "2025-05-13T00:00:00-07:00"},
		{"on Monday", "2025-05-12T00:00:00-07:00", "2025-05-13T00:00:00-07:00"},
		{"tuesday", "2025-05-13T00:00:00-07:00", "2025-05-14T00:00:00-07:00"},
		{"wednesday", "2025-05-07T00:00:00-07:00", "2025-05-08T00:00:00-07:00"},
		{"last friday", "2025-05-09T00:00:00-07:00", "2025-05-10T00:00:00-07:00"},
		{"on sat", "2025-05-10T00:00:00-07:00", "2025-05-11T00:00:00-07:00"},
		{"this friday", "2025-05-16T00:00:00-07:00", "2025-05-17T00:00:00-07:00"},
		{"this monday", "2025-05-12T00:00:00-07:00", "2025-05-13T00:00:00-07:00"},
		{"monday of last week", "2025-05-05T00:00:00-07:00", "2025-05-06T00:00:00-07:00"},
		{"last week's monday", "2025-05-05T00:00:00-07:00", "2025-05-06T00:00:00-07:00"},
		{"tuesday next week", "2025-05-20T00:00:00-07:00", "2025-05-21T00:00:00-07:00"},
		{"sunday this week", "2025-05-18T00:00:00-07:00", "2025-05-19T00:00:00-07:00"},
		// Weekends: Saturday and Sunday.
		{"last weekend", "2025-05-10T00:00:00-07:00", "2025-05-12T00:00:00-07:00"},
		{"this past weekend", "2025-05-10T00:00:00-07:00", "2025-05-12T00:00:00-07:00"},
		{"over the weekend", "2025-05-10T00:00:00-07:00", "2025-05-12T00:00:00-07:00"},
		{"this weekend", "2025-05-17T00:00:00-07:00", "2025-05-19T00:00:00-07:00"},
		{"next weekend", "2025-05-24T00:00:00-07:00", "2025-05-26T00:00:00-07:00"},
		// Months: alone, the latest that has begun; "last", the latest ended.
		{"March", "2025-03-01T00:00:00-08:00", "2025-04-01T00:00:00-07:00"},
		{"in March", "2025-03-01T00:00:00-08:00", "2025-04-01T00:00:00-07:00"},
		{"may", "2025-05-01T00:00:00-07:00", "2025-06-01T00:00:00-07:00"},
		{"june", "2024-06-01T00:00:00-07:00", "2024-07-01T00:00:00-07:00"},
		{"last March", "2025-03-01T00:00:00-08:00", "2025-04-01T00:00:00-07:00"},
		{"last may", "2024-05-01T00:00:00-07:00", "2024-06-01T00:00:00-07:00"},
		{"this june", "2025-06-01T00:00:00-07:00", "2025-07-01T00:00:00-07:00"},
		{"next march", "2026-03-01T00:00:00-08:00", "2026-04-01T00:00:00-07:00"},
		{"March 2023", "2023-03-01T00:00:00-08:00", "2023-04-01T00:00:00-07:00"},
		{"Mar 2023", "2023-03-01T00:00:00-08:00", "2023-04-01T00:00:00-07:00"},
		// The year wins over a bare "in March" of the same length.
		{"in March 2023", "2023-03-01T00:00:00-08:00", "2023-04-01T00:00:00-07:00"},
		{"what did we discuss during March 2023?", "2023-03-01T00:00:00-08:00", "2023-04-01T00:00:00-07:00"},
		{"march of last year", "2024-03-01T00:00:00-08:00", "2024-04-01T00:00:00-07:00"},
		{"2023-03", "2023-03-01T00:00:00-08:00", "2023-04-01T00:00:00-07:00"},
		{"03/2023", "2023-03-01T00:00:00-08:00", "2023-04-01T00:00:00-07:00"},
		// Years.
		{"2023", "2023-01-01T00:00:00-08:00", "2024-01-01T00:00:00-08:00"},
		{"in 2023", "2023-01-01T00:00:00-08:00", "2024-01-01T00:00:00-08:00"},
		{"the year 2023", "2023-01-01T00:00:00-08:00", "2024-01-01T00:00:00-08:00"},
		// Dates. Without a year, the latest such date not after today.
		{"2023-03-05", "2023-03-05T00:00:00-08:00", "2023-03-06T00:00:00-08:00"},
		{"2023/03/05", "2023-03-05T00:00:00-08:00", "2023-03-06T00:00:00-08:00"},
		{"May 5", "2025-05-05T00:00:00-07:00", "2025-05-06T00:00:00-07:00"},
		{"May 5th", "2025-05-05T00:00:00-07:00", "2025-05-06T00:00:00-07:00"},
		{"may the fifth", "2025-05-05T00:00:00-07:00", "2025-05-06T00:00:00-07:00"},
		{"the 5th of May", "2025-05-05T00:00:00-07:00", "2025-05-06T00:00:00-07:00"},
		{"5 May 2023", "2023-05-05T00:00:00-07:00", "2023-05-06T00:00:00-07:00"},
		{"May 5, 2023", "2023-05-05T00:00:00-07:00", "2023-05-06T00:00:00-07:00"},
		{"May 5th, 2023", "2023-05-05T00:00:00-07:00", "2023-05-06T00:00:00-07:00"},
		{"June 21st", "2024-06-21T00:00:00-07:00", "2024-06-22T00:00:00-07:00"},
		{"the twenty-first of june", "2024-06-21T00:00:00-07:00", "2024-06-22T00:00:00-07:00"},
		{"Jan. 5", "2025-01-05T00:00:00-08:00", "2025-01-06T00:00:00-08:00"},
		{"feb 29", "2024-02-29T00:00:00-08:00", "2024-03-01T00:00:00-08:00"},
		{"on the 5th", "2025-05-05T00:00:00-07:00", "2025-05-06T00:00:00-07:00"},
		{"the 31st", "2025-03-31T00:00:00-07:00", "2025-04-01T00:00:00-07:00"},
		// Slashed dates are month first unless the first number cannot be a month.
		{"5/5/2023", "2023-05-05T00:00:00-07:00", "2023-05-06T00:00:00-07:00"},
		{"3/4/2023", "2023-03-04T00:00:00-08:00", "2023-03-05T00:00:00-08:00"},
		{"12/25/2023", "2023-12-25T00:00:00-08:00", "2023-12-26T00:00:00-08:00"},
		{"25/12/2023", "2023-12-25T00:00:00-08:00", "2023-12-26T00:00:00-08:00"},
		{"5/5/23", "2023-05-05T00:00:00-07:00", "2023-05-06T00:00:00-07:00"},
		{"5/5", "2025-05-05T00:00:00-07:00", "2025-05-06T00:00:00-07:00"},
		// Date-times: the second, minute or hour they name.
		{"2023-03-05T10:00:00Z", "2023-03-05T02:00:00-08:00", "2023-03-05T02:00:01-08:00"},
		{"2023-03-05T10:00:00.250+02:00", "2023-03-05T00:00:00-08:00", "2023-03-05T00:00:01-08:00"},
		{"2023-03-05T10:00", "2023-03-05T10:00:00-08:00", "2023-03-05T10:01:00-08:00"},
		{"2023-03-05T10", "2023-03-05T10:00:00-08:00", "2023-03-05T11:00:00-08:00"},
		{"2023-03-05 10:00", "2023-03-05T10:00:00-08:00", "2023-03-05T11:00:00-08:00"},
		// Explicit ranges include both ends whole.
		{"from March 1 to March 15", "2025-03-01T00:00:00-08:00", "2025-03-16T00:00:00-07:00"},
		{"March 1 - March 15", "2025-03-01T00:00:00-08:00", "2025-03-16T00:00:00-07:00"},
		{"March 1 – March 15", "2025-03-01T00:00:00-08:00", "2025-03-16T00:00:00-07:00"},
		{"march 1-15", "2025-03-01T00:00:00-08:00", "2025-03-16T00:00:00-07:00"},
		{"between 2023-01-01 and 2023-02-01", "2023-01-01T00:00:00-08:00", "2023-02-02T00:00:00-08:00"},
		{"from 2023-01-01 to 2023-02-01", "2023-01-01T00:00:00-08:00", "2023-02-02T00:00:00-08:00"},
		{"from dec 20 to jan 5", "2024-12-20T00:00:00-08:00", "2025-01-06T00:00:00-08:00"},
		{"march 15 to march 1", "2025-03-01T00:00:00-08:00", "2025-03-16T00:00:00-07:00"},
		{"from friday to monday", "2025-05-09T00:00:00-07:00", "2025-05-13T00:00:00-07:00"},
		{"march 20 through april 2", "2025-03-20T00:00:00-07:00", "2025-04-03T00:00:00-07:00"},
		{"between march and may", "2025-03-01T00:00:00-08:00", "2025-06-01T00:00:00-07:00"},
		{"march to may", "2025-03-01T00:00:00-08:00", "2025-06-01T00:00:00-07:00"},
		{"from january to march 2024", "2024-01-01T00:00:00-08:00", "2024-04-01T00:00:00-07:00"},
		{"yesterday and today", "2025-05-13T00:00:00-07:00", "2025-05-15T00:00:00-07:00"},
		{"from last monday to yesterday", "2025-05-12T00:00:00-07:00", "2025-05-14T00:00:00-07:00"},
		{"between monday morning and tuesday evening", "2025-05-12T05:00:00-07:00", "2025-05-14T00:00:00-07:00"},
		// Ranges open at one end: since/after end now; before/until start at the zero time.
		{"since Monday", "2025-05-12T00:00:00-07:00", laNowStr},
		{"since March", "2025-03-01T00:00:00-08:00", laNowStr},
		{"since last week", "2025-05-05T00:00:00-07:00", laNowStr},
		{"since 5/1", "2025-05-01T00:00:00-07:00", laNowStr},
		{"after monday", "2025-05-13T00:00:00-07:00", laNowStr},
		{"march onwards", "2025-03-01T00:00:00-08:00", laNowStr},
		{"from may on", "2025-05-01T00:00:00-07:00", laNowStr},
		{"from march until now", "2025-03-01T00:00:00-08:00", laNowStr},
		{"before 2024", open, "2024-01-01T00:00:00-08:00"},
		{"until yesterday", open, "2025-05-14T00:00:00-07:00"},
		{"prior to 2020", open, "2020-01-01T00:00:00-08:00"},
		{"up to last month", open, "2025-05-01T00:00:00-07:00"},
		{"till march 2023", open, "2023-04-01T00:00:00-07:00"},
	})
}

// TestParseInSentences checks that case and the words around a time
// reference do not matter.
func TestParseInSentences(t *testing.T) {
	runTable(t, New(), laNow(t), []row{
		{"What did we discuss LAST WEEK?", "2025-05-05T00:00:00-07:00", "2025-05-12T00:00:00-07:00"},
		{"what did we talk about yesterday?", "2025-05-13T00:00:00-07:00", "2025-05-14T00:00:00-07:00"},
		{"Show me my notes from March 2023.", "2023-03-01T00:00:00-08:00", "2023-04-01T00:00:00-07:00"},
		{"remind me what we said three days ago", "2025-05-11T00:00:00-07:00", "2025-05-12T00:00:00-07:00"},
		{"anything from the past two weeks?", "2025-04-30T00:00:00-07:00", laNowStr},
		{"what did I tell you in May", "2025-05-01T00:00:00-07:00", "2025-06-01T00:00:00-07:00"},
		{"from last week", "2025-05-05T00:00:00-07:00", "2025-05-12T00:00:00-07:00"},
		{"earlier today", "2025-05-14T00:00:00-07:00", "2025-05-15T00:00:00-07:00"},
		{"what happened on 2024-02-29", "2024-02-29T00:00:00-08:00", "2024-03-01T00:00:00-08:00"},
		{"notes since March, please", "2025-03-01T00:00:00-08:00", laNowStr},
		{"  TODAY  ", "2025-05-14T00:00:00-07:00", "2025-05-15T00:00:00-07:00"},
	})
}

func TestParseWeekStartSunday(t *testing.T) {
	runTable(t, New(WithWeekStart(time.Sunday)), laNow(t), []row{
		{"this week", "2025-05-11T00:00:00-07:00", "2025-05-18T00:00:00-07:00"},
		{"last week", "2025-05-04T00:00:00-07:00", "2025-05-11T00:00:00-07:00"},
		{"monday of last week", "2025-05-05T00:00:00-07:00", "2025-05-06T00:00:00-07:00"},
		{"sunday this week", "2025-05-11T00:00:00-07:00", "2025-05-12T00:00:00-07:00"},
		{"two weeks ago", "2025-04-27T00:00:00-07:00", "2025-05-04T00:00:00-07:00"},
		{"this weekend", "2025-05-17T00:00:00-07:00", "2025-05-19T00:00:00-07:00"},
	})
}

func TestParseUnrecognized(t *testing.T) {
	now := laNow(t)
	for _, tc := range []struct{ phrase, reason string }{
		{"purple", ""},
		{"", "the phrase is empty"},
		{"  ?! ", "the phrase is empty"},
		{"recently", ""},
		{"what may we", ""}, // "may" is a verb here, not the month
		{"the sun was out", ""},
		{"1850", ""}, // a lone number is a year only from 1900 to 2199
		{"feb 30", "February has no day 30"},
		{"2023-02-30", "February 2023 has no day 30"},
		{"2023-13", "there is no month 13"},
		{"13/13/2023", "is not a date"},
		{"2023-03-05T25:00", "is not a valid date and time"},
		{"from feb 30 to march 5", "February has no day 30"},
		{"since tomorrow", "names no time"},
		{"999999 years ago", "outside years 1 to 9999"},
		{"13pm", ""},
		{strings.Repeat("last week ", 101), "bytes long"},
	} {
		t.Run(tc.phrase, func(t *testing.T) {
			r, err := Parse(tc.phrase, now, now.Location())
			if !errors.Is(err, ErrUnrecognized) {
				t.Fatalf("Parse(%q) = %v, %v; want an error wrapping ErrUnrecognized", tc.phrase, r, err)
			}
			msg := err.Error()
			quoted := tc.phrase
			if len(quoted) > 40 {
				quoted = quoted[:40]
			}
			for _, want := range []string{quoted, "phrases understood include", `"last week"`, tc.reason} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not contain %q", msg, want)
				}
			}
		})
	}
}

func TestParseNilLocationUsesNowsLocation(t *testing.T) {
	now := laNow(t)
	r, err := Parse("today", now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.From.Location() != now.Location() || r.From.Format(time.RFC3339) != "2025-05-14T00:00:00-07:00" {
		t.Errorf("Parse(today, nil loc) = %v", r)
	}
}

// TestParseConvertsNow checks that now is read in loc, not in its own zone.
func TestParseConvertsNow(t *testing.T) {
	// 03:00 UTC on May 15 is still May 14 in Los Angeles.
	now := time.Date(2025, time.May, 15, 3, 0, 0, 0, time.UTC)
	r, err := Parse("today", now, mustLoad(t, "America/Los_Angeles"))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.From.Format(time.RFC3339); got != "2025-05-14T00:00:00-07:00" {
		t.Errorf("today from %s in Los Angeles starts %s", now, got)
	}
}

func TestRangeContains(t *testing.T) {
	now := laNow(t)
	r, err := Parse("yesterday", now, now.Location())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at   time.Time
		want bool
	}{
		{r.From, true},
		{r.To.Add(-time.Nanosecond), true},
		{r.To, false},
		{r.From.Add(-time.Nanosecond), false},
	} {
		if got := r.Contains(tc.at); got != tc.want {
			t.Errorf("%v.Contains(%s) = %v, want %v", r, tc.at, got, tc.want)
		}
	}
	if got, want := r.String(), "[2025-05-13T00:00:00-07:00, 2025-05-14T00:00:00-07:00)"; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}

func TestParserConcurrentUse(t *testing.T) {
	p, now := New(), laNow(t)
	want, err := p.Parse("next tue at 5pm", now, now.Location())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				got, err := p.Parse("next tue at 5pm", now, now.Location())
				if err != nil || got != want {
					t.Errorf("concurrent Parse = %v, %v; want %v", got, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
