package timephrase

import (
	"testing"
	"time"
)

// row is one table case: a phrase and the range expected, as RFC 3339
// strings. An open start is the zero time, "0001-01-01T00:00:00Z".
type row struct {
	phrase, from, to string
}

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load zone %s: %v", name, err)
	}
	return loc
}

func runTable(t *testing.T, p *Parser, now time.Time, rows []row) {
	t.Helper()
	for _, tc := range rows {
		t.Run(tc.phrase, func(t *testing.T) {
			r, err := p.Parse(tc.phrase, now, now.Location())
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tc.phrase, err)
			}
			got := [2]string{r.From.Format(time.RFC3339), r.To.Format(time.RFC3339)}
			if want := [2]string{tc.from, tc.to}; got != want {
				t.Errorf("Parse(%q) = [%s, %s), want [%s, %s)", tc.phrase, got[0], got[1], want[0], want[1])
			}
		})
	}
}
