package memory

import (
	"slices"
	"testing"
	"time"
)

// TestNoteOfTheComingMonth: a note that names a month alone before that
// month came round ("the kitchen fitters come in May", written in
// February) is of the coming May, so a question about May (asked in May)
// finds it with the period's memories, above the bar; one written after
// that month is of the month just gone and is not.
func TestNoteOfTheComingMonth(t *testing.T) {
	e := recallEngine(t) // now: Wednesday 2025-05-14 15:04 in Los Angeles
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 10, 0, 0, 0, la) }
	coming := StoreRequest{Content: "The kitchen fitters come in May; the new worktop is oak.", Timestamp: day(2025, 2, 3)}
	gone := StoreRequest{Content: "The boiler was serviced in May by Scottish Gas.", Timestamp: day(2024, 6, 20)}
	other := StoreRequest{Content: "Renewed the car insurance with Admiral.", Timestamp: day(2025, 3, 9)}
	for _, n := range []StoreRequest{coming, gone, other} {
		mustStore(t, e, n)
	}
	res := search(t, e, SearchRequest{Query: "what is happening in May?", Location: la})
	var strong []string
	for _, m := range res.Results {
		if !m.Weak {
			strong = append(strong, m.Text)
		}
	}
	if res.NothingRelevant || !slices.Equal(strong, []string{coming.Content}) {
		t.Errorf("in May: got %v %v (nothing relevant %v), want %q alone above the bar", texts(res.Results), confidences(res.Results), res.NothingRelevant, coming.Content)
	}
}
