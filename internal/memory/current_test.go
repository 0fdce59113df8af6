package memory

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
)

// TestCurrentFirst: for a question about a value as it stands now, the
// latest result that says the value of the question's thing changed
// passes the first that states it; the ranks keep their confidences.
// Questions about the past, values of another thing, a later mention that
// says nothing changed, or the same value again leave the order alone.
func TestCurrentFirst(t *testing.T) {
	day := func(n int) time.Time { return time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, n) }
	const (
		older  = "I'm considering applying for the senior producer role at Montserrat Media, especially with the application deadline being May 10."
		other  = "I'm feeling ready for the interview panel and I've read the brief twice."
		newer  = "I'm kinda stressed about this senior producer role application, and I just found out the deadline was extended to May 20, so I can polish my reel."
		role   = "I'm feeling overwhelmed with my new senior producer role starting July 1."
		same   = "Just found out the application deadline was confirmed as May 10 again."
		noCue  = "I keep thinking about the application deadline of May 24 for the other studio."
		deadQ  = "When is the deadline for submitting my application for the senior producer role?"
		pastQ  = "When was the original deadline for my senior producer application?"
		budget = "What is my monthly grocery budget?"
		// Claude writes about "the user": the word names no subject.
		userOld = "User's piano recital is on March 3."
		userNew = "The piano recital moved to March 10."
		userQ   = "When is the user's piano recital?"
	)
	results := func(ts ...any) []Memory {
		var out []Memory
		for i := 0; i < len(ts); i += 2 {
			out = append(out, Memory{ID: fmt.Sprintf("%024x", i), Text: ts[i].(string), Timestamp: ts[i+1].(time.Time), Confidence: 0.9 - 0.1*float64(i/2)})
		}
		return out
	}
	order := func(res []Memory) []string {
		var out []string
		for _, m := range res {
			out = append(out, m.Text)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		query string
		res   []Memory
		want  []string
	}{
		{"newer passes older", deadQ, results(older, day(0), other, day(1), newer, day(2)), []string{newer, older, other}},
		{"question about the past", pastQ, results(older, day(0), other, day(1), newer, day(2)), []string{older, other, newer}},
		{"another thing of the same words", deadQ, results(older, day(0), role, day(60)), []string{older, role}},
		{"the same value again", deadQ, results(older, day(0), same, day(5)), []string{older, same}},
		{"says nothing changed", deadQ, results(older, day(0), noCue, day(5)), []string{older, noCue}},
		{"newer already first", deadQ, results(newer, day(2), older, day(0)), []string{newer, older}},
		{"stored in one batch: the later stored", deadQ, results(older, day(0), newer, day(0)), []string{newer, older}},
		{"not asked about", budget, results(older, day(0), newer, day(2)), []string{older, newer}},
		{"the user is no subject word", userQ, results(userOld, day(0), userNew, day(5)), []string{userNew, userOld}},
	} {
		t.Run(c.name, func(t *testing.T) {
			confs := make([]float64, len(c.res))
			for i, m := range c.res {
				confs[i] = m.Confidence
			}
			currentFirst(c.query, c.res)
			if got := order(c.res); !slices.Equal(got, c.want) {
				t.Fatalf("order\n got %q\nwant %q", got, c.want)
			}
			for i, m := range c.res {
				if m.Confidence != confs[i] {
					t.Fatalf("rank %d confidence %v, was %v", i, m.Confidence, confs[i])
				}
			}
		})
	}
	// A superseded memory (its successor known) is not current.
	res := results(older, day(0), newer, day(2))
	res[1].SupersededBy = &Link{ID: "x"}
	currentFirst(deadQ, res)
	if res[0].Text != older {
		t.Fatalf("a superseded memory passed: %q", order(res))
	}

	// A superseded first result's successor among the results takes its
	// place, though it names only one of the question's words; unlinked,
	// it does not move.
	const short = "I'm kinda worried that I won't meet the new deadline they gave me, May 20."
	res = results(older, day(0), other, day(1), short, day(0))
	currentFirst(deadQ, res)
	if got, want := order(res), []string{older, other, short}; !slices.Equal(got, want) {
		t.Fatalf("unlinked: got %q, want %q", got, want)
	}
	res = results(older, day(0), other, day(1), short, day(0))
	res[0].SupersededBy = &Link{ID: res[2].ID}
	currentFirst(deadQ, res)
	if got, want := order(res), []string{short, older, other}; !slices.Equal(got, want) {
		t.Fatalf("successor: got %q, want %q", got, want)
	}
	// ... but not a successor that does not say the value changed (it
	// passes the result stating nothing, as the only one giving a date
	// right beside "deadline": slotFirst).
	const noChange = "I'm kinda worried that I won't meet the May 20 deadline."
	res = results(older, day(0), other, day(1), noChange, day(0))
	res[0].SupersededBy = &Link{ID: res[2].ID}
	currentFirst(deadQ, res)
	if got, want := order(res), []string{older, noChange, other}; !slices.Equal(got, want) {
		t.Fatalf("successor saying no change: got %q, want %q", got, want)
	}

	// A recorded update stating the value passes results stating none;
	// not recorded, it passes them too from among the first five (which
	// memories those are does not change), not from below.
	res = results(other, day(1), newer, day(2))
	currentFirst(deadQ, res)
	if got, want := order(res), []string{newer, other}; !slices.Equal(got, want) {
		t.Fatalf("not recorded: got %q, want %q", got, want)
	}
	res = results(other, day(1), other, day(1), other, day(1), other, day(1), other, day(1), newer, day(2))
	currentFirst(deadQ, res)
	if got := order(res); got[0] != other || got[5] != newer {
		t.Fatalf("not recorded, sixth: got %q", got)
	}
	// The later value passing the first stated passes a result above
	// that states none too, from among the first five.
	res = results(other, day(1), older, day(0), newer, day(2))
	currentFirst(deadQ, res)
	if got, want := order(res), []string{newer, other, older}; !slices.Equal(got, want) {
		t.Fatalf("passing the first stated: got %q, want %q", got, want)
	}
	// ... not for a question that names no kind of value ("What…").
	res = results(other, day(1), newer, day(2))
	currentFirst("What is new with my senior producer application?", res)
	if got, want := order(res), []string{other, newer}; !slices.Equal(got, want) {
		t.Fatalf("no kind named: got %q, want %q", got, want)
	}
	// ... nor the assistant's reply.
	res = results(other, day(1), newer, day(2))
	res[1].Speaker = "assistant"
	currentFirst(deadQ, res)
	if got, want := order(res), []string{other, newer}; !slices.Equal(got, want) {
		t.Fatalf("assistant: got %q, want %q", got, want)
	}
	res = results(other, day(1), newer, day(2))
	res[1].Supersedes = []Link{{ID: "x"}}
	currentFirst(deadQ, res)
	if got, want := order(res), []string{newer, other}; !slices.Equal(got, want) {
		t.Fatalf("recorded update: got %q, want %q", got, want)
	}
	// ... above a result stating another value it does not pass.
	res = results(role, day(60), newer, day(2))
	res[1].Supersedes = []Link{{ID: "x"}}
	currentFirst(deadQ, res)
	if got, want := order(res), []string{role, newer}; !slices.Equal(got, want) {
		t.Fatalf("above a stated value: got %q, want %q", got, want)
	}
}

// TestCurrentValueThroughSearch: a long conversation turn mentioning in
// passing that a value changed is not linked at store time (between turns
// the change must stand next to the same word on both sides), but a
// question about the value gets it first (without currentFirst the older
// ranks first).
func TestCurrentValueThroughSearch(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	older := mustStore(t, e, StoreRequest{Speaker: "user", Timestamp: daysAgo(30),
		Content: "I'm considering applying for the senior producer role at Montserrat Media Corp, but I'm not sure I'm ready, especially with the application deadline being May 10."})
	mustStore(t, e, StoreRequest{Speaker: "user", Timestamp: daysAgo(20), Content: "I'm preparing a portfolio of five major projects for the producer interview."})
	newer := mustStore(t, e, StoreRequest{Speaker: "user", Timestamp: daysAgo(10),
		Content: "I'm kinda stressed about this senior producer role application, and I just found out the deadline was extended to May 20, so I'm wondering how to use the extra time."})
	ids, res := searchIDs(t, e, "When is the deadline for submitting my application for the senior producer role at Montserrat Media Corp?")
	if len(ids) == 0 || ids[0] != newer.ID {
		t.Fatalf("newer not first: %q", texts(res.Results))
	}
	if i := slices.Index(ids, older.ID); i < 1 {
		t.Fatalf("older at %d: %q", i, texts(res.Results))
	}
	for i := 1; i < len(res.Results); i++ {
		if res.Results[i].Confidence > res.Results[i-1].Confidence {
			t.Fatalf("confidences not monotone: %v", res.Results)
		}
	}
}
