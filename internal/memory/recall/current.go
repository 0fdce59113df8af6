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
// the question at least as well as the one it passes. Two links the
// store recorded count too: a superseded result's successor among the
// results takes its place, and a recorded update that says the value
// changed passes results above it that state no such value (an update
// the store did not record does too from among the first slotRank: which
// memories those hold never changes).

// currentMinWords is how many of the question's words must stand beside
// the value (fewer when the question names fewer).
const currentMinWords = 2

// Said is what CurrentFirst reads of one result: its text, when it was
// said and its id (the order of one batch's messages), Skip for a
// result that cannot be the current value (superseded, or weak), and
// Successor: the id of the memory that supersedes it ("" for none).
type Said struct {
	Text      string
	At        time.Time
	ID        string
	Skip      bool
	Successor string
	// Updates: storing it superseded an earlier memory.
	Updates bool
	// Assistant: the assistant said it (a conversation's reply repeats
	// what the user said; it states nothing of its own).
	Assistant bool
}

// successorReach is how many links CurrentFirst follows from a
// superseded result to its latest successor among the results.
const successorReach = 4

// CurrentFirst reads res, a search's results for query, best first, and
// returns the result to move up (from) and the place it moves to (to);
// from == to when nothing moves. The engine moves it and keeps each
// rank's confidence.
func CurrentFirst(query string, res []Said) (from, to int) {
	from, to, _ = CurrentMove(query, res)
	return from, to
}

// CurrentMove is CurrentFirst that also returns, when the moved result
// updates another result that the store did not link to it (pairFirst,
// and the store's gates between turns hold for the two: shown), that
// result's place before the move (older); -1 for none. The engine shows
// the pair as an update.
func CurrentMove(query string, res []Said) (from, to, older int) {
	if len(res) < 2 {
		return 0, 0, -1
	}
	q := facts.AskCurrent(query)
	if q == nil {
		return 0, 0, -1
	}
	need := min(currentMinWords, q.Subject())
	type statement struct {
		at int // position in res
		facts.Stated
	}
	parsed := make([]*facts.Statement, len(res))
	at := make(map[string]int, len(res))
	for i := range res {
		parsed[i] = facts.Parse(res[i].Text)
		at[res[i].ID] = i
	}
	var states []statement // the results that state the value
	for i := range res {
		if res[i].Skip {
			if from, ok := successorOf(q, res, parsed, at, i, need); ok && len(states) == 0 {
				return from, i, -1
			}
			continue
		}
		if st := q.States(parsed[i]); st.Words >= need {
			states = append(states, statement{i, st})
		}
	}
	if len(states) == 0 {
		return orPair(q, res, parsed, slotFirst)
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
	if latest.at == first.at && first.at > 0 && first.Changed && (res[first.at].Updates || passes(q, res, first.at)) {
		// A recorded update that says the value changed passes the
		// results above it, which state no such value; so does, among
		// the first slotRank, a statement that it changed that the store
		// did not link ("how it was shortened to 5-7 months": passes).
		return first.at, 0, -1
	}
	if latest.at == first.at {
		return orPair(q, res, parsed, slotFirst)
	}
	if passes(q, res, first.at) && !res[latest.at].Assistant {
		return latest.at, 0, -1
	}
	return latest.at, first.at, -1
}

// passes reports whether a result that says the value changed, moving
// to the place of the first result that states the value (at), also
// passes the results above it, which state no such value: when at is
// among the first slotRank, so which memories those hold does not change
// (the store did not link it, or linked it to a memory that is not among
// the results), the question names the kind of value it asks for ("How
// long…", not only "What…": "this one" is no count of "What video games
// does Nate play?"), and the user said it: an assistant's reply explains
// rather than states.
func passes(q *facts.Asked, res []Said, at int) bool {
	return at > 0 && at < slotRank && q.Named() && !res[at].Assistant
}

// orPair runs step, and pairFirst when step moves nothing.
func orPair(q *facts.Asked, res []Said, parsed []*facts.Statement, step func(*facts.Asked, []Said, []*facts.Statement) (int, int)) (from, to, older int) {
	if from, to = step(q, res, parsed); from != to {
		return from, to, -1
	}
	return pairFirst(q, res, parsed)
}

// slotRank: slotFirst moves results among the first slotRank only, so
// which memories a question's first slotRank results hold never changes.
const slotRank = 5

// slotFirst: when the question names the thing whose value it asks for
// ("How many interviews have I secured…", "What is the deadline for the
// first sprint…"), the results among the first slotRank that state a
// value of that kind right beside that word ("I secured 3 interviews",
// "the new sprint deadline of April 5") answer it. The latest of them
// that gives another value than the first passes it when it says the
// value changed or was said in the same conversation (stored with one
// time: "…the fact that I secured 5 interviews"); the answer then passes
// the results above it that state no value of that kind beside any of
// the question's words, or only an earlier one, and name no more of
// them. The assistant's replies only repeat the user's
// values: they do not count, nor a value of another thing (a word right
// before the head word that neither the question nor the first has).
func slotFirst(q *facts.Asked, res []Said, parsed []*facts.Statement) (from, to int) {
	if q.Head() == "" {
		return 0, 0
	}
	first, latest := -1, -1
	var firstValues []string
	for i := range res[:min(len(res), slotRank)] {
		if res[i].Skip || res[i].Assistant {
			continue
		}
		values, changed := q.Slot(parsed[i])
		if len(values) == 0 {
			continue
		}
		if first < 0 {
			first, latest, firstValues = i, i, values
			continue
		}
		if later(&res[i], &res[latest]) && !within(values, firstValues) && !within(firstValues, values) &&
			(changed || res[i].At.Equal(res[first].At)) && !q.Foreign(parsed[i], parsed[first]) {
			latest = i
		}
	}
	if first < 0 {
		return 0, 0
	}
	covers := q.Covers(parsed[latest])
	to = first
	for to > 0 && q.Covers(parsed[to-1]) <= covers && (q.States(parsed[to-1]).Words == 0 || later(&res[latest], &res[to-1])) {
		to--
	}
	return latest, to
}

// within reports whether every value of a is in b.
func within(a, b []string) bool {
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	return true
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

// successorOf: when res[i], superseded, states the asked value and its
// latest successor among the results ranks below it, states a value of
// that kind for one same word of the question and says it changed ("my
// April 20 deadline for the peer-reviewed draft" / "the new April 25
// deadline"), the successor is the current value of what res[i]
// answered: it moves up to i. The store linked the two, so the
// successor needs only one of the question's words.
func successorOf(q *facts.Asked, res []Said, parsed []*facts.Statement, at map[string]int, i, need int) (int, bool) {
	j := i
	for range successorReach {
		k, ok := at[res[j].Successor]
		if res[j].Successor == "" || !ok || k <= i {
			break
		}
		j = k
	}
	if j == i {
		return 0, false
	}
	old := q.States(parsed[i])
	if old.Words < need {
		return 0, false
	}
	cur := q.States(parsed[j])
	if cur.Words == 0 || !cur.Changed || sameValues(cur.Values, old.Values) ||
		!slices.ContainsFunc(cur.Anchors, func(w string) bool { return slices.Contains(old.Anchors, w) }) {
		return 0, false
	}
	return j, true
}

// pairReach is how many of the first results pairFirst compares.
const pairReach = 10

// pairFirst: when two of the first pairReach results speak of what the
// question names and the later one gives another value of the kind it
// asks for (facts.Asked.Updated: the store's Relate on the pair, the
// question's words as the evidence that both are about its subject),
// the later one moves directly above the earlier: "now X" before "was
// Y", whether or not storing it linked the two. The highest-ranked
// earlier result that a later one below it updates is taken, and of its
// updates the latest. When the earlier is among the first slotRank and
// no result above it states such a value, the later passes those too.
// older is the earlier's place when the pair may be shown (shown).
func pairFirst(q *facts.Asked, res []Said, parsed []*facts.Statement) (from, to, older int) {
	n := min(len(res), pairReach)
	for i := range n {
		if res[i].Assistant {
			continue
		}
		newest := -1
		for j := i + 1; j < n; j++ {
			if res[j].Skip || res[j].Assistant || !later(&res[j], &res[i]) || newest >= 0 && !later(&res[j], &res[newest]) {
				continue
			}
			if q.Updated(parsed[i], parsed[j]) {
				newest = j
			}
		}
		if newest >= 0 {
			if passes(q, res, i) && !slices.ContainsFunc(parsed[:i], func(s *facts.Statement) bool { return q.States(s).Words > 0 }) {
				// No result above the earlier states such a value.
				return newest, 0, shown(parsed, i, newest)
			}
			return newest, i, shown(parsed, i, newest)
		}
	}
	return 0, 0, -1
}

// shown returns older when the store's gates between the user's turns
// hold for the pair (Relate: two words in common and no word saying which
// thing on one side only; the changed value beside the same word on both
// sides, or closestCommon words in common and a number, amount, date or
// time changed, with no name, place or negation: closestUpdate, the two
// being among the results standing for "closest"), so the results may
// show it as an update; -1 when not. The question's words order a looser
// pair, which is not shown (on BEAM a third of those were two things).
func shown(parsed []*facts.Statement, older, newer int) int {
	r := facts.RelateParsed(parsed[older], parsed[newer])
	if r.Kind != facts.Updates || r.Frame || r.Common < 2 || len(r.OneSided) > 0 {
		return -1
	}
	if !r.Anchored && (r.Common < closestCommon || !r.Counted() || slices.ContainsFunc(r.DiffersIn, func(k facts.Kind) bool {
		return k == facts.Negation || k == facts.Place || k == facts.Name
	})) {
		return -1
	}
	return older
}
