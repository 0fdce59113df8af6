package gloss

import (
	"slices"
	"strings"
	"testing"
)

// Everyday words of other languages have their English glosses, accents
// folded, plurals and German compounds read; English words (false
// friends) and words the lexicon does not hold have none.
func TestOf(t *testing.T) {
	for word, want := range map[string]string{
		"alquiler":               "rent",
		"miete":                  "rent",
		"loyer":                  "rent",
		"affitto":                "rent",
		"aluguel":                "rent",
		"ferme":                  "closed", // "fermé", folded
		"geschlossen":            "closed",
		"mutuelle":               "insurance",
		"kinesitherapeute":       "physio",
		"llaves":                 "key",         // a plural
		"kaltmieten":             "rent",        // a plural of a compound entry
		"stromrechnung":          "electricity", // a compound
		"nebenkostenabrechnung":  "utilities",   // a compound, longest modifier
		"hausratversicherung":    "contents",    // not "haus" + "ratversicherung"
		"zahnzusatzversicherung": "dental",      // a compound of a compound
	} {
		if g := Of(word, false); !slices.Contains(g, want) {
			t.Errorf("Of(%q) = %q, want %q among them", word, g, want)
		}
	}
	for _, word := range []string{"gift", "rat", "art", "once", "pain", "chair", "also", "fast", "rent", "house", "weather", "giffgaff", "mai", "handy", "chef", "reunion", "de", "la"} {
		if g := Of(word, false); g != nil {
			t.Errorf("Of(%q) = %q, want none", word, g)
		}
	}
}

// English shorthand is glossed only when asked for.
func TestOfShorthand(t *testing.T) {
	for word, want := range map[string]string{"appt": "appointment", "mtg": "meeting", "bday": "birthday", "gp": "doctor", "isa": "savings"} {
		if g := Of(word, true); !slices.Contains(g, want) {
			t.Errorf("Of(%q, short) = %q, want %q among them", word, g, want)
		}
		if g := Of(word, false); slices.Contains(g, want) {
			t.Errorf("Of(%q) = %q without shorthand", word, g)
		}
	}
}

// Text glosses a note's words once each and leaves an English note alone.
func TestText(t *testing.T) {
	got := Text("Pagué el alquiler al casero; la frutería está cerrada los lunes. Alquiler again.", false)
	for _, w := range []string{"rent", "landlord", "greengrocer", "closed", "monday"} {
		if !slices.Contains(strings.Fields(got), w) {
			t.Errorf("Text: %q lacks %q", got, w)
		}
	}
	if strings.Count(got, "rent") != 2 { // "rent" and "rental", once
		t.Errorf("Text: %q repeats a gloss", got)
	}
	for _, s := range []string{"Paid the electricity bill of 84 euros in October.", "Our dog Pepper is a three-year-old collie who is afraid of fireworks."} {
		if g := Text(s, false); g != "" {
			t.Errorf("Text(%q) = %q, want nothing", s, g)
		}
	}
}
