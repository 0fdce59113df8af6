package memory

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestSlotFirst: when the question names the thing whose value it asks
// for ("How many interviews…"), the latest user turn giving another value
// right beside that word passes the first that gives one when it says
// the value changed or was said in the same conversation; an answer
// passes results above it that give none and name no more of the
// question's words. The assistant's replies, another day's mention with
// no change word, a value of a differently qualified thing and a restated
// first value move nothing.
func TestSlotFirst(t *testing.T) {
	day := func(n int) time.Time { return time.Date(2024, 4, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, n) }
	const (
		interviewsQ = "How many interviews have I secured for executive producer roles?"
		three       = "I'm kinda worried that I only secured 3 interviews for executive producer roles between April 25 and May 1, is that a good sign for my resume?"
		resume      = "I want to improve my resume to boost confidence applying for executive producer roles."
		five        = "I'm kinda curious how I can leverage the fact that I secured 5 interviews to get more callbacks?"

		sprintQ   = "What is the deadline for completing the first sprint focused on the basic layout and navigation?"
		sprintOld = "I have a deadline of April 1, 2024, for the first sprint, which covers the basic layout and navigation of my portfolio website."
		sprintNew = "I'm trying to update my project timeline to reflect the new sprint deadline of April 5, 2024, can you help me?"

		cardsQ  = "How many project cards are included in my gallery?"
		launch  = "I'm finalizing my portfolio's project gallery before the public launch on May 10, can you help?"
		cards10 = "I've added two new projects, so now my project gallery has a total of 10 cards."

		budgetQ  = "What is my monthly budget for books?"
		budget35 = "I'm worried that I spent $43 on books, which is $8 over my $35 monthly budget."
		budget75 = "I've increased my April-June book budget to $75."
		again35  = "I spent $18 on one novel, exceeding my $35 monthly budget by $8."

		bathroomQ = "What's our budget for the bathroom?"
		bathroom  = "We increased the bathroom renovation budget to £11,500."
		hermes    = "The Hermes project budget is £55,000."
	)
	type said struct {
		text      string
		at        time.Time
		assistant bool
	}
	order := func(query string, in ...said) []string {
		res := make([]Memory, len(in))
		for i, s := range in {
			res[i] = Memory{ID: fmt.Sprintf("%024x", i), Text: s.text, Timestamp: s.at, Confidence: 0.9 - 0.1*float64(i), Speaker: "user"}
			if s.assistant {
				res[i].Speaker = "assistant"
			}
		}
		currentFirst(query, res)
		var out []string
		for i, m := range res {
			if m.Confidence != 0.9-0.1*float64(i) {
				t.Fatalf("rank %d confidence %v", i, m.Confidence)
			}
			out = append(out, m.Text)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		query string
		in    []said
		want  []string
	}{
		{"same conversation, no change word", interviewsQ, []said{{three, day(0), false}, {resume, day(0), false}, {five, day(0), false}}, []string{five, three, resume}},
		{"the assistant repeating", interviewsQ, []said{{three, day(0), false}, {resume, day(0), false}, {five, day(0), true}}, []string{three, resume, five}},
		{"another day, no change word", interviewsQ, []said{{three, day(0), false}, {resume, day(0), false}, {five, day(9), false}}, []string{three, resume, five}},
		{"names fewer words, says it changed", sprintQ, []said{{sprintOld, day(0), false}, {sprintNew, day(3), false}}, []string{sprintNew, sprintOld}},
		{"an answer passes results stating none", cardsQ, []said{{launch, day(40), false}, {cards10, day(9), false}}, []string{cards10, launch}},
		{"another budget", budgetQ, []said{{budget35, day(0), false}, {budget75, day(50), false}}, []string{budget35, budget75}},
		{"another thing's budget", bathroomQ, []said{{bathroom, day(0), false}, {hermes, day(0), false}}, []string{bathroom, hermes}},
		{"the first value restated", budgetQ, []said{{budget35, day(0), false}, {again35, day(0), false}}, []string{budget35, again35}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := order(c.query, c.in...); !slices.Equal(got, c.want) {
				t.Fatalf("order\n got %q\nwant %q", got, c.want)
			}
		})
	}
	// Moves stay among the first five results.
	in := []said{{three, day(0), false}}
	for range 4 {
		in = append(in, said{resume, day(0), false})
	}
	in = append(in, said{five, day(0), false})
	if got := order(interviewsQ, in...); got[0] != three {
		t.Fatalf("moved from beyond the first five: %q", got)
	}
}
