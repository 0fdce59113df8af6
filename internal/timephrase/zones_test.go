package timephrase

import (
	"testing"
	"time"
)

// TestParseBerlin runs in a second zone on a Sunday morning in January, where
// "last month" and month names reach into the previous year and the weekend
// is under way.
func TestParseBerlin(t *testing.T) {
	now := time.Date(2025, time.January, 5, 9, 30, 0, 0, mustLoad(t, "Europe/Berlin"))
	const nowStr = "2025-01-05T09:30:00+01:00"
	runTable(t, New(), now, []row{
		{"today", "2025-01-05T00:00:00+01:00", "2025-01-06T00:00:00+01:00"},
		{"yesterday", "2025-01-04T00:00:00+01:00", "2025-01-05T00:00:00+01:00"},
		{"this morning", "2025-01-05T05:00:00+01:00", "2025-01-05T12:00:00+01:00"},
		{"last night", "2025-01-04T18:00:00+01:00", "2025-01-05T05:00:00+01:00"},
		{"this week", "2024-12-30T00:00:00+01:00", "2025-01-06T00:00:00+01:00"},
		{"last week", "2024-12-23T00:00:00+01:00", "2024-12-30T00:00:00+01:00"},
		{"this month", "2025-01-01T00:00:00+01:00", "2025-02-01T00:00:00+01:00"},
		{"last month", "2024-12-01T00:00:00+01:00", "2025-01-01T00:00:00+01:00"},
		{"last year", "2024-01-01T00:00:00+01:00", "2025-01-01T00:00:00+01:00"},
		{"in 2024", "2024-01-01T00:00:00+01:00", "2025-01-01T00:00:00+01:00"},
		{"monday", "2024-12-30T00:00:00+01:00", "2024-12-31T00:00:00+01:00"},
		{"last monday", "2024-12-30T00:00:00+01:00", "2024-12-31T00:00:00+01:00"},
		{"tuesday", "2024-12-31T00:00:00+01:00", "2025-01-01T00:00:00+01:00"},
		{"sunday", "2024-12-29T00:00:00+01:00", "2024-12-30T00:00:00+01:00"},
		{"monday of next week", "2025-01-06T00:00:00+01:00", "2025-01-07T00:00:00+01:00"},
		{"this weekend", "2025-01-04T00:00:00+01:00", "2025-01-06T00:00:00+01:00"},
		{"the weekend", "2025-01-04T00:00:00+01:00", "2025-01-06T00:00:00+01:00"},
		{"last weekend", "2024-12-28T00:00:00+01:00", "2024-12-30T00:00:00+01:00"},
		{"next weekend", "2025-01-11T00:00:00+01:00", "2025-01-13T00:00:00+01:00"},
		{"march", "2024-03-01T00:00:00+01:00", "2024-04-01T00:00:00+02:00"},
		{"january", "2025-01-01T00:00:00+01:00", "2025-02-01T00:00:00+01:00"},
		{"last january", "2024-01-01T00:00:00+01:00", "2024-02-01T00:00:00+01:00"},
		{"december", "2024-12-01T00:00:00+01:00", "2025-01-01T00:00:00+01:00"},
		{"dec 25", "2024-12-25T00:00:00+01:00", "2024-12-26T00:00:00+01:00"},
		{"the 31st", "2024-12-31T00:00:00+01:00", "2025-01-01T00:00:00+01:00"},
		{"from dec 20 to jan 5", "2024-12-20T00:00:00+01:00", "2025-01-06T00:00:00+01:00"},
		{"between dec 20 and jan 10", "2024-12-20T00:00:00+01:00", "2025-01-11T00:00:00+01:00"},
		{"a month ago", "2024-12-01T00:00:00+01:00", "2025-01-01T00:00:00+01:00"},
		{"2 weeks ago", "2024-12-16T00:00:00+01:00", "2024-12-23T00:00:00+01:00"},
		{"the past 3 days", "2025-01-02T00:00:00+01:00", nowStr},
		{"an hour ago", "2025-01-05T08:00:00+01:00", "2025-01-05T09:00:00+01:00"},
	})
}

// TestParseKolkata covers a zone half an hour off UTC, where hours must be
// floored on the local clock.
func TestParseKolkata(t *testing.T) {
	now := time.Date(2025, time.May, 14, 15, 4, 0, 0, mustLoad(t, "Asia/Kolkata"))
	runTable(t, New(), now, []row{
		{"an hour ago", "2025-05-14T14:00:00+05:30", "2025-05-14T15:00:00+05:30"},
		{"5 minutes ago", "2025-05-14T14:59:00+05:30", "2025-05-14T15:00:00+05:30"},
		{"yesterday at 5pm", "2025-05-13T17:00:00+05:30", "2025-05-13T18:00:00+05:30"},
		{"2023-03-05T10:00:00Z", "2023-03-05T15:30:00+05:30", "2023-03-05T15:30:01+05:30"},
		{"last week", "2025-05-05T00:00:00+05:30", "2025-05-12T00:00:00+05:30"},
	})
}

// TestParseAcrossDST checks that days are calendar days, 23 or 25 hours long
// when the clocks change, and that clock units stay real hours.
func TestParseAcrossDST(t *testing.T) {
	la, berlin := mustLoad(t, "America/Los_Angeles"), mustLoad(t, "Europe/Berlin")
	for _, tc := range []struct {
		name     string
		now      time.Time
		phrase   string
		from, to string
		length   time.Duration
	}{
		{"LA spring forward", time.Date(2025, 3, 10, 10, 0, 0, 0, la), "yesterday",
			"2025-03-09T00:00:00-08:00", "2025-03-10T00:00:00-07:00", 23 * time.Hour},
		{"LA fall back", time.Date(2025, 11, 3, 10, 0, 0, 0, la), "yesterday",
			"2025-11-02T00:00:00-07:00", "2025-11-03T00:00:00-08:00", 25 * time.Hour},
		{"Berlin spring forward", time.Date(2025, 3, 31, 12, 0, 0, 0, berlin), "yesterday",
			"2025-03-30T00:00:00+01:00", "2025-03-31T00:00:00+02:00", 23 * time.Hour},
		{"Berlin fall back", time.Date(2025, 10, 27, 12, 0, 0, 0, berlin), "yesterday",
			"2025-10-26T00:00:00+02:00", "2025-10-27T00:00:00+01:00", 25 * time.Hour},
		{"LA today is short", time.Date(2025, 3, 9, 12, 0, 0, 0, la), "today",
			"2025-03-09T00:00:00-08:00", "2025-03-10T00:00:00-07:00", 23 * time.Hour},
		{"LA last night after spring forward", time.Date(2025, 3, 10, 10, 0, 0, 0, la), "last night",
			"2025-03-09T18:00:00-07:00", "2025-03-10T05:00:00-07:00", 11 * time.Hour},
		{"LA week with the change", time.Date(2025, 3, 12, 10, 0, 0, 0, la), "this week",
			"2025-03-10T00:00:00-07:00", "2025-03-17T00:00:00-07:00", 7 * 24 * time.Hour},
		{"LA last week with the change", time.Date(2025, 3, 12, 10, 0, 0, 0, la), "last week",
			"2025-03-03T00:00:00-08:00", "2025-03-10T00:00:00-07:00", 7*24*time.Hour - time.Hour},
		{"LA past 2 days from midnight", time.Date(2025, 3, 10, 10, 0, 0, 0, la), "the past 2 days",
			"2025-03-08T00:00:00-08:00", "2025-03-10T10:00:00-07:00", 57 * time.Hour},
		// 01:30 happens twice on 2025-11-02; this is the second, in PST. An
		// hour earlier is the first 01:30, in PDT, and the hour containing it
		// ends when the clocks go back.
		{"LA hour ago in repeated hour", time.Date(2025, 11, 2, 9, 30, 0, 0, time.UTC).In(la), "an hour ago",
			"2025-11-02T01:00:00-07:00", "2025-11-02T01:00:00-08:00", time.Hour},
		{"LA 3 days ago across fall back", time.Date(2025, 11, 4, 0, 30, 0, 0, la), "3 days ago",
			"2025-11-01T00:00:00-07:00", "2025-11-02T00:00:00-07:00", 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse(tc.phrase, tc.now, tc.now.Location())
			if err != nil {
				t.Fatal(err)
			}
			got := [2]string{r.From.Format(time.RFC3339), r.To.Format(time.RFC3339)}
			if got != [2]string{tc.from, tc.to} {
				t.Errorf("Parse(%q) at %s = %v, want [%s, %s)", tc.phrase, tc.now, r, tc.from, tc.to)
			}
			if d := r.To.Sub(r.From); d != tc.length {
				t.Errorf("Parse(%q) at %s lasts %s, want %s", tc.phrase, tc.now, d, tc.length)
			}
		})
	}
}
