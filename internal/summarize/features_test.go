package summarize

import "testing"

func TestDetectFeatures(t *testing.T) {
	// The corpus knows these words in lower case, as a conversation
	// around the sentences would.
	c := newCorpus([][]token{words("we booked it and the weather was fine")})
	tests := []struct {
		s    string
		want features
	}{
		{"See you on June 5", features{date: true, number: true}},
		{"The deadline is 2023-03-05", features{date: true, number: true, decision: true}},
		{"Let's meet next Tuesday", features{date: true, decision: true}},
		{"Call me at 3pm", features{date: true, number: true}},
		{"call me tomorrow morning", features{date: true}},
		{"in two weeks we fly", features{date: true, number: true}},
		{"that was three days ago", features{date: true, number: true}},
		{"we should go in May", features{date: true}},
		{"you may want a coat", features{}},
		{"May I ask something", features{}},
		{"It costs $300", features{number: true}},
		{"we have 3 kids", features{number: true}},
		{"about forty people came", features{number: true}},
		{"I talked to Sarah about it", features{name: true}},
		{"Sarah is coming too", features{name: true}},
		{"Booked the cabin", features{decision: true}},
		{"Weather looks nice", features{}},
		{"I think so", features{}},
		{"I'm not sure about that", features{}},
		{"The API is down", features{name: true}},
		{"We decided on the blue one", features{decision: true}},
		{"we agreed to split it", features{decision: true}},
		{"I'll bring the tent", features{decision: true}},
		{"we plan to leave early", features{decision: true}},
		{"i'm going to call them", features{decision: true}},
		{"she promised to help", features{decision: true}},
		{"you must bring a passport", features{decision: true}},
		{"details are at https://example.com/x", features{ref: true}},
		{"mail it to bob@example.com", features{ref: true}},
		{"the view was lovely", features{}},
		{"we won’t go", features{decision: true}},
		{"I’ll call", features{decision: true}},
		{"don't forget the charger", features{decision: true}},
		{"what to do about it", features{}},
		{"we meet on mondays", features{date: true}},
		{"see you at 8 o'clock", features{date: true, number: true}},
		{"a couple of weeks ago", features{date: true}},
	}
	for _, tt := range tests {
		t.Run(tt.s, func(t *testing.T) {
			got := detect(tt.s, words(tt.s), c)
			if got != tt.want {
				t.Errorf("detect(%q) = %+v, want %+v", tt.s, got, tt.want)
			}
		})
	}
}

func TestAcks(t *testing.T) {
	for _, s := range []string{"ok", "OK!", "Thanks!", "thank you so much", "lol", "sounds good", "Sounds good, thanks!",
		"Great, see you then", "👍 ok", "Will do.", "Yes", "no problem", "Got it, makes sense", "Thanks Lena.", "OK Bob"} {
		if !isAck(words(s)) {
			t.Errorf("isAck(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"ok, 3pm works", "Thanks, I'll book it tomorrow", "lol that hotel was awful",
		"Sounds good, Alice will drive", "", "I booked the flight", "Thanks Lena, the mockups look great", "Thanks NASA"} {
		if isAck(words(s)) {
			t.Errorf("isAck(%q) = true, want false", s)
		}
	}
}

func TestWordsMarksInitialPositions(t *testing.T) {
	toks := words(`Note: Alice said "Great" and I'll go`)
	var initial []string
	for _, tk := range toks {
		if tk.initial {
			initial = append(initial, tk.text)
		}
	}
	want := []string{"Note", "Alice", "Great"}
	if len(initial) != len(want) {
		t.Fatalf("initial tokens %q, want %q", initial, want)
	}
	for i := range want {
		if initial[i] != want[i] {
			t.Fatalf("initial tokens %q, want %q", initial, want)
		}
	}
	if toks[len(toks)-2].text != "I'll" {
		t.Errorf("apostrophe split the word: %q", toks[len(toks)-2].text)
	}
}
