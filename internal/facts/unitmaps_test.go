package facts

import (
	"slices"
	"testing"
)

// TestUnitReadings pins what newUnit reads into a unit's maps, which are
// made only at their first entry: the words of a cue phrase are no
// subject words, a replaced value ("instead of", "rather than", "from X
// to") goes to was and not to the names, the values and their positions,
// the names before the verb.
func TestUnitReadings(t *testing.T) {
	unitOf := func(text string) *unit {
		t.Helper()
		s := Parse(text)
		if len(s.units) == 0 {
			t.Fatalf("%q: no unit", text)
		}
		return &s.units[0]
	}
	keys := func(m map[string]int) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}

	u := unitOf("It turns out the dentist appointment moved to Friday.")
	if _, ok := u.content[stem("turns")]; ok || !u.cue {
		t.Errorf("turns out: content %v cue %v, want no %q and a cue", keys(u.content), u.cue, stem("turns"))
	}
	if _, ok := u.content[stem("dentist")]; !ok {
		t.Errorf("turns out: content %v lacks %q", keys(u.content), stem("dentist"))
	}

	u = unitOf("Our summer will be in Croatia instead of Portugal.")
	if !u.was["portugal"] || u.has("portugal") || !u.has("croatia") {
		t.Errorf("instead of: was %v names %v", u.was, keys(u.names))
	}
	u = unitOf("We chose Porto rather than Lisbon for the offsite.")
	if !u.was["lisbon"] || u.has("lisbon") {
		t.Errorf("rather than: was %v names %v", u.was, keys(u.names))
	}
	u = unitOf("I moved my savings from Barclays to Marcus.")
	if !u.was["barclays"] || !u.has("marcus") {
		t.Errorf("from X to Y: was %v names %v", u.was, keys(u.names))
	}

	u = unitOf("Alice's rent rose to $1,975 on 2026-03-01.")
	if !u.subjectNames["alice"] || len(u.values[Amount]) != 1 || len(u.valueAt[Date]) != 1 {
		t.Errorf("values %v at %v, subject names %v", u.values, u.valueAt, u.subjectNames)
	}

	// A unit with nothing of a kind reads as empty.
	u = unitOf("ok")
	if len(u.was)+len(u.values)+len(u.valueAt)+len(u.names)+len(u.subjectNames) != 0 || u.has("ok") {
		t.Errorf("ok: %+v", u)
	}
}
