package timephrase

import (
	"strings"
	"testing"
	"time"
)

func TestScan(t *testing.T) {
	loc := mustLoad(t, "Europe/London")
	written := time.Date(2023, 5, 8, 13, 56, 0, 0, loc) // a Monday
	for _, tc := range []struct{ text, from, to string }{
		{"I went to a LGBTQ support group yesterday and it was so powerful.", "2023-05-07T00:00:00+01:00", "2023-05-08T00:00:00+01:00"},
		{"Yeah, I painted that lake sunrise last year! It's special to me.", "2022-01-01T00:00:00Z", "2023-01-01T00:00:00Z"},
		{"Thanks! By the way, I went to a poetry reading last Fri - it was really powerful!", "2023-05-05T00:00:00+01:00", "2023-05-06T00:00:00+01:00"},
		{"We're thinking about going camping next month. Any fun plans?", "2023-06-01T00:00:00+01:00", "2023-07-01T00:00:00+01:00"},
		{"The builder said the kitchen renovation can start on May 4 and should take six weeks.", "2023-05-04T00:00:00+01:00", "2023-05-05T00:00:00+01:00"},
		{"My mortgage deal ends in July 2026, so I need to remortgage.", "2026-07-01T00:00:00+01:00", "2026-08-01T00:00:00+01:00"},
		// A note's heading: the colon ends the phrase, it is not part of "year".
		{"Goal for next year: run a marathon under four hours and read 20 books.", "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"},
		// An open range hides a reading the next anchor finds.
		{"Nothing happened before 2020, but in March 2021 we moved.", "2021-03-01T00:00:00Z", "2021-04-01T00:00:00+01:00"},
	} {
		r, ok := Scan(tc.text, written, loc)
		if !ok {
			t.Errorf("Scan(%q) found nothing", tc.text)
			continue
		}
		got := [2]string{r.From.Format(time.RFC3339), r.To.Format(time.RFC3339)}
		if want := [2]string{tc.from, tc.to}; got != want {
			t.Errorf("Scan(%q) = [%s, %s), want [%s, %s)", tc.text, got[0], got[1], want[0], want[1])
		}
	}
	for _, text := range []string{
		"",
		"Now my relationships feel more genuine.",     // "now" alone is the present, not a reference
		"We may go hiking, I sat by the sun all day.", // weak month and weekday words in a sentence
		"Ever since 2019 I have kept bees.",           // open-ended
		"I have three kids and 2 cats.",
		strings.Repeat("word ", 10000) + "yesterday", // past the bytes read
	} {
		if r, ok := Scan(text, written, loc); ok {
			t.Errorf("Scan(%q) = %v, want nothing", text[:min(len(text), 60)], r)
		}
	}
}

func BenchmarkScan(b *testing.B) {
	loc := time.UTC
	written := time.Date(2023, 5, 8, 13, 56, 0, 0, loc)
	for _, text := range []string{
		"That's awesome, Caroline! Congrats on following your dreams. Yesterday I took the kids to the museum - it was so cool spending time with them and seeing their eyes light up!",
		"Thanks, Melanie. It's definitely changed them. Some close friends kept supporting me, but a few weren't able to handle it. It wasn't easy, but I'm much happier being around those who accept and love me.",
	} {
		b.Run(text[:20], func(b *testing.B) {
			for b.Loop() {
				Scan(text, written, loc)
			}
		})
	}
}

// TestScanNext: a month named alone is read as the latest begun and,
// when the next begins sooner than that one ended, as the next too ("the
// October half term" written in August); not a month just gone, a day of
// a month, or a month with a word that places it.
func TestScanNext(t *testing.T) {
	loc := mustLoad(t, "Europe/London")
	august := time.Date(2026, 8, 10, 9, 0, 0, 0, loc)
	november := time.Date(2026, 11, 10, 9, 0, 0, 0, loc)
	for _, tc := range []struct {
		text       string
		now        time.Time
		from, next string // next "": none
	}{
		{"Booked a cottage on Skye through Airbnb for the October half term.", august, "2025-10-01T00:00:00+01:00", "2026-10-01T00:00:00+01:00"},
		{"Mum's party is in December at the golf club.", august, "2025-12-01T00:00:00Z", "2026-12-01T00:00:00Z"},
		{"We went to Spain in October.", november, "2026-10-01T00:00:00+01:00", ""},
		{"The garden was lovely in June.", august, "2026-06-01T00:00:00+01:00", ""},
		{"Scottish Gas serviced the boiler on 2 October.", august, "2025-10-02T00:00:00+01:00", ""},
		{"The lease is up for renewal next May.", august, "2027-05-01T00:00:00+01:00", ""},
	} {
		r, next, ok := ScanNext(tc.text, tc.now, loc)
		if !ok {
			t.Errorf("ScanNext(%q) found nothing", tc.text)
			continue
		}
		gotNext := ""
		if !next.From.IsZero() {
			gotNext = next.From.Format(time.RFC3339)
		}
		if got := r.From.Format(time.RFC3339); got != tc.from || gotNext != tc.next {
			t.Errorf("ScanNext(%q) = %s, next %q; want %s, next %q", tc.text, got, gotNext, tc.from, tc.next)
		}
		if r2, ok2 := Scan(tc.text, tc.now, loc); !ok2 || r2 != r {
			t.Errorf("Scan(%q) = %v, ScanNext's reading %v", tc.text, r2, r)
		}
	}
}
