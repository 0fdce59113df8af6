package timephrase

import (
	"errors"
	"testing"
	"time"
)

// ownRulesOnly is a Parser without the olebedev/when fallback.
func ownRulesOnly() *Parser { return &Parser{weekStart: time.Monday} }

// TestFallbackReadsWhatRulesDoNot checks phrases that need the fallback:
// with it they give the unit containing when's instant; without it they fail
// or read fewer words and give something else.
func TestFallbackReadsWhatRulesDoNot(t *testing.T) {
	la := mustLoad(t, "America/Los_Angeles")
	for _, tc := range []struct {
		now  time.Time
		rows []row
	}{
		{laNow(t), []row{
			{"next tuesday", "2025-05-20T00:00:00-07:00", "2025-05-21T00:00:00-07:00"},
			{"next friday", "2025-05-16T00:00:00-07:00", "2025-05-17T00:00:00-07:00"},
			{"tmr", "2025-05-15T00:00:00-07:00", "2025-05-16T00:00:00-07:00"},
			{"what's on next Thu", "2025-05-15T00:00:00-07:00", "2025-05-16T00:00:00-07:00"},
			// A sub-day instant is read as the hour containing it.
			{"in half an hour", "2025-05-14T15:00:00-07:00", "2025-05-14T16:00:00-07:00"},
		}},
		{time.Date(2025, 5, 14, 15, 40, 0, 0, la), []row{
			{"half an hour ago", "2025-05-14T15:00:00-07:00", "2025-05-14T16:00:00-07:00"},
		}},
	} {
		runTable(t, New(), tc.now, tc.rows)
		for _, want := range tc.rows {
			r, err := ownRulesOnly().Parse(want.phrase, tc.now, la)
			if err == nil && r.From.Format(time.RFC3339) == want.from && r.To.Format(time.RFC3339) == want.to {
				t.Errorf("without the fallback, Parse(%q) still gives %v; the case does not test the fallback", want.phrase, r)
			}
		}
	}
}

// TestFallbackWinsOnlyWithMoreWords checks the arbitration: when's reading is
// used if it accounts for more words than the best rule match.
func TestFallbackWinsOnlyWithMoreWords(t *testing.T) {
	now := laNow(t)
	// The rules read three words, "tue at 5pm" (last Tuesday); when reads
	// all four.
	runTable(t, New(), now, []row{
		{"next tue at 5pm", "2025-05-20T17:00:00-07:00", "2025-05-20T18:00:00-07:00"},
	})
	runTable(t, ownRulesOnly(), now, []row{
		{"next tue at 5pm", "2025-05-13T17:00:00-07:00", "2025-05-13T18:00:00-07:00"},
	})
}

// TestRulesBeatFallback checks phrases that when reads differently: the
// rules' reading must be the one returned.
func TestRulesBeatFallback(t *testing.T) {
	la := mustLoad(t, "America/Los_Angeles")
	for _, tc := range []struct {
		phrase   string
		now      time.Time
		from, to string
	}{
		// when reads the digits as 03:05 today.
		{"2023-03-05", laNow(t), "2023-03-05T00:00:00-08:00", "2023-03-06T00:00:00-08:00"},
		// when reads a bare weekday as the next one.
		{"monday at 5pm", laNow(t), "2025-05-12T17:00:00-07:00", "2025-05-12T18:00:00-07:00"},
		// when wraps December + 2 months to February of the same year.
		{"in 2 months", time.Date(2025, 12, 10, 12, 0, 0, 0, la), "2026-02-01T00:00:00-08:00", "2026-03-01T00:00:00-08:00"},
		// when takes months ago modulo 12, so 17 months before May 2025 is
		// December 2024.
		{"17 months ago", laNow(t), "2023-12-01T00:00:00-08:00", "2024-01-01T00:00:00-08:00"},
	} {
		t.Run(tc.phrase, func(t *testing.T) {
			runTable(t, New(), tc.now, []row{{tc.phrase, tc.from, tc.to}})
			// Make sure the case is a real disagreement, so that the test
			// shows the rules were preferred.
			res, err := newFallback().Parse(tc.phrase, tc.now)
			if err != nil || res == nil {
				t.Fatalf("when did not read %q: %v", tc.phrase, err)
			}
			if r, _ := Parse(tc.phrase, tc.now, la); r.Contains(res.Time) {
				t.Errorf("when's reading %s of %q falls inside ours; the case does not test precedence", res.Time, tc.phrase)
			}
		})
	}
}

// TestFallbackIgnoresLoneWeakWords: when reads "may" in "what may we ..." as a
// date; the rules declined it as a verb, and so must the fallback.
func TestFallbackIgnoresLoneWeakWords(t *testing.T) {
	now := laNow(t)
	for _, phrase := range []string{"what may we have said", "I sat there"} {
		if res, _ := newFallback().Parse(phrase, now); res == nil {
			t.Fatalf("when no longer reads %q; pick another example", phrase)
		}
		if r, err := Parse(phrase, now, now.Location()); !errors.Is(err, ErrUnrecognized) {
			t.Errorf("Parse(%q) = %v, %v; want ErrUnrecognized", phrase, r, err)
		}
	}
}

// TestFallbackDayAcrossDST: when steps in 24-hour units, so from 23:30 on the
// evening before the clocks go forward, "next monday" (48 hours later) lands
// on Tuesday 00:30. Reading from local noon keeps the calendar day.
func TestFallbackDayAcrossDST(t *testing.T) {
	now := time.Date(2025, 3, 8, 23, 30, 0, 0, mustLoad(t, "America/Los_Angeles")) // a Saturday
	runTable(t, New(), now, []row{
		{"next monday", "2025-03-10T00:00:00-07:00", "2025-03-11T00:00:00-07:00"},
	})
}
