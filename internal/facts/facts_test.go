package facts

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestDifferences(t *testing.T) {
	cases := []struct {
		a, b string
		want []Kind
	}{
		// Paraphrases of one fact.
		{"The Apollo deadline is December 19", "The Apollo project deadline moved to December 19", nil},
		{"Maya is my sister; she lives in Lisbon.", "My sister Maya lives in Lisbon.", nil},
		{"Kitchen quote came to £18,400.", "The kitchen quote was 18400 pounds", nil},
		{"Alice's birthday is Jan 20", "Alice has her birthday on January 20", nil},
		// Different facts that read alike.
		{"Dentist appointment on December 2 at 9:30.", "Dentist appointment on January 14 at 11:00.", []Kind{Date, Time}},
		{"Paid the electricity bill of 84 euros in October.", "Paid the electricity bill of 97 euros in November.", []Kind{Amount, Date}},
		{"note a number 17 about widget 17", "note a number 24 about widget 24", []Kind{Number}},
		{"Alice's birthday is Jan 20", "Bob's birthday is Jan 20", []Kind{Name}},
		{"I like coffee", "I don't like coffee", []Kind{Negation}},
		{"Meeting at 9am", "Meeting at 10am", []Kind{Time}},
		{"My brother has two daughters", "My brother has three daughters", []Kind{Number}},
		{"The password is hunter2", "The password is swordfish", nil}, // no detail to compare: the caller's overlap check decides
		// Dates in digits are dates (issue 26).
		{"The release is on 2026-12-01.", "The release is on 2026-12-10.", []Kind{Date}},
		{"Invoice due 01/12/2026", "Invoice due 10/12/2026", []Kind{Date}},
		// Case and punctuation alone state no other fact.
		{"Room 204, on the 3rd floor.", "room 204 on the 3rd floor", nil},
		{"The meeting is in Room 204, on the 3rd floor.", "the meeting is in room 204 on the 3rd floor", nil},
		// Weekdays in the plural, once and twice.
		{"Yoga on Mondays", "Yoga on Tuesdays", []Kind{Date}},
		{"I swim once a week", "I swim twice a week", []Kind{Number}},
		// Places.
		{"Maya lives in Lisbon", "Maya lives in Porto", []Kind{Place}},
		{"I live at 14 Elm Street", "I live at 14 Oak Street", []Kind{Place}},
	}
	for _, c := range cases {
		got := Differences(c.a, c.b)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q vs %q: differ in %v, want %v (details %v / %v)", c.a, c.b, got, c.want, Extract(c.a).byKind, Extract(c.b).byKind)
		}
	}
}

func TestNearNames(t *testing.T) {
	cases := []struct {
		a, b string
		want [][2]string
	}{
		{"Appointment with Dr. Patel on Monday.", "Appointment with Dr. Patil on Monday.", [][2]string{{"Patel", "Patil"}}},
		{"Muhammad sent the files", "Muhhamed sent the files", [][2]string{{"Muhammad", "Muhhamed"}}},
		{"Alice's birthday is Jan 20", "Bob's birthday is Jan 20", nil},
		{"Call Dan", "Call Don", nil}, // too short to tell a typo from another name
		{"Dr. Patel", "Dr. Patel", nil},
	}
	for _, c := range cases {
		got := NearNames(Extract(c.a), Extract(c.b))
		if !slices.Equal(got, c.want) {
			t.Errorf("%q vs %q: near names %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if d := Differences("Appointment with Dr. Patel", "Appointment with Dr. Patil"); !slices.Equal(d, []Kind{Name}) {
		t.Errorf("Patel / Patil differ in %v, want name", d)
	}
}

func TestExtract(t *testing.T) {
	d := Extract("On 3 October the boiler engineer, Mr. Okafor, said it costs $120 and may need a new valve by May 2025; don't wait.")
	want := map[Kind][]string{
		Date:     {"2025", "3", "may", "october"},
		Amount:   {"120"},
		Name:     {"okafor"},
		Negation: {"not"},
	}
	for k, v := range want {
		if !slices.Equal(d.Of(k), v) {
			t.Errorf("%s: %v, want %v (all %v)", k, d.Of(k), v, d.byKind)
		}
	}
	if len(d.Of(Number)) != 0 || len(d.Of(Time)) != 0 {
		t.Errorf("unexpected details %v", d.byKind)
	}
}

// TestOneChangedDetailIsNeverTheSame changes one number, date, time, amount
// or name of a sentence at a time: the two are never reported identical.
func TestOneChangedDetailIsNeverTheSame(t *testing.T) {
	templates := []string{
		"Dentist appointment with Dr. %s on %s %d at %d:30.",
		"Paid %s %d euros for the %s repair on %s %d.",
		"%s booked %d seats on the flight to %s for %s %d.",
	}
	names := []string{"Hughes", "Fenwick", "Alvarez", "Okafor", "Jensen", "Priya"}
	places := []string{"Lisbon", "Leeds", "Toronto", "Bath", "Kyoto"}
	monthList := []string{"January", "March", "June", "October", "December"}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	for i := 0; i < 2000; i++ {
		tpl := templates[i%len(templates)]
		slots := strings.Count(tpl, "%")
		args := make([]any, slots)
		fill := func(j int) any {
			verb := tpl[strings.Index(strings.Repeat("x", 0)+tpl, "%"):]
			_ = verb
			switch nthVerb(tpl, j) {
			case 'd':
				return 1 + rng.IntN(28)
			default:
				switch {
				case strings.Contains(tpl, "Dr. %s") && j == 0:
					return pick(names)
				case j == 1 && strings.HasPrefix(tpl, "Dentist"):
					return pick(monthList)
				}
				return pick(append(append(append([]string{}, names...), places...), monthList...))
			}
		}
		for j := range args {
			args[j] = fill(j)
		}
		a := fmt.Sprintf(tpl, args...)
		j := rng.IntN(slots)
		changed := append([]any{}, args...)
		for changed[j] == args[j] {
			changed[j] = fill(j)
		}
		b := fmt.Sprintf(tpl, changed...)
		if len(Differences(a, b)) == 0 {
			t.Fatalf("%q and %q reported the same", a, b)
		}
		// None of these says the older changed (events and bookings, no
		// "moved to", "now"…): whatever slot changed, it is not an update.
		// TestChangedDetailUpdatesOnlyItsSubject has statements that are.
		if r := Relate(a, b); r.Kind == Updates {
			t.Fatalf("%q then %q called an update (%v)", a, b, r.DiffersIn)
		}
	}
}

func nthVerb(tpl string, n int) byte {
	for i := 0; i < len(tpl)-1; i++ {
		if tpl[i] == '%' {
			if n == 0 {
				return tpl[i+1]
			}
			n--
		}
	}
	return 0
}
