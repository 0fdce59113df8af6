package recall

import (
	"slices"
	"time"

	"github.com/infmem/infmem/internal/facts"
)

// The current value first. A question about a value as it stands now
// ("What is my snack budget for the movie marathon?", "How many sources
// are in my Zotero library?") is answered by the latest memory that
// states such a value for what it names, even when storing that memory
// did not link it to the earlier one (a long conversation turn mentions
// the change in passing: "…the dashboard API response time, which has
// recently improved to 250ms…"). Among the results that state a value of
// the kind the question asks for beside its words, the latest is moved
// up to where the first of them ranked; the others keep their order.
// The ranks' confidences stay where they were: the moved memory answers
// the question at least as well as the one it passes.

// currentMinWords is how many of the question's words must stand beside
// the value (fewer when the question names fewer).
const currentMinWords = 2

// Said is what CurrentFirst reads of one result: its text, when it was
// said and its id (the order of one batch's messages), and Skip for a
// result that cannot be the current value (superseded, or weak).
type Said struct {
	Text string
	At   time.Time
	ID   string
	Skip bool
}

// CurrentFirst reads res, a search's results for query, best first, and
// returns the result to move up (from) and the place it moves to (to);
// from == to when nothing moves. The engine moves it and keeps each
// rank's confidence.
func CurrentFirst(query string, res []Said) (from, to int) {
	if len(res) < 2 {
		return 0, 0
	}
	q := facts.AskCurrent(query)
	if q == nil {
		return 0, 0
	}
	need := min(currentMinWords, q.Subject())
	type statement struct {
		at int // position in res
		facts.Stated
	}
	var states []statement // the results that state the value
	for i := range res {
		if res[i].Skip {
			continue
		}
		if st := q.States(facts.Parse(res[i].Text)); st.Words >= need {
			states = append(states, statement{i, st})
		}
	}
	if len(states) < 2 {
		return 0, 0
	}
	// The latest that says the value changed to another than the first
	// gives, for one same word of the question ("the application deadline
	// being May 10" / "the deadline was extended to May 20").
	first := states[0]
	latest := first
	for _, s := range states[1:] {
		if s.Changed && s.Words >= first.Words && later(&res[s.at], &res[latest.at]) && !sameValues(s.Values, first.Values) &&
			slices.ContainsFunc(s.Anchors, func(w string) bool { return slices.Contains(first.Anchors, w) }) {
			latest = s
		}
	}
	return latest.at, first.at
}

// later reports whether a was said after b: its time, then (for the
// messages of one batch, stored with one time) the order they were
// stored in.
func later(a, b *Said) bool {
	if !a.At.Equal(b.At) {
		return a.At.After(b.At)
	}
	return a.ID > b.ID
}

// sameValues reports whether two statements give the same values.
func sameValues(a, b []string) bool {
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	for _, v := range b {
		if !slices.Contains(a, v) {
			return false
		}
	}
	return true
}
