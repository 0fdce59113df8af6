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
	Negation Kind = "negation"
)

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
	for _, k := range []Kind{Number, Amount, Date, Time, Name, Negation} {
		same := slices.Equal(x.byKind[k], y.byKind[k])
		if k == Name {
			same = sameNames(x, y)
		}
		if !same {
			out = append(out, k)
		}
	}
	return out
}

// sameNames compares the names of x and y as multisets; a name left over
// that may not be one (it starts a sentence) is forgiven when the other
// text has the word anyway ("Kitchen quote…" and "the kitchen quote").
func sameNames(x, y Details) bool {
	xs, ys := x.names(), y.names()
	onlyX, onlyY := minus(xs, ys), minus(ys, xs)
	forgiven := func(left []string, d, other Details) bool {
		for _, n := range left {
			if !slices.Contains(d.maybeNames, n) || !other.words[n] {
				return false
			}
		}
		return true
	}
	return forgiven(onlyX, x, y) && forgiven(onlyY, y, x)
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
	d := Details{byKind: map[Kind][]string{}, words: map[string]bool{}}
	add := func(k Kind, v string) { d.byKind[k] = append(d.byKind[k], v) }
	words := split(text)
	negations := 0
	for i, w := range words {
		lower := strings.ToLower(w.text)
		d.words[possessive(lower)] = true
		switch {
		case isTime(lower, words, i):
			add(Time, clock(lower))
		case isNumber(lower):
			n := normNumber(lower)
			switch {
			case amountNear(words, i):
				add(Amount, n)
			case dateNear(words, i) || isYear(n):
				add(Date, n)
			default:
				add(Number, n)
			}
		case numberWords[lower] != 0:
			add(Number, strconv.Itoa(numberWords[lower]))
		case calendarWord(w) != "":
			add(Date, calendarWord(w))
		case negationWords[lower] || strings.HasSuffix(lower, "n't"):
			negations++
		default:
			r, _ := utf8.DecodeRuneInString(w.text)
			switch {
			case !unicode.IsUpper(r) || lower == "i" || commonWords[lower]:
			case !w.sentenceStart:
				add(Name, possessive(lower))
			case !commonStarters[lower]:
				d.maybeNames = append(d.maybeNames, possessive(lower))
			}
		}
	}
	if negations%2 == 1 {
		add(Negation, "not")
	}
	for _, v := range d.byKind {
		slices.Sort(v)
	}
	return d
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
		return ""
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
	// before is the non-space character just before the word ('£', '$').
	before rune
}

func split(text string) []word {
	var out []word
	start := true
	var prev rune
	var b strings.Builder
	var before rune
	flush := func() {
		if b.Len() > 0 {
			t := strings.Trim(b.String(), ".,:'’")
			if t != "" {
				out = append(out, word{text: t, sentenceStart: start, before: before})
				start = false
			}
			b.Reset()
		}
	}
	for i, r := range text {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r) ||
			(b.Len() > 0 && (r == '.' || r == ',' || r == ':') && nextIsDigit(text, i) && unicode.IsDigit(prev)) ||
			(b.Len() > 0 && (r == '\'' || r == '’') && nextIsLetter(text, i))
		if inWord {
			if b.Len() == 0 {
				before = lastNonSpace(text[:i])
			}
			b.WriteRune(r)
		} else {
			title := b.Len() > 0 && titles[strings.ToLower(b.String())]
			flush()
			if (r == '.' && !title) || r == '!' || r == '?' || r == ';' || r == '\n' {
				start = true
			}
		}
		prev = r
	}
	flush()
	return out
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
		if !unicode.IsDigit(r) && r != '.' && r != ',' {
			return false
		}
	}
	return true
}

// normNumber drops thousands separators and ordinal suffixes: "18,400" and
// "18400" are one amount, "2nd" is 2.
func normNumber(w string) string {
	w = strings.TrimRight(w, "stndrh")
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
		_, e1 := strconv.Atoi(h)
		_, e2 := strconv.Atoi(m)
		return ok && e1 == nil && e2 == nil
	}
	if strings.HasSuffix(w, "am") || strings.HasSuffix(w, "pm") {
		_, err := strconv.Atoi(w[:len(w)-2])
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
