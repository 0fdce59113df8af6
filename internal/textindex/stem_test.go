package textindex

import "testing"

// stemCases were worked out by hand from the published Porter2 rules (regions
// R1/R2, longest-suffix matching, exceptional forms); the comment on a group
// names the rule it exercises.
var stemCases = []struct{ word, stem string }{
	// from the task description
	{"generous", "generous"}, {"running", "run"}, {"happily", "happili"},
	{"consign", "consign"}, {"consigned", "consign"}, {"knightly", "knight"},

	// sample vocabulary neighbourhood "consign" .. "constant"
	{"consigning", "consign"}, {"consignment", "consign"}, {"consist", "consist"},
	{"consisted", "consist"}, {"consistency", "consist"}, {"consistent", "consist"},
	{"consistently", "consist"}, {"consisting", "consist"}, {"consists", "consist"},
	{"consolation", "consol"}, {"consolations", "consol"}, {"consolatory", "consolatori"},
	{"console", "consol"}, {"consoled", "consol"}, {"consoles", "consol"},
	{"consolidate", "consolid"}, {"consolidated", "consolid"}, {"consolidating", "consolid"},
	{"consoling", "consol"}, {"consolingly", "consol"}, {"consols", "consol"},
	{"consonant", "conson"}, {"consort", "consort"}, {"consorted", "consort"},
	{"consorting", "consort"}, {"conspicuous", "conspicu"}, {"conspicuously", "conspicu"},
	{"conspiracy", "conspiraci"}, {"conspirator", "conspir"}, {"conspirators", "conspir"},
	{"conspire", "conspir"}, {"conspired", "conspir"}, {"conspiring", "conspir"},
	{"constable", "constabl"}, {"constables", "constabl"}, {"constance", "constanc"},
	{"constancy", "constanc"}, {"constant", "constant"},

	// sample vocabulary neighbourhood "knack" .. "knots"
	{"knack", "knack"}, {"knackeries", "knackeri"}, {"knacks", "knack"}, {"knag", "knag"},
	{"knave", "knave"}, {"knaves", "knave"}, {"knavish", "knavish"}, {"kneaded", "knead"},
	{"kneading", "knead"}, {"knee", "knee"}, {"kneel", "kneel"}, {"kneeled", "kneel"},
	{"kneeling", "kneel"}, {"kneels", "kneel"}, {"knees", "knee"}, {"knell", "knell"},
	{"knelt", "knelt"}, {"knew", "knew"}, {"knick", "knick"}, {"knif", "knif"},
	{"knife", "knife"}, {"knight", "knight"}, {"knights", "knight"}, {"knit", "knit"},
	{"knits", "knit"}, {"knitted", "knit"}, {"knitting", "knit"}, {"knives", "knive"},
	{"knob", "knob"}, {"knobs", "knob"}, {"knock", "knock"}, {"knocked", "knock"},
	{"knocker", "knocker"}, {"knockers", "knocker"}, {"knocking", "knock"},
	{"knocks", "knock"}, {"knopp", "knopp"}, {"knot", "knot"}, {"knots", "knot"},

	// step 1a
	{"caresses", "caress"}, {"ponies", "poni"}, {"ties", "tie"}, {"cries", "cri"},
	{"caress", "caress"}, {"cats", "cat"}, {"gas", "gas"}, {"this", "this"},
	{"gaps", "gap"}, {"kiwis", "kiwi"}, {"focus", "focus"}, {"boxes", "box"},
	{"studies", "studi"}, {"died", "die"}, {"cried", "cri"},

	// step 1b
	{"feed", "feed"}, {"agreed", "agre"}, {"plastered", "plaster"}, {"bled", "bled"},
	{"motoring", "motor"}, {"sing", "sing"}, {"conflated", "conflat"},
	{"troubled", "troubl"}, {"sized", "size"}, {"hopping", "hop"}, {"tanned", "tan"},
	{"falling", "fall"}, {"hissing", "hiss"}, {"fizzed", "fizz"}, {"failing", "fail"},
	{"filing", "file"}, {"hoping", "hope"}, {"hoped", "hope"}, {"caring", "care"},
	{"hiking", "hike"}, {"swimming", "swim"}, {"meeting", "meet"}, {"meetings", "meet"},
	{"walked", "walk"}, {"walking", "walk"}, {"playing", "play"}, {"played", "play"},
	{"enjoying", "enjoy"}, {"sayings", "say"}, {"crying", "cri"}, {"studying", "studi"},
	{"realized", "realiz"}, {"exceedingly", "exceed"},
	{"adding", "add"}, {"egged", "egg"}, {"offing", "off"}, // no undoubling after a lone a/e/o

	// step 1c
	{"happy", "happi"}, {"cry", "cri"}, {"by", "by"}, {"say", "say"}, {"enjoy", "enjoy"},
	{"pottery", "potteri"}, {"photography", "photographi"},

	// step 2
	{"relational", "relat"}, {"conditional", "condit"}, {"rational", "ration"},
	{"valenci", "valenc"}, {"hesitanci", "hesit"}, {"digitizer", "digit"},
	{"conformabli", "conform"}, {"radicalli", "radic"}, {"differentli", "differ"},
	{"vileli", "vile"}, {"analogousli", "analog"}, {"vietnamization", "vietnam"},
	{"predication", "predic"}, {"operator", "oper"}, {"feudalism", "feudal"},
	{"decisiveness", "decis"}, {"hopefulness", "hope"}, {"callousness", "callous"},
	{"formaliti", "formal"}, {"sensitiviti", "sensit"}, {"sensibiliti", "sensibl"},
	{"beautifully", "beauti"}, {"friendly", "friend"}, {"nationality", "nation"},
	{"geologist", "geolog"}, {"geology", "geolog"},

	// step 3
	{"triplicate", "triplic"}, {"formative", "format"}, {"formalize", "formal"},
	{"electriciti", "electr"}, {"electrical", "electr"}, {"hopeful", "hope"},
	{"goodness", "good"}, {"happiness", "happi"}, {"beautiful", "beauti"},

	// step 4
	{"revival", "reviv"}, {"allowance", "allow"}, {"inference", "infer"},
	{"airliner", "airlin"}, {"gyroscopic", "gyroscop"}, {"adjustable", "adjust"},
	{"defensible", "defens"}, {"irritant", "irrit"}, {"replacement", "replac"},
	{"adjustment", "adjust"}, {"dependent", "depend"}, {"adoption", "adopt"},
	{"activate", "activ"}, {"angulariti", "angular"}, {"homologous", "homolog"},
	{"effective", "effect"}, {"bowdlerize", "bowdler"}, {"argument", "argument"},
	{"national", "nation"}, {"connection", "connect"}, {"computer", "comput"},
	{"computation", "comput"}, {"transgender", "transgend"}, {"supportive", "support"},

	// step 5
	{"probate", "probat"}, {"rate", "rate"}, {"cease", "ceas"}, {"controll", "control"},
	{"roll", "roll"}, {"marriage", "marriag"}, {"sunrise", "sunris"},
	{"travelling", "travel"}, {"traveling", "travel"}, {"realize", "realiz"},

	// R1 starts after gener/commun/arsen/past/univers/later/emerg/organ
	{"generate", "generat"}, {"generates", "generat"}, {"generated", "generat"},
	{"generating", "generat"}, {"general", "general"}, {"generally", "general"},
	{"generic", "generic"}, {"generically", "generic"}, {"generously", "generous"},
	{"communism", "communism"}, {"past", "past"}, {"paste", "paste"},
	{"pasted", "paste"}, {"pasting", "paste"}, {"universe", "univers"},
	{"universal", "universal"}, {"university", "universiti"}, {"later", "later"},
	{"lateral", "lateral"}, {"laterally", "lateral"}, {"emerge", "emerg"},
	{"emergency", "emergenc"}, {"organ", "organ"}, {"organic", "organic"},
	{"organization", "organiz"},

	// exceptional forms
	{"skies", "sky"}, {"sky", "sky"}, {"news", "news"}, {"howe", "howe"},
	{"atlas", "atlas"}, {"cosmos", "cosmos"}, {"bias", "bias"}, {"andes", "andes"},
	{"idly", "idl"}, {"gently", "gentl"}, {"ugly", "ugli"}, {"early", "earli"},
	{"only", "onli"}, {"singly", "singl"}, {"dying", "die"}, {"lying", "lie"},
	{"tying", "tie"}, {"vying", "vie"}, {"inning", "inning"}, {"innings", "inning"},
	{"outing", "outing"}, {"canning", "canning"}, {"herring", "herring"},
	{"earring", "earring"}, {"evening", "evening"}, {"proceed", "proceed"},
	{"proceeds", "proceed"}, {"exceed", "exceed"}, {"succeed", "succeed"},
	{"succeeded", "succeed"},

	// apostrophes, short words, initial y
	{"john's", "john"}, {"dogs'", "dog"}, {"mother's", "mother"}, {"'tis", "tis"},
	{"children's", "children"}, {"at", "at"}, {"is", "is"}, {"yellow", "yellow"},
	{"youth", "youth"},
}

func TestStemTable(t *testing.T) {
	if len(stemCases) < 150 {
		t.Fatalf("stem table has %d cases, want at least 150", len(stemCases))
	}
	seen := map[string]bool{}
	for _, c := range stemCases {
		if seen[c.word] {
			t.Errorf("duplicate table entry %q", c.word)
		}
		seen[c.word] = true
		if got := Stem(c.word); got != c.stem {
			t.Errorf("Stem(%q) = %q, want %q", c.word, got, c.stem)
		}
	}
}

func TestStemLeavesNonEnglishAlone(t *testing.T) {
	for _, w := range []string{"2023", "10am", "café", "naïve", "東京", "", "mp3s", "Running"} {
		if got := Stem(w); got != w {
			t.Errorf("Stem(%q) = %q, want it unchanged", w, got)
		}
	}
}

func TestStemDegenerateApostrophes(t *testing.T) {
	// Must not panic; the published algorithm strips these to nothing.
	for _, w := range []string{"''s", "'s'", "'''a", "a'''"} {
		_ = Stem(w)
	}
}

func TestStemNeverGrows(t *testing.T) {
	for _, c := range stemCases {
		if len(c.stem) > len(c.word) {
			t.Errorf("table entry %q -> %q grows", c.word, c.stem)
		}
	}
}

func FuzzStem(f *testing.F) {
	for _, c := range stemCases {
		f.Add(c.word)
	}
	f.Fuzz(func(t *testing.T, w string) {
		s := Stem(w)
		if len(s) > len(w) {
			t.Fatalf("Stem(%q) = %q is longer than the word", w, s)
		}
	})
}
