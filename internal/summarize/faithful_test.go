package summarize

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCheckFaithful(t *testing.T) {
	at := time.Date(2023, 5, 8, 19, 2, 0, 0, time.UTC)
	msgs := []Message{
		{Speaker: "Alice", Text: "Can we go to Italy in June? Flights are $1,200 for two.", Timestamp: at},
		{Speaker: "Bob", Text: "Yes, let's book three nights in Rome. The deadline is 2023-05-20.", Timestamp: at},
	}
	tests := []struct {
		summary string
		bad     string // "" if accepted; else a token the error must name
	}{
		{"Alice and Bob agreed to go to Italy in June; flights for two cost $1,200.", ""},
		{"Bob wants three nights in Rome, booked by 2023-05-20.", ""},
		{"They planned 3 nights in Rome and must book by May 20.", ""},            // "3" for "three"; May from the ISO date
		{"In May 2023, Alice proposed an Italian trip costing 1200 dollars.", ""}, // month and year of the timestamps; Italian ~ Italy
		{"Discussed a June trip. Booking is urgent.", ""},                         // sentence-initial verbs are not names
		{"Flights cost $1,500.", "1500"},
		{"Bob booked four nights in Rome.", "4"},
		{"Alice, Bob and Carol go to Rome.", "Carol"},
		{"They fly to Milan on Tuesday.", "Milan"},
		{"They leave on Tuesday.", "Tuesday"},
		{"Booking opens at 9am.", "9"},
	}
	for _, tt := range tests {
		err := checkFaithful(tt.summary, msgs, nil)
		switch {
		case tt.bad == "" && err != nil:
			t.Errorf("checkFaithful(%q) = %v, want nil", tt.summary, err)
		case tt.bad != "" && (!errors.Is(err, ErrUnfaithful) || !strings.Contains(err.Error(), tt.bad)):
			t.Errorf("checkFaithful(%q) = %v, want ErrUnfaithful naming %q", tt.summary, err, tt.bad)
		}
	}
}

func TestNumbersIn(t *testing.T) {
	got := numbersIn("It costs $1,200 on 2023-05-08 at 09:30 for twelve people, 3.5 hours")
	for _, want := range []string{"1200", "2023", "5", "8", "9", "30", "12", "3"} {
		if !got[want] {
			t.Errorf("numbersIn lacks %q: %v", want, got)
		}
	}
	if got["05"] || got["1"] {
		t.Errorf("numbersIn kept a raw form: %v", got)
	}
}
