package facts

import (
	"slices"
	"testing"
)

// TestAskCurrent: questions about a value as it stands now are read;
// questions about the past, about several memories at once, or that ask
// for no value are not.
func TestAskCurrent(t *testing.T) {
	for q, current := range map[string]bool{
		"What is my monthly grocery budget?":                                       true,
		"How many sources are in my Zotero library?":                               true,
		"When is my Zoom call with the creative director scheduled?":               true,
		"What time should I join the Zoom meeting with Danielle?":                  true,
		"By what date am I aiming to complete my onboarding modules?":              true,
		"How many commits have been merged into the main branch?":                  true,
		"When is the deadline for the first sprint?":                               true,
		"How many words are in my first draft?":                                    true,
		"What is the daily quota for the API key used in my app?":                  true,
		"What did I used to pay for rent?":                                         false,
		"What is the rent I used to pay?":                                          false,
		"When did I move to Lisbon?":                                               false,
		"What budget did I first set for the trip?":                                false,
		"Which city did I visit first?":                                            false,
		"What was my original budget for sneakers?":                                false,
		"How many days are there between the two deadlines?":                       false,
		"How many different AI tools have I mentioned?":                            false,
		"How does the price I paid compare to my budget?":                          false,
		"Who is my manager?":                                                       false,
		"Tell me about the launch.":                                                false,
		"budget":                                                                   false,
		"When building an app that calls a REST API, what errors should I handle?": false,
	} {
		if got := AskCurrent(q) != nil; got != current {
			t.Errorf("AskCurrent(%q) = %v, want %v", q, got, current)
		}
	}
}

// TestStates: what a statement says of the asked value, and whether it
// says the value changed.
func TestStates(t *testing.T) {
	q := AskCurrent("When is the deadline for my senior producer application?")
	for _, c := range []struct {
		text    string
		words   int
		values  []string
		changed bool
		anchor  string
	}{
		{"I just found out the deadline for the application was extended to May 20.", 2, []string{"20", "may"}, true, "application"},
		{"I'm applying with the application deadline being May 10.", 2, []string{"10", "may"}, false, "application"},
		{"I enjoyed the producer workshop.", 0, nil, false, ""},
		{"Is the application deadline May 10?", 0, nil, false, ""},
		// A statement before the question of a short sentence states.
		{"I've moved my application deadline to May 24, can you help me plan the producer portfolio?", 2, []string{"24", "may"}, true, "application"},
		// A clause that asks, or a condition, states nothing.
		{"Can you check the application deadline, May 10, for the producer role?", 0, nil, false, ""},
		{"If the application deadline is May 10, what should the producer send first?", 0, nil, false, ""},
	} {
		st := q.States(Parse(c.text))
		slices.Sort(st.Values)
		if st.Words != c.words || st.Changed != c.changed || !slices.Equal(st.Values, c.values) {
			t.Errorf("%q: %+v %q", c.text, st, st.Values)
		}
		if c.anchor != "" && !slices.Contains(st.Anchors, stem(c.anchor)) {
			t.Errorf("%q: anchors %v lack %q", c.text, st.Anchors, c.anchor)
		}
	}
	// A value the question gives itself is not the value it asks for.
	q = AskCurrent("How many project cards are included in my gallery using Bootstrap 5.3.0?")
	for text, want := range map[string]int{
		"I'm testing my project gallery with Bootstrap 5.3.0 before the launch.":                0,
		"I've added two new projects to my gallery, so now I have a total of 10 project cards.": 3,
	} {
		if st := q.States(Parse(text)); st.Words != want || slices.Contains(st.Values, "5.3.0") {
			t.Errorf("%q: %+v, want %d words without 5.3.0", text, st, want)
		}
	}
}

// TestHeadOf: the word a question's value belongs to, and the words
// before it in its noun phrase.
func TestHeadOf(t *testing.T) {
	for q, want := range map[string][]string{
		"How many project cards are included in my gallery?":                   {"card", "project"},
		"How many interviews have I secured for executive producer roles?":     {"interv"},
		"What is the deadline for completing the first sprint?":                {stem("deadline")},
		"What is my accuracy percentage in solving area calculation problems?": {"accura"},
		"What is my monthly budget for books and subscriptions?":               {"budget", "monthly"},
		"When is my Zoom call with the creative director scheduled?":           {"call"},
		"How many hours of overtime have I tracked most recently?":             {"hour"},
		"What is the total budget allocated for software licenses?":            {"budget"},
		"What time should I join the Zoom meeting with Danielle?":              {""},
		"Is the launch still on?":                                              {""},
	} {
		head, mods := headOf(scan(prose(q)))
		if got := append([]string{head}, mods...); !slices.Equal(got, want) {
			t.Errorf("headOf(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestSlot: the values that stand right beside the question's head word,
// and only in a statement with the words the question puts before it.
func TestSlot(t *testing.T) {
	for _, c := range []struct {
		q, text string
		values  []string
		changed bool
	}{
		{"How many interviews have I secured?", "I'm kinda curious how I can leverage the fact that I secured 5 interviews to improve my resume?", []string{"5"}, false},
		{"How many interviews have I secured?", "I secured 5 callbacks and sent 12 applications for interview slots.", nil, false},
		{"What is the deadline for the first sprint?", "I'm trying to update my timeline to reflect the new sprint deadline of April 5, 2024.", []string{"5", "april"}, true},
		{"What is my monthly budget for books?", "I've increased my April-June book budget to $75.", nil, false},
		{"What is my monthly budget for books?", "I spent $43 on books, which is $8 over my $35 monthly budget.", []string{"35"}, false},
		{"How many classification problems have I completed?", "I've already completed 15 problems with 95% accuracy.", nil, false},
		{"How many project cards are in my gallery?", "If I add 3 cards to the project gallery, will it fit?", nil, false},
		{"What time should I join the meeting?", "The meeting moved to 3 PM.", nil, false},
		// A value the question gives itself says which thing, not how many.
		{"How many project cards are in my gallery using Bootstrap 5.3.0?", "My gallery has 8 project cards, all on Bootstrap 5.3.0.", []string{"8"}, false},
		{"How many project cards are in my gallery using Bootstrap 5.3.0?", "The Bootstrap 5.3.0 project cards look great.", nil, false},
	} {
		values, changed := AskCurrent(c.q).Slot(Parse(c.text))
		slices.Sort(values)
		want := slices.Clone(c.values)
		slices.Sort(want)
		if !slices.Equal(values, want) || changed != c.changed {
			t.Errorf("%q / %q: %q %v, want %q %v", c.q, c.text, values, changed, want, c.changed)
		}
	}
}

// TestUpdated: at question time a later statement updates an earlier one
// when it gives another value of the asked kind to the same thing,
// about the question's words; not when it names the thing with a word
// the question puts before it only on the older side, when it lacks the
// question's qualifier or head word that the older has, or when nothing
// changed.
func TestUpdated(t *testing.T) {
	for _, c := range []struct {
		name, query, older, newer string
		want                      bool
	}{
		{"a changed percentage", "What is the test coverage percentage for my API integration module?",
			"I've currently reached 65% test coverage on my API integration module after my initial test suite run.",
			"I'm trying to increase the test coverage for my API integration, which has recently improved to 78%.", true},
		{"a changed duration", "How long does the probate process usually take in Montserrat?",
			"I've got a question about the probate process that Stephanie explained, which typically takes 6-9 months in Montserrat.",
			"I'm kinda worried about the probate process, so can you tell me more about how it was shortened to 5-7 months and what that means for my planning?", true},
		{"the same value", "What is the test coverage percentage for my API integration module?",
			"I've currently reached 65% test coverage on my API integration module.",
			"The test coverage on my API integration module has now reached 65%, as I said.", false},
		{"another thing named on the older side", "How many problems of triangle classification have I completed?",
			"I've never attempted any triangle classification problems before, but I recently completed 15 classification problems with a consistent accuracy rate above 80%",
			"I'm trying to understand how my accuracy in area calculation problems has improved, I've completed 12 problems and my accuracy has gone from 70% to 90%, and I've also applied the median length formula to a triangle with sides 9, 12, 15 cm", false},
		{"the qualifier only on the older side", "What is my monthly budget for books?",
			"I spent $43 on books, which is $8 over my $35 monthly budget.",
			"I've increased my April-June book budget to $75.", false},
		{"the head word only on the older side", "What is my weekly word count target for my writing goals?",
			"I just found out my weekly word count target was adjusted to 1,350 words.",
			"I've increased my weekly word count from 1,200 to 1,500 words by April 9.", false},
		{"nothing of the question shared", "What is my monthly budget for books?",
			"My gym membership costs $35 a month.",
			"My gym membership now costs $45 a month.", false},
	} {
		q := AskCurrent(c.query)
		if q == nil {
			t.Fatalf("%s: AskCurrent(%q) = nil", c.name, c.query)
		}
		if got := q.Updated(Parse(c.older), Parse(c.newer)); got != c.want {
			t.Errorf("%s: Updated = %v, want %v (Relate %+v)", c.name, got, c.want, Relate(c.older, c.newer))
		}
	}
}
