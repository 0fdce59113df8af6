package memory

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestPairFirst: when two of the first ten results speak of what the
// question names and the later one gives another value of the kind it
// asks for, the later one moves directly above the earlier, from as far
// as the tenth result, and each rank keeps its confidence. A later value
// of a differently qualified thing, one that drops the question's head
// word, the assistant's reply, and a value said before the one ranked
// higher move nothing. From among the first five, it passes the results
// above the earlier too when none of them states such a value.
func TestPairFirst(t *testing.T) {
	day := func(n int) time.Time { return time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, n) }
	const (
		probateQ = "How long does the probate process usually take in Montserrat?"
		sixNine  = "I've got a question about the probate process that Stephanie explained, which typically takes 6-9 months in Montserrat."
		fiveSev  = "I'm kinda worried about the probate process, so can you tell me more about how it was shortened to 5-7 months and what that means for my planning?"
		filler   = "I filed my will with the court electronically and want to know the next steps in Montserrat."
		stated   = "My lawyer says filing the papers for the probate process takes 2 weeks."

		targetQ  = "What is my weekly word count target for my writing goals?"
		target   = "I just found out my weekly word count target was adjusted to 1,350 words."
		reached  = "I've increased my weekly word count from 1,200 to 1,500 words by April 9."
		budgetQ  = "What is my monthly budget for books?"
		budget35 = "I spent $43 on books, which is $8 over my $35 monthly budget."
		budget75 = "I've increased my April-June book budget to $75."
	)
	type said struct {
		text      string
		at        time.Time
		assistant bool
	}
	order := func(query string, in ...said) []string {
		res := make([]Memory, len(in))
		for i, s := range in {
			res[i] = Memory{ID: fmt.Sprintf("%024x", i), Text: s.text, Timestamp: s.at, Confidence: 0.9 - 0.05*float64(i), Speaker: "user"}
			if s.assistant {
				res[i].Speaker = "assistant"
			}
		}
		currentFirst(query, res)
		var out []string
		for i, m := range res {
			if m.Confidence != 0.9-0.05*float64(i) {
				t.Fatalf("rank %d confidence %v", i, m.Confidence)
			}
			out = append(out, m.Text)
		}
		return out
	}
	fill := func(n int) []said {
		var out []said
		for i := range n {
			out = append(out, said{fmt.Sprintf("%s (%d)", filler, i), day(1), false})
		}
		return out
	}
	for _, c := range []struct {
		name  string
		query string
		in    []said
		want  []string
	}{
		{"the later value moves above the earlier", probateQ,
			append(append([]said{{sixNine, day(0), false}}, fill(7)...), said{fiveSev, day(2), false}), nil},
		{"the earlier value said later", probateQ,
			append(append([]said{{sixNine, day(3), false}}, fill(7)...), said{fiveSev, day(2), false}), []string{sixNine}},
		{"the assistant's reply", probateQ,
			append(append([]said{{sixNine, day(0), false}}, fill(7)...), said{fiveSev, day(2), true}), []string{sixNine}},
		{"beyond the first ten", probateQ,
			append(append([]said{{sixNine, day(0), false}}, fill(9)...), said{fiveSev, day(2), false}), []string{sixNine}},
		{"the head word dropped", targetQ, append([]said{{target, day(0), false}}, append(fill(3), said{reached, day(9), false})...), []string{target}},
		{"another budget", budgetQ, append([]said{{budget35, day(0), false}}, append(fill(3), said{budget75, day(9), false})...), []string{budget35}},
		// Among the first five with nothing above the earlier stating such
		// a value, the later passes that too; above a result that states
		// one it stops right above the earlier.
		{"the earlier second, nothing above stating a value", probateQ,
			append(append([]said{{filler, day(1), false}, {sixNine, day(0), false}}, fill(4)...), said{fiveSev, day(2), false}), []string{fiveSev, filler, sixNine}},
		{"the earlier second, a value above", probateQ,
			append(append([]said{{stated, day(3), false}, {sixNine, day(0), false}}, fill(4)...), said{fiveSev, day(2), false}), []string{stated, fiveSev, sixNine}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == nil {
				want = []string{c.in[len(c.in)-1].text, c.in[0].text}
			}
			got := order(c.query, c.in...)
			if !slices.Equal(got[:len(want)], want) {
				t.Fatalf("order\n got %q\nwant %q first", got, want)
			}
		})
	}
}

// TestPairFirstShown: a pair pairFirst orders is shown as an update
// (supersedes / superseded_by) in the results of that search when the
// store's gates between turns hold for it (four words in common and a
// changed percentage); a pair ordered on the question's words alone (the
// probate durations share three) and a move on a stated value alone add
// no link.
func TestPairFirstShown(t *testing.T) {
	day := func(n int) time.Time { return time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, n) }
	const (
		coverageQ = "What is the test coverage percentage for my API integration module?"
		cov65     = "I've currently reached 65% test coverage on my API integration module after my initial test suite run."
		cov78     = "I'm trying to increase the test coverage for my API integration, which has recently improved to 78%."
		probateQ  = "How long does the probate process usually take in Montserrat?"
		sixNine   = "I've got a question about the probate process that Stephanie explained, which typically takes 6-9 months in Montserrat."
		fiveSev   = "I'm kinda worried about the probate process, so can you tell me more about how it was shortened to 5-7 months and what that means for my planning?"
		filler    = "I filed my will with the court electronically and want to know the next steps in Montserrat."
	)
	mk := func(texts []string, days []int) []Memory {
		res := make([]Memory, len(texts))
		for i := range texts {
			res[i] = Memory{ID: fmt.Sprintf("%024x", i+1), Text: texts[i], Timestamp: day(days[i]), Confidence: 0.9 - 0.05*float64(i), Speaker: "user"}
		}
		return res
	}
	res := mk([]string{cov65, filler + " (1)", filler + " (2)", cov78}, []int{0, 1, 1, 2})
	oldID, newID := res[0].ID, res[3].ID
	currentFirst(coverageQ, res)
	if res[0].ID != newID || res[1].ID != oldID {
		t.Fatalf("order: %q", []string{res[0].Text, res[1].Text})
	}
	if len(res[0].Supersedes) != 1 || res[0].Supersedes[0].ID != oldID || res[0].Supersedes[0].Text != cov65 {
		t.Fatalf("newer supersedes %+v", res[0].Supersedes)
	}
	if res[1].SupersededBy == nil || res[1].SupersededBy.ID != newID {
		t.Fatalf("older superseded_by %+v", res[1].SupersededBy)
	}
	for _, m := range res[2:] {
		if m.SupersededBy != nil || len(m.Supersedes) > 0 {
			t.Fatalf("a filler linked: %+v", m)
		}
	}

	res = mk([]string{sixNine, filler + " (1)", filler + " (2)", fiveSev}, []int{0, 1, 1, 2})
	currentFirst(probateQ, res)
	if res[0].Text != fiveSev {
		t.Fatalf("probate: order %q", []string{res[0].Text, res[1].Text})
	}
	if res[0].Supersedes != nil || res[1].SupersededBy != nil {
		t.Fatalf("probate: linked %+v / %+v", res[0].Supersedes, res[1].SupersededBy)
	}

	res = mk([]string{"My application deadline is May 10.", "The application deadline was extended to May 20."}, []int{0, 2})
	currentFirst("When is my application deadline?", res)
	if res[0].Text != "The application deadline was extended to May 20." {
		t.Fatalf("stated value: order %q", []string{res[0].Text, res[1].Text})
	}
	if res[0].Supersedes != nil || res[1].SupersededBy != nil {
		t.Fatalf("stated value: linked %+v / %+v", res[0].Supersedes, res[1].SupersededBy)
	}
}
