package lexicon

import (
	"slices"
	"testing"
)

func TestLemma(t *testing.T) {
	for word, want := range map[string]string{
		"bill":     "bill",
		"bills":    "bill",    // suffix rule
		"invoiced": "invoice", // suffix rule, "ed" for "e"
		"children": "child",   // exception list
		"went":     "go",      // exception list (verb)
		"xqzzy":    "",
		"":         "",
	} {
		if got := Lemma(word); got != want {
			t.Errorf("Lemma(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestSynonyms(t *testing.T) {
	for word, want := range map[string]string{
		"bill":        "invoice", // second sense
		"invoices":    "bill",
		"doctor":      "physician",
		"vaccination": "inoculation",
		"medication":  "medicine",
		"mum":         "mom", // a noun never tagged beside an adjective tagged once
		"car":         "automobile",
	} {
		if got := Synonyms(word); !slices.Contains(got, want) {
			t.Errorf("Synonyms(%q) = %q, want it to hold %q", word, got, want)
		}
	}
	// Rare senses are left out: "mother" the verb (to fuss over), "gift"
	// the verb (to give).
	for word, not := range map[string]string{"mother": "fuss", "gift": "give", "doctor": "sophisticate"} {
		if got := Synonyms(word); slices.Contains(got, not) {
			t.Errorf("Synonyms(%q) = %q, holds %q (a rare sense)", word, got, not)
		}
	}
	if got := Synonyms("xqzzy"); got != nil {
		t.Errorf("Synonyms of an unknown word = %q, want none", got)
	}
	// A word's synonyms are lowercase single words, never the word itself.
	for _, w := range []string{"bill", "doctor", "run", "good", "house"} {
		for _, s := range Synonyms(w) {
			if s == w || s == "" {
				t.Errorf("Synonyms(%q) holds %q", w, s)
			}
			for _, c := range s {
				if c < 'a' || c > 'z' {
					t.Errorf("Synonyms(%q) holds %q, not a lowercase word", w, s)
				}
			}
		}
	}
}

func TestHypernyms(t *testing.T) {
	for word, want := range map[string]string{
		"beagle":    "dog",
		"beagles":   "hound", // lemmatised
		"coriander": "herb",
		"marathon":  "race", // its third sense, the footrace
		"gp":        "doctor",
		"solicitor": "lawyer",
	} {
		if got := Hypernyms(word); !slices.Contains(got, want) {
			t.Errorf("Hypernyms(%q) = %q, want it to hold %q", word, got, want)
		}
	}
	// The levels nearest the root are left out; a word is not its own
	// hypernym; a word unknown or not a noun has none.
	for _, w := range []string{"beagle", "coriander", "doctor"} {
		for _, h := range Hypernyms(w) {
			if h == "entity" || h == "object" || h == "whole" || h == "organism" || h == w {
				t.Errorf("Hypernyms(%q) holds %q", w, h)
			}
		}
	}
	if got := Hypernyms("xqzzy"); got != nil {
		t.Errorf("Hypernyms of an unknown word = %q, want none", got)
	}
	// The hypernyms are a section of their own: a synonym lookup does not
	// read them, nor they it.
	if slices.Contains(Synonyms("beagle"), "dog") {
		t.Errorf("Synonyms(beagle) holds dog, a hypernym")
	}
}
