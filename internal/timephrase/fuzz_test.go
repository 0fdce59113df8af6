package timephrase

import (
	"errors"
	"testing"
	"time"
)

// FuzzParse checks that Parse never panics, that every error wraps
// ErrUnrecognized, and that every range is non-empty with its ends in the
// user's zone (an open start being the zero time).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"today", "yesterday evening", "last week", "the past 3 days", "3 days ago",
		"last Monday", "this weekend", "March 2023", "in 2023", "2023-03-05T10:00:00Z",
		"5/5/2023", "from March 1 to March 15", "between 2023-01-01 and 2023-02-01",
		"since Monday", "before 2024", "until yesterday", "next tue at 5pm",
		"half an hour ago", "march 1-15", "the 31st", "feb 29", "999999 years ago",
		"what did we discuss last week?", "", "purple", "12/31/99", "2023-02-30",
		"since tomorrow", "from now until friday", "in 999999 seconds",
	} {
		f.Add(s)
	}
	la := mustLoad(f, "America/Los_Angeles")
	now := time.Date(2025, time.May, 14, 15, 4, 0, 0, la)
	p := New()
	f.Fuzz(func(t *testing.T, phrase string) {
		r, err := p.Parse(phrase, now, la)
		if err != nil {
			if !errors.Is(err, ErrUnrecognized) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrUnrecognized", phrase, err)
			}
			return
		}
		if !r.From.Before(r.To) {
			t.Fatalf("Parse(%q) = %v: From is not before To", phrase, r)
		}
		if r.To.Location() != la || (!r.From.IsZero() && r.From.Location() != la) {
			t.Fatalf("Parse(%q) = %v: not in %s", phrase, r, la)
		}
	})
}
