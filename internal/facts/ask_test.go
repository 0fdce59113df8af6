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
		"What is my monthly grocery budget?":                          true,
		"How many sources are in my Zotero library?":                  true,
		"When is my Zoom call with the creative director scheduled?":  true,
		"What time should I join the Zoom meeting with Danielle?":     true,
		"By what date am I aiming to complete my onboarding modules?": true,
		"How many commits have been merged into the main branch?":     true,
		"When is the deadline for the first sprint?":                  true,
		"How many words are in my first draft?":                       true,
		"What is the daily quota for the API key used in my app?":     true,
		"What did I used to pay for rent?":                            false,
		"What is the rent I used to pay?":                             false,
		"When did I move to Lisbon?":                                  false,
		"What budget did I first set for the trip?":                   false,
		"Which city did I visit first?":                               false,
		"What was my original budget for sneakers?":                   false,
		"How many days are there between the two deadlines?":          false,
		"How many different AI tools have I mentioned?":               false,
		"How does the price I paid compare to my budget?":             false,
		"Who is my manager?":                                          false,
		"Tell me about the launch.":                                   false,
		"budget":                                                      false,
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
}
