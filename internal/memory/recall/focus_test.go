package recall

import (
	"slices"
	"testing"
)

// TestReadFocus: the detail a question asks for, and none for a question
// that asks what someone did, for a value (AnswerAbsent's), or for a
// whole.
func TestReadFocus(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"What specific techniques were taught in Michele's July 8 workshop?", []string{"techniques"}},
		{"What was the atmosphere like at the dinner celebrating the casting?", []string{"atmosphere"}},
		{"What are Alexis’s specific plans and strategies for launching the business?", []string{"plans", "strategies"}},
		{"What was my emotional reaction to confusing the two events?", []string{"reaction"}},
		{"How did Kimberly and Bradley react emotionally to the suggestion?", []string{"reaction"}},
		{"Can you share the agenda or structure of the sessions?", []string{"agenda", "structure"}},
		{"Which storytelling techniques did Shawn recommend?", []string{"techniques"}},
		{"What's Maria's favourite dessert?", []string{"dessert"}},
		{"What are the qualifications of the senior content strategist?", []string{"qualifications"}},
		{"What kind of music does Tim play?", []string{"music"}},
		{"What was discussed during the meeting on March 20?", nil},
		{"What did Caroline research?", nil},
		{"what's new with my sister", nil},
		{"What's the latest news on the house sale?", nil},
		{"Which is better?", nil},
		{"What was the rationale behind choosing Formspree?", []string{"rationale"}},
		{"What might John's degree be in?", nil},
		{"What is the test coverage percentage for my API module?", nil},
		{"What dates did I mention for the scholarship deadline?", nil},
		{"What was the age and role of the mentor?", nil},
		{"Can you give me a summary of how my plans developed?", nil},
		{"How did the user feedback influence the UI?", nil},
		{"where do I work", nil},
	} {
		if got := readFocus(c.q); !slices.Equal(got, c.want) {
			t.Errorf("%q: focus %q, want %q", c.q, got, c.want)
		}
	}
}

// TestFocusAbsent: flagged only when no word of the texts is the focus,
// its lemma, a synonym or a word of its stem.
func TestFocusAbsent(t *testing.T) {
	dinner := "I just celebrated finishing casting by April 20 with a dinner at The Coral Reef, which cost $120 for four guests."
	for _, c := range []struct {
		q     string
		texts []string
		want  bool
	}{
		{"What was the atmosphere like at the dinner celebrating the casting completion?", []string{dinner}, true},
		{"What was the atmosphere like at the dinner celebrating the casting completion?", []string{dinner, "The atmosphere was relaxed and warm."}, false},
		{"What was the atmosphere like at the dinner?", []string{"The ambiance at dinner was lovely."}, false},                          // a synonym
		{"What specific advice did Bryan give about my profile?", []string{"Bryan advised me to shorten my profile's summary."}, false}, // the stem
		{"What specific advice did Bryan give about my profile?", []string{"I updated my profile with Bryan on April 20."}, true},
		{"How did Kim react to the plan?", []string{"Kim's reaction to the plan was calm."}, false},
		{"How did Kim react to the plan?", []string{"I told Kim about the plan yesterday."}, true},
		{"What techniques were taught in the workshop?", []string{"Michele's workshop taught me new technique drills."}, false}, // singular
		{"What was discussed at the meeting?", []string{"We had a meeting."}, false},                                            // no focus
		{"What specific techniques were taught?", nil, false},
	} {
		if got := FocusAbsent(c.q, c.texts); got != c.want {
			t.Errorf("%q over %q: %v, want %v", c.q, c.texts, got, c.want)
		}
	}
}
