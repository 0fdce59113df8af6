// Package facts reads the checkable details of a memory's text — numbers,
// amounts, dates, times, proper names and negation — so that two texts
// that read alike can be told apart when they state different facts:
// "Dentist appointment on December 2 at 9:30" and "… January 14 at 11:00"
// are close in meaning (a sentence embedding scores them 0.977) but not
// the same memory. It is English-leaning and deliberately simple: every
// detail a text has is compared, and any difference counts.
package facts

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is a kind of detail.
type Kind string

// The kinds of detail compared.
const (
	Number   Kind = "number"
	Amount   Kind = "amount"
	Date     Kind = "date"
	Time     Kind = "time"
	Name     Kind = "name"
	Place    Kind = "place"
	Negation Kind = "negation"
	// State is a changed word that is none of the above ("vegetarian" →
	// "vegan", "broken" → "works"); only Relate reports it.
	State Kind = "state"
)

// compared lists the kinds Compare looks at, in the order it reports them.
var compared = []Kind{Number, Amount, Date, Time, Name, Place, Negation}

// Details are the checkable details of one text.
type Details struct {
	// byKind holds each kind's normalised values ("9:30", "december",
	// "84", "lisbon") as a sorted multiset.
	byKind map[Kind][]string
	// maybeNames are capitalised words that start a sentence and are not
	// common starters: "Maya is my sister" (a name) or "Kitchen quote…"
	// (not one). They differ only when the other text lacks the word.
	maybeNames []string
	// words holds every word of the text in lower case.
	words map[string]bool
	// plain holds the words that state no detail and are not capitalised
	// as names are.
	plain map[string]bool
	// spelled maps a lower-case name or place to its spelling in the text.
	spelled map[string]string
}

// Of returns the values of one kind, sorted.
func (d Details) Of(k Kind) []string { return d.byKind[k] }

// Differences lists the kinds of detail in which two texts differ, in a
// fixed order; empty when they state the same details.
func Differences(a, b string) []Kind {
	return Compare(Extract(a), Extract(b))
}

// Compare lists the kinds in which x and y differ.
func Compare(x, y Details) []Kind {
	var out []Kind
	for _, k := range compared {
		same := slices.Equal(x.byKind[k], y.byKind[k])
		switch k {
		case Name:
			same = sameNames(x, y)
		case Place:
			same = sameWords(x.byKind[k], y.byKind[k], x, y)
		}
		if !same {
			out = append(out, k)
		}
	}
	return out
}

// sameNames compares the names of x and y as multisets. A name left over
// is forgiven when the other text has the word as a plain word: a capital
// alone ("in Room 204" and "in room 204") states no other fact. So is a
// word that may not be a name (it starts a sentence) when the other text
// has it anyway ("Kitchen quote…" and "the kitchen quote").
func sameNames(x, y Details) bool {
	return sameWords(x.names(), y.names(), x, y)
}

// sameWords compares sorted multisets of names or places as sameNames
// does.
func sameWords(xs, ys []string, x, y Details) bool {
	onlyX, onlyY := minus(xs, ys), minus(ys, xs)
	forgiven := func(left []string, d, other Details) bool {
		for _, n := range left {
			if !other.plain[n] && !(slices.Contains(d.maybeNames, n) && other.words[n]) {
				return false
			}
		}
		return true
	}
	return forgiven(onlyX, x, y) && forgiven(onlyY, y, x)
}

// NearNames pairs the names of x and y that are spelled nearly alike
// ("Patel" and "Patil", "Muhammad" and "Muhhamed"): the same person
// written two ways, or two people easily confused. Each pair is x's
// spelling, then y's.
func NearNames(x, y Details) [][2]string {
	xs, ys := x.names(), y.names()
	xs, ys = append(xs, x.byKind[Place]...), append(ys, y.byKind[Place]...)
	onlyX, onlyY := minus(sorted(xs), sorted(ys)), minus(sorted(ys), sorted(xs))
	var out [][2]string
	for _, a := range onlyX {
		for _, b := range onlyY {
			if nearlyAlike(a, b) {
				out = append(out, [2]string{x.spelling(a), y.spelling(b)})
			}
		}
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func (d Details) spelling(n string) string {
	if s, ok := d.spelled[n]; ok {
		return s
	}
	return n
}

// nearlyAlike: names of at least four letters, starting alike, within one
// edit (two for names of eight letters or more) once doubled letters are
// read once ("Muhammad" and "Muhhamed").
func nearlyAlike(a, b string) bool {
	ra, rb := undoubled(a), undoubled(b)
	if len(ra) < 4 || len(rb) < 4 || ra[0] != rb[0] {
		return false
	}
	limit := 1
	if min(len(ra), len(rb)) >= 8 {
		limit = 2
	}
	return editDistance(ra, rb, limit) <= limit
}

func undoubled(s string) []rune {
	var out []rune
	for _, r := range s {
		if len(out) == 0 || out[len(out)-1] != r {
			out = append(out, r)
		}
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, or limit+1 once it
// is known to exceed limit.
func editDistance(a, b []rune, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (d Details) names() []string {
	all := append(slices.Clone(d.byKind[Name]), d.maybeNames...)
	slices.Sort(all)
	return all
}

// minus is the multiset difference of sorted a and b.
func minus(a, b []string) []string {
	var out []string
	i, j := 0, 0
	for i < len(a) {
		switch {
		case j == len(b) || a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			j++
		default:
			i++
			j++
		}
	}
	return out
}

// Extract reads the details of text.
func Extract(text string) Details {
	return detailsOf(scan(text))
}

// token is one word of a text as the facts see it.
type token struct {
	word
	// lower is the word in lower case, without a possessive 's.
	lower string
	// kind and value: the detail the word states (value normalised:
	// "9:30", "84", "december", "lisbon"); kind is "" for other words.
	kind  Kind
	value string
	// maybeName: a capitalised word starting a sentence that may be a name.
	maybeName bool
	// negation: "not", "never", "n't"…; never: "never" itself.
	negation, never bool
	// sentence counts the sentences before the word's.
	sentence int
}

// scan reads every word of text and the detail it states.
func scan(text string) []token {
	words := split(text)
	out := make([]token, 0, len(words))
	sentence := -1
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.sentenceStart {
			sentence++
		}
		lower := strings.ToLower(w.text)
		t := token{word: w, lower: possessive(lower), sentence: max(sentence, 0)}
		if n, ok := numericDate(words, i); ok {
			// 2026-12-01, 01/12/2026: one date, whatever its order.
			parts := make([]string, n)
			for j := range parts {
				parts[j] = words[i+j].text
			}
			t.kind, t.value = Date, strings.Join(parts, "-")
			t.text = t.value
			out = append(out, t)
			i += n - 1
			continue
		}
		if ValueForms {
			if k, v, n, ok := valueForm(words, i); ok {
				t.kind, t.value = k, v
				out = append(out, t)
				i += n - 1
				continue
			}
		}
		if FrameRule {
			if v, n, ok := foreignAmount(words, i); ok {
				t.kind, t.value = Amount, v
				out = append(out, t)
				i += n - 1
				continue
			}
		}
		switch {
		case isTime(lower, words, i):
			t.kind, t.value = Time, clock(lower)
		case isNumber(lower):
			n := normNumber(lower)
			switch {
			case amountNear(words, i):
				t.kind = Amount
			case dateNear(words, i) || isYear(n):
				t.kind = Date
			default:
				t.kind = Number
			}
			t.value = n
		case numberWords[lower] != 0:
			t.kind, t.value = Number, strconv.Itoa(numberWords[lower])
		case calendarWord(w) != "":
			t.kind, t.value = Date, calendarWord(w)
		case negationWords[lower] || strings.HasSuffix(lower, "n't"):
			t.negation, t.never = true, lower == "never"
		default:
			r, _ := utf8.DecodeRuneInString(w.text)
			switch {
			case !unicode.IsUpper(r) || lower == "i" || strings.HasPrefix(t.lower, "i'") || strings.HasPrefix(t.lower, "i’") || commonWords[lower]:
			case !w.sentenceStart:
				t.kind, t.value = Name, t.lower
				if placeBefore(out) {
					t.kind = Place
				}
			case !commonStarters[t.lower]:
				t.maybeName = true
			}
		}
		out = append(out, t)
	}
	// A name followed by a street word is a place, and so is the street
	// word's own name ("Harbour Road").
	for i := 1; i < len(out); i++ {
		if streetWords[out[i].lower] && (out[i-1].kind == Name || out[i-1].maybeName) {
			out[i-1].kind, out[i-1].value, out[i-1].maybeName = Place, out[i-1].lower, false
			if out[i].kind == Name {
				out[i].kind = Place
			}
		}
	}
	return out
}

func detailsOf(toks []token) Details {
	d := Details{byKind: map[Kind][]string{}, words: map[string]bool{}, plain: map[string]bool{}, spelled: map[string]string{}}
	negations := 0
	for _, t := range toks {
		d.words[t.lower] = true
		if t.kind == "" && !t.maybeName {
			d.plain[t.lower] = true
		}
		switch {
		case t.kind != "":
			d.byKind[t.kind] = append(d.byKind[t.kind], t.value)
			if t.kind == Name || t.kind == Place {
				d.spelled[t.value] = possessive(t.text)
			}
		case t.maybeName:
			d.maybeNames = append(d.maybeNames, t.lower)
			d.spelled[t.lower] = possessive(t.text)
		case t.negation:
			negations++
		}
	}
	if negations%2 == 1 {
		d.byKind[Negation] = append(d.byKind[Negation], "not")
	}
	for _, v := range d.byKind {
		slices.Sort(v)
	}
	return d
}

// placeWords stand before a place: "in Lisbon", "at Greenway Vets", "to the
// Crown".
var placeWords = map[string]bool{"in": true, "at": true, "to": true, "from": true, "near": true, "into": true, "via": true}

// streetWords follow the name of a street or a building.
var streetWords = map[string]bool{"street": true, "st": true, "road": true, "rd": true, "lane": true, "avenue": true, "ave": true,
	"drive": true, "way": true, "close": true, "square": true, "place": true, "park": true, "hall": true, "station": true, "airport": true}

// placeBefore: the words just read end with a place word, maybe followed
// by "the" or by another part of the same name ("in New York").
func placeBefore(read []token) bool {
	for j := len(read) - 1; j >= 0 && j >= len(read)-3; j-- {
		switch t := read[j]; {
		case placeWords[t.lower]:
			return true
		case t.lower == "the" || t.kind == Place:
			continue
		default:
			return false
		}
	}
	return false
}

// numericDate recognises a date written in digits at words[i]: 2026-12-01
// (year, month, day) or 1/12/2026 (day and month either way), and says
// how many words it spans.
func numericDate(words []word, i int) (int, bool) {
	digits := func(j, lo, hi int) bool {
		if j >= len(words) {
			return false
		}
		t := words[j].text
		if len(t) > 4 || !atoiCan(t) {
			return false // Atoi would refuse it (and allocate its error)
		}
		n, err := strconv.Atoi(t)
		return err == nil && n >= lo && n <= hi
	}
	joined := func(j int, sep rune) bool { return j < len(words) && words[j].before == sep && words[j].glued }
	switch {
	case len(words[i].text) == 4 && digits(i, 1900, 2199) && joined(i+1, '-') && digits(i+1, 1, 12) && joined(i+2, '-') && digits(i+2, 1, 31):
		return 3, true
	case len(words[i].text) <= 2 && digits(i, 1, 31) && joined(i+1, '/') && digits(i+1, 1, 31) && joined(i+2, '/') && digits(i+2, 0, 2199):
		return 3, true
	}
	return 0, false
}

func possessive(w string) string {
	return strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
}

// calendarWord returns the month or weekday w names, in full, or "".
// Names that are also everyday words ("may", "sun", "wed") count only
// when capitalised.
func calendarWord(w word) string {
	lower := strings.ToLower(w.text)
	full, ok := calendar[lower]
	if !ok {
		// "on Mondays" names the weekday too.
		if full, ok = calendar[strings.TrimSuffix(lower, "s")]; !ok || isMonth[full] || len(lower) < 6 {
			return ""
		}
	}
	if weakCalendar[lower] {
		if r, _ := utf8.DecodeRuneInString(w.text); !unicode.IsUpper(r) {
			return ""
		}
	}
	return full
}

// word is one run of letters, digits and the marks inside numbers and
// times, with whether it starts a sentence.
type word struct {
	text          string
	sentenceStart bool
	// before is the non-space character just before the word ('£', '$');
	// glued: that character touches the word and the word before it
	// ("12" in "2026-12-01").
	before rune
	glued  bool
	// asks: a question mark ends the sentence right after the word.
	asks bool
}

func split(text string) []word {
	out := make([]word, 0, len(text)/6+1)
	start := true
	var prev rune
	// A word is the run text[from:at] of the runes read in it (from < 0:
	// none being read).
	from, at := -1, 0
	var before rune
	glued := false
	flush := func() {
		if from >= 0 {
			t := strings.Trim(text[from:at], ".,:'’")
			if t != "" {
				out = append(out, word{text: t, sentenceStart: start, before: before, glued: glued})
				start = false
			}
			from = -1
		}
	}
	for i, r := range text {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r) ||
			(from >= 0 && (r == '.' || r == ',' || r == ':') && nextIsDigit(text, i) && unicode.IsDigit(prev)) ||
			(from >= 0 && (r == '\'' || r == '’') && nextIsLetter(text, i)) ||
			(FrameRule && from >= 0 && (r == '\'' || r == '’') && unicode.IsDigit(prev) && nextIsDigit(text, i))
		if inWord {
			if from < 0 {
				from = i
				before = lastNonSpace(text[:i])
				glued = i >= 2 && (text[i-1] == '-' || text[i-1] == '/') && isDigitByte(text[i-2])
			}
			at = i + utf8.RuneLen(r)
		} else {
			title := from >= 0 && titles[strings.ToLower(text[from:at])]
			flush()
			if (r == '.' && !title) || r == '!' || r == '?' || r == ';' || r == '\n' {
				start = true
			}
			if r == '?' && len(out) > 0 {
				out[len(out)-1].asks = true
			}
		}
		prev = r
	}
	flush()
	return out
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// atoiCan reports whether t has the form strconv.Atoi reads: digits after
// an optional sign.
func atoiCan(t string) bool {
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !isDigitByte(t[i]) {
			return false
		}
	}
	return true
}

func nextIsDigit(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i+1:])
	return unicode.IsDigit(r)
}

func nextIsLetter(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	r, _ := utf8.DecodeRuneInString(s[i+size:])
	return unicode.IsLetter(r)
}

func lastNonSpace(s string) rune {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func isNumber(w string) bool {
	if w == "" || !unicode.IsDigit(rune(w[0])) {
		return false
	}
	w = strings.TrimRight(w, "stndrhkm") // 2nd, 3rd, 5th, 10k, 5m
	for _, r := range w {
		if !unicode.IsDigit(r) && r != '.' && r != ',' && !(FrameRule && (r == '\'' || r == '’')) {
			return false
		}
	}
	return true
}

// normNumber drops thousands separators and ordinal suffixes: "18,400" and
// "18400" are one amount, "2nd" is 2.
func normNumber(w string) string {
	w = strings.TrimRight(w, "stndrh")
	if FrameRule {
		w = strings.NewReplacer("'", "", "’", "").Replace(w) // "1'850": Swiss thousands
	}
	return strings.ReplaceAll(w, ",", "")
}

func isYear(n string) bool {
	y, err := strconv.Atoi(n)
	return err == nil && y >= 1900 && y <= 2199
}

// isTime recognises "9:30", "11:00" and "9am"/"9 pm".
func isTime(w string, words []word, i int) bool {
	if strings.Contains(w, ":") {
		h, m, ok := strings.Cut(w, ":")
		if FrameRule && len(m) > 2 && (strings.HasSuffix(m, "am") || strings.HasSuffix(m, "pm")) {
			m = m[:len(m)-2] // "7:30am"
		}
		_, e1 := strconv.Atoi(h)
		_, e2 := strconv.Atoi(m)
		return ok && e1 == nil && e2 == nil
	}
	if strings.HasSuffix(w, "am") || strings.HasSuffix(w, "pm") {
		h := w[:len(w)-2]
		if hh, mm, ok := strings.Cut(h, ":"); ok && FrameRule {
			_, e1 := strconv.Atoi(hh)
			_, e2 := strconv.Atoi(mm)
			return e1 == nil && e2 == nil // "7:30am"
		}
		_, err := strconv.Atoi(h)
		return err == nil
	}
	if i+1 < len(words) && isNumber(w) {
		next := strings.ToLower(words[i+1].text)
		return next == "am" || next == "pm" || next == "o'clock"
	}
	return false
}

func clock(w string) string {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "am"), "pm")
	if !strings.Contains(w, ":") {
		w += ":00"
	}
	return strings.TrimLeft(w, "0")
}

var currencyWords = map[string]bool{
	"pounds": true, "pound": true, "euros": true, "euro": true, "dollars": true, "dollar": true,
	"usd": true, "eur": true, "gbp": true, "percent": true, "pence": true, "cents": true, "quid": true,
	"bucks": true, "yen": true, "francs": true,
}

func amountNear(words []word, i int) bool {
	switch words[i].before {
	case '£', '$', '€', '¥':
		return true
	}
	if FrameRule && (unicode.Is(unicode.Sc, words[i].before) || i+1 < len(words) && currencyCodes[strings.ToLower(words[i+1].text)] ||
		i > 0 && currencyCodes[strings.ToLower(words[i-1].text)] && !words[i].glued) {
		return true
	}
	if i+1 < len(words) && currencyWords[strings.ToLower(words[i+1].text)] {
		return true
	}
	return strings.HasSuffix(words[i].text, "k") && i > 0 && currencyWords[strings.ToLower(words[i-1].text)]
}

// dateNear reports a day number next to a month ("December 2", "2 June").
func dateNear(words []word, i int) bool {
	for _, j := range []int{i - 1, i + 1, i - 2, i + 2} {
		if j >= 0 && j < len(words) && isMonth[calendarWord(words[j])] {
			return true
		}
	}
	return false
}

// calendar maps month and weekday names and abbreviations to the full
// name.
var calendar = map[string]string{}

var isMonth = map[string]bool{}

// weakCalendar are calendar words that are also everyday English.
var weakCalendar = map[string]bool{"may": true, "mar": true, "jan": true, "sat": true, "sun": true, "wed": true, "march": true}

func init() {
	for i, m := range []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"} {
		calendar[m], isMonth[m] = m, true
		if len(m) > 3 {
			calendar[m[:3]] = m
		}
		_ = i
	}
	calendar["sept"] = "september"
	for _, d := range []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"} {
		calendar[d], calendar[d[:3]] = d, d
	}
	calendar["tues"], calendar["thurs"] = "tuesday", "thursday"
}

var numberWords = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30, "hundred": 100, "thousand": 1000,
	"once": 1, "twice": 2,
}

var negationWords = map[string]bool{
	"not": true, "no": true, "never": true, "nobody": true, "nothing": true, "none": true, "cannot": true,
	"without": true, "neither": true, "nor": true,
}

// commonWords are capitalised only for emphasis or by habit; they are not
// names wherever they stand.
var commonWords = map[string]bool{
	"ok": true, "okay": true, "yes": true, "tv": true, "user": true, "assistant": true,
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true,
}

// titles stand before names; the full stop after one ends no sentence.
var titles = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true}

// commonStarters are words that start sentences without being names.
var commonStarters = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the this that these those my our your his her their its we you he she they it
		there here what when where why how who which whose if then so but and or also just only still
		all some any each every both no not never always often usually maybe perhaps please remember note
		today tomorrow yesterday tonight now next last new old first paid bought booked got went had has have
		is are was were be been being do does did will would can could should may might must shall
		i'm i've i'd i'll we're we've you're they're it's that's there's let's don't doesn't didn't can't won't
		in on at by for from with to of as after before since until during about over under into onto
		decided started finished moved called asked told said need needs want wants like likes love loves
		user assistant mum mom dad mother father sister brother wife husband partner friend
		dentist doctor meeting appointment call lunch dinner breakfast flight train bus car trip
		hey hi hello thanks thank wow oh yeah yep sure great good nice cool awesome`) {
		commonStarters[w] = true
	}
}
