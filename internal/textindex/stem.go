package textindex

// This file implements the English (Porter2) stemmer as published by the
// Snowball project (snowballstem.org, "The English (Porter2) stemming
// algorithm", revision shipped with Snowball 3.0.0), written from the prose
// description. Comments name the published step each function implements.

// Stem returns the Porter2 stem of word. The word is expected to be lower case
// already; words containing anything other than ASCII letters and apostrophes
// (digits, non-Latin scripts, accented letters) are returned unchanged, as the
// algorithm is defined for English spelling only.
func Stem(word string) string {
	if !stemmable(word) {
		return word
	}
	var arr [64]byte
	b := stemBytes(append(arr[:0], word...))
	if string(b) == word {
		return word
	}
	return string(b)
}

// stemmable reports whether w consists of ASCII lower-case letters and
// apostrophes only and contains at least one letter.
func stemmable[T string | []byte](w T) bool {
	letter := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z':
			letter = true
		case c == '\'':
		default:
			return false
		}
	}
	return letter
}

// stemException maps the whole words that the published algorithm stems (or
// keeps) specially before any other processing. A switch compiles to a search
// on length and bytes, cheaper than hashing every word into a map.
func stemException(w []byte) (string, bool) {
	switch string(w) {
	case "skies":
		return "sky", true
	case "idly":
		return "idl", true
	case "gently":
		return "gentl", true
	case "ugly":
		return "ugli", true
	case "early":
		return "earli", true
	case "only":
		return "onli", true
	case "singly":
		return "singl", true
	case "sky", "news", "howe", "atlas", "cosmos", "bias", "andes":
		return string(w), true
	}
	return "", false
}

// r1Prefix returns the length of the word beginning after which R1 starts
// directly (published exceptional forms: generous and generate must not
// conflate, nor past and paste), or 0.
func r1Prefix(b []byte) int {
	var p string
	switch b[0] {
	case 'g':
		p = "gener"
	case 'c':
		p = "commun"
	case 'a':
		p = "arsen"
	case 'p':
		p = "past"
	case 'u':
		p = "univers"
	case 'l':
		p = "later"
	case 'e':
		p = "emerg"
	case 'o':
		p = "organ"
	default:
		return 0
	}
	if len(b) >= len(p) && string(b[:len(p)]) == p {
		return len(p)
	}
	return 0
}

// stemBytes stems b in place (b must satisfy stemmable) and returns the
// shortened slice. The stem is never longer than the word.
func stemBytes(b []byte) []byte {
	if x, ok := stemException(b); ok {
		return append(b[:0], x...)
	}
	if len(b) <= 2 {
		return b
	}
	s := stemmer{b: b}
	s.prelude()
	s.markRegions()
	s.step1a()
	if len(s.b) == 0 {
		return s.b
	}
	s.step1b()
	s.step1c()
	s.step2()
	s.step3()
	s.step4()
	s.step5()
	s.postlude()
	return s.b
}

type stemmer struct {
	b      []byte
	p1, p2 int  // starts of regions R1 and R2 (absolute offsets)
	hasY   bool // a 'y' was marked as consonant 'Y'
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

func isDouble(a, b byte) bool {
	if a != b {
		return false
	}
	switch a {
	case 'b', 'd', 'f', 'g', 'm', 'n', 'p', 'r', 't':
		return true
	}
	return false
}

func isValidLiEnding(c byte) bool {
	switch c {
	case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
		return true
	}
	return false
}

func (s *stemmer) hasSuffix(suf string) bool {
	n := len(s.b)
	// Comparing the last byte first rejects almost every candidate cheaply.
	return n >= len(suf) && s.b[n-1] == suf[len(suf)-1] && string(s.b[n-len(suf):]) == suf
}

// replace swaps the trailing n bytes for with.
func (s *stemmer) replace(n int, with string) {
	s.b = append(s.b[:len(s.b)-n], with...)
}

func (s *stemmer) inR1(pos int) bool { return pos >= s.p1 }
func (s *stemmer) inR2(pos int) bool { return pos >= s.p2 }

// prelude removes an initial apostrophe and marks consonant y as 'Y': an
// initial y, or a y after a vowel.
func (s *stemmer) prelude() {
	if s.b[0] == '\'' {
		s.b = append(s.b[:0], s.b[1:]...)
	}
	for i, c := range s.b {
		if c == 'y' && (i == 0 || isVowel(s.b[i-1])) {
			s.b[i] = 'Y'
			s.hasY = true
		}
	}
}

func (s *stemmer) postlude() {
	if !s.hasY {
		return
	}
	for i, c := range s.b {
		if c == 'Y' {
			s.b[i] = 'y'
		}
	}
}

// regionAfter returns the offset just past the first non-vowel that follows
// a vowel at or after from, or len(b) when there is none.
func regionAfter(b []byte, from int) int {
	for i := from; i+1 < len(b); i++ {
		if isVowel(b[i]) && !isVowel(b[i+1]) {
			return i + 2
		}
	}
	return len(b)
}

func (s *stemmer) markRegions() {
	s.p1 = r1Prefix(s.b)
	if s.p1 == 0 {
		s.p1 = regionAfter(s.b, 0)
	}
	s.p2 = regionAfter(s.b, s.p1)
}

// endsShortSyllable reports whether b[:m] ends in a short syllable: a vowel
// followed by a non-vowel other than w, x or Y and preceded by a non-vowel; or
// a vowel at the start of the word followed by a non-vowel; or "past".
func (s *stemmer) endsShortSyllable(m int) bool {
	b := s.b[:m]
	if m >= 3 {
		last := b[m-1]
		if !isVowel(last) && last != 'w' && last != 'x' && last != 'Y' &&
			isVowel(b[m-2]) && !isVowel(b[m-3]) {
			return true
		}
	}
	if m == 2 && isVowel(b[0]) && !isVowel(b[1]) {
		return true
	}
	return m >= 4 && string(b[m-4:]) == "past"
}

// isShort reports whether the current word is short: it ends in a short
// syllable and R1 is empty.
func (s *stemmer) isShort() bool {
	return s.p1 >= len(s.b) && s.endsShortSyllable(len(s.b))
}

func containsVowel(b []byte) bool {
	for _, c := range b {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// step1a includes the published step 0 (apostrophe suffixes).
func (s *stemmer) step1a() {
	switch {
	case s.hasSuffix("'s'"):
		s.replace(3, "")
	case s.hasSuffix("'s"):
		s.replace(2, "")
	case s.hasSuffix("'"):
		s.replace(1, "")
	}
	n := len(s.b)
	switch {
	case s.hasSuffix("sses"):
		s.replace(4, "ss")
	case s.hasSuffix("ied"), s.hasSuffix("ies"):
		if n-3 > 1 {
			s.replace(3, "i")
		} else {
			s.replace(3, "ie")
		}
	case s.hasSuffix("us"), s.hasSuffix("ss"):
	case s.hasSuffix("s"):
		// The letter right before the s does not count.
		if n >= 2 && containsVowel(s.b[:n-2]) {
			s.replace(1, "")
		}
	}
}

func (s *stemmer) step1b() {
	n := len(s.b)
	var suf string
	for _, x := range [...]string{"eedly", "ingly", "edly", "eed", "ing", "ed"} {
		if s.hasSuffix(x) {
			suf = x
			break
		}
	}
	if suf == "" {
		return
	}
	stem := s.b[:n-len(suf)]
	switch suf {
	case "eed", "eedly":
		switch string(stem) {
		case "proc", "exc", "succ":
			return
		}
		if s.inR1(len(stem)) {
			s.replace(len(suf), "ee")
		}
		return
	case "ing":
		if len(stem) == 2 && !isVowel(stem[0]) && stem[1] == 'y' {
			// dying -> die, lying -> lie, vying -> vie
			s.replace(4, "ie")
			return
		}
		switch string(stem) {
		case "inn", "out", "cann", "herr", "earr", "even":
			return
		}
	}
	if !containsVowel(stem) {
		return
	}
	s.b = stem
	m := len(s.b)
	switch {
	case s.hasSuffix("at"), s.hasSuffix("bl"), s.hasSuffix("iz"):
		s.b = append(s.b, 'e')
	case m >= 2 && isDouble(s.b[m-2], s.b[m-1]):
		// Undouble (hopp -> hop) unless the double follows exactly one
		// leading a, e or o (add, egg, off).
		if !(m == 3 && (s.b[0] == 'a' || s.b[0] == 'e' || s.b[0] == 'o')) {
			s.b = s.b[:m-1]
		}
	case s.isShort():
		s.b = append(s.b, 'e')
	}
}

// step1c turns a final y or Y into i after a non-vowel that is not the first
// letter.
func (s *stemmer) step1c() {
	n := len(s.b)
	if n < 3 {
		return
	}
	if c := s.b[n-1]; (c == 'y' || c == 'Y') && !isVowel(s.b[n-2]) {
		s.b[n-1] = 'i'
	}
}

type suffixRule struct {
	suf, with string
	cond      func(s *stemmer, start int) bool // nil: always
}

func precededBy(cs string) func(*stemmer, int) bool {
	return func(s *stemmer, start int) bool {
		if start == 0 {
			return false
		}
		c := s.b[start-1]
		for i := 0; i < len(cs); i++ {
			if cs[i] == c {
				return true
			}
		}
		return false
	}
}

func precededByLiEnding(s *stemmer, start int) bool {
	return start > 0 && isValidLiEnding(s.b[start-1])
}

func inR2Cond(s *stemmer, start int) bool { return s.inR2(start) }

// Rule lists are ordered longest suffix first: the published steps act on the
// longest matching suffix only, and when its condition fails nothing happens.
var step2Rules = []suffixRule{
	{"ization", "ize", nil},
	{"ational", "ate", nil},
	{"fulness", "ful", nil},
	{"ousness", "ous", nil},
	{"iveness", "ive", nil},
	{"tional", "tion", nil},
	{"biliti", "ble", nil},
	{"lessli", "less", nil},
	{"entli", "ent", nil},
	{"ation", "ate", nil},
	{"alism", "al", nil},
	{"aliti", "al", nil},
	{"ousli", "ous", nil},
	{"iviti", "ive", nil},
	{"fulli", "ful", nil},
	{"ogist", "og", nil},
	{"enci", "ence", nil},
	{"anci", "ance", nil},
	{"abli", "able", nil},
	{"izer", "ize", nil},
	{"ator", "ate", nil},
	{"alli", "al", nil},
	{"bli", "ble", nil},
	{"ogi", "og", precededBy("l")},
	{"li", "", precededByLiEnding},
}

var step3Rules = []suffixRule{
	{"ational", "ate", nil},
	{"tional", "tion", nil},
	{"alize", "al", nil},
	{"icate", "ic", nil},
	{"iciti", "ic", nil},
	{"ative", "", inR2Cond},
	{"ical", "ic", nil},
	{"ness", "", nil},
	{"ful", "", nil},
}

var step4Rules = []suffixRule{
	{"ement", "", nil},
	{"ance", "", nil},
	{"ence", "", nil},
	{"able", "", nil},
	{"ible", "", nil},
	{"ment", "", nil},
	{"ant", "", nil},
	{"ent", "", nil},
	{"ism", "", nil},
	{"ate", "", nil},
	{"iti", "", nil},
	{"ous", "", nil},
	{"ive", "", nil},
	{"ize", "", nil},
	{"ion", "", precededBy("st")},
	{"al", "", nil},
	{"er", "", nil},
	{"ic", "", nil},
}

// ruleTable groups a step's rules by their suffix's last letter, keeping
// the longest-first order within each group.
type ruleTable [256][]suffixRule

func byLastLetter(rules []suffixRule) *ruleTable {
	var t ruleTable
	for _, r := range rules {
		c := r.suf[len(r.suf)-1]
		t[c] = append(t[c], r)
	}
	return &t
}

var (
	step2Table = byLastLetter(step2Rules)
	step3Table = byLastLetter(step3Rules)
	step4Table = byLastLetter(step4Rules)
)

// applyRules finds the longest rule suffix; if its start lies in the region
// (p1 or p2) and its condition holds, it is replaced.
func (s *stemmer) applyRules(t *ruleTable, region int) {
	if len(s.b) == 0 {
		return
	}
	for _, r := range t[s.b[len(s.b)-1]] {
		if !s.hasSuffix(r.suf) {
			continue
		}
		start := len(s.b) - len(r.suf)
		if start >= region && (r.cond == nil || r.cond(s, start)) {
			s.replace(len(r.suf), r.with)
		}
		return
	}
}

func (s *stemmer) step2() { s.applyRules(step2Table, s.p1) }
func (s *stemmer) step3() { s.applyRules(step3Table, s.p1) }
func (s *stemmer) step4() { s.applyRules(step4Table, s.p2) }

func (s *stemmer) step5() {
	n := len(s.b)
	switch s.b[n-1] {
	case 'e':
		if s.inR2(n-1) || (s.inR1(n-1) && !s.endsShortSyllable(n-1)) {
			s.b = s.b[:n-1]
		}
	case 'l':
		if s.inR2(n-1) && n >= 2 && s.b[n-2] == 'l' {
			s.b = s.b[:n-1]
		}
	}
}
