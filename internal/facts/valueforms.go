package facts

import (
	"strconv"
	"strings"
	"unicode"
)

// ValueForms turns on the reading of times and amounts in the forms people
// write them that the plain reading misses (issue 23: held-out updates
// whose changed value was not read as one): a time with a dot or an "h"
// ("8.30pm", "at 4.30", "Wednesdays 4.30", "20h00"), a time said in words
// ("half seven", "half past six", "quarter to six"), thousands as "k"
// ("5k", "R3.5k", "£1.2k"), thousands set apart by a space after a glued
// currency ("R19 200"), and an amount or count said in words ("a hundred
// and seventy quid", "four hundred and fifty rand", "twelve hundred").
// Off by default; infmem-bench --relate-value-forms turns it on.
var ValueForms = false

// valueForm reads a value at words[i] in one of the forms of ValueForms:
// its kind, value and how many words it took.
func valueForm(words []word, i int) (Kind, string, int, bool) {
	lower := strings.ToLower(words[i].text)
	prev := ""
	if i > 0 {
		prev = strings.ToLower(words[i-1].text)
	}
	// "20h00", "19h30".
	if h, m, ok := strings.Cut(lower, "h"); ok && len(m) == 2 && len(h) >= 1 && len(h) <= 2 {
		if hh, e1 := strconv.Atoi(h); e1 == nil && hh <= 23 {
			if mm, e2 := strconv.Atoi(m); e2 == nil && mm < 60 {
				return Time, clock12(hh, m), 1, true
			}
		}
	}
	// "8.30pm", "8.30 pm", "at 4.30", "Wednesdays 4.30".
	if h, m, ok := strings.Cut(lower, "."); ok && len(h) >= 1 && len(h) <= 2 && len(m) >= 2 {
		suffix := strings.TrimLeft(m, "0123456789")
		digits := m[:len(m)-len(suffix)]
		hh, e1 := strconv.Atoi(h)
		mm, e2 := strconv.Atoi(digits)
		if e1 == nil && e2 == nil && len(digits) == 2 && hh <= 23 && mm < 60 && !unicode.Is(unicode.Sc, words[i].before) {
			next := ""
			if i+1 < len(words) {
				next = strings.ToLower(words[i+1].text)
			}
			switch {
			case suffix == "am" || suffix == "pm":
				return Time, clock12(hh, digits), 1, true
			case suffix == "" && (next == "am" || next == "pm"):
				return Time, clock12(hh, digits), 2, true
			case suffix == "" && hh >= 1 && hh <= 12 && (prev == "at" || prev == "from" || prev == "until" || prev == "till" || weekday(prev)):
				return Time, clock12(hh, digits), 1, true
			}
		}
	}
	// "half seven", "half past seven", "quarter to six", "quarter past 6".
	if lower == "half" || lower == "quarter" {
		j := i + 1
		rel := ""
		if j < len(words) {
			if w := strings.ToLower(words[j].text); w == "past" || w == "to" && lower == "quarter" {
				rel = w
				j++
			}
		}
		if j < len(words) && (rel != "" || lower == "half") {
			h := hourWord(strings.ToLower(words[j].text))
			if h > 0 {
				m := map[string]int{"half": 30, "quarter": 15}[lower]
				if rel == "to" {
					h, m = (h+10)%12+1, 45
				}
				return Time, clock12(h, strconv.Itoa(100 + m)[1:]), j - i + 1, true
			}
		}
	}
	// "5k", "3.5k", "R3.5k", "£1.2k".
	if body, ok := strings.CutSuffix(lower, "k"); ok {
		cur := unicode.Is(unicode.Sc, words[i].before)
		for _, p := range currencyPrefixes {
			if rest, ok := strings.CutPrefix(body, p); ok && rest != "" && isNumber(rest) {
				body, cur = rest, true
				break
			}
		}
		if f, err := strconv.ParseFloat(strings.ReplaceAll(body, ",", ""), 64); err == nil && f > 0 && f < 10000 {
			_ = cur // an amount either way: "5k" is said of money
			return Amount, strconv.FormatFloat(f*1000, 'f', -1, 64), 1, true
		}
	}
	// "R19 200", "R1 500": a glued currency, thousands after a space.
	for _, p := range currencyPrefixes {
		if rest, ok := strings.CutPrefix(lower, p); ok && rest != "" && len(rest) <= 3 && atoiCan(rest) && rest[0] != '+' && rest[0] != '-' && i+1 < len(words) {
			next := words[i+1].text
			if len(next) == 3 && atoiCan(next) && next[0] != '+' && next[0] != '-' && (words[i+1].before == 0 || words[i+1].before == rune(rest[len(rest)-1])) {
				return Amount, normNumber(rest + next), 2, true
			}
		}
	}
	// "a hundred and seventy quid", "four hundred and fifty rand",
	// "twelve hundred": a number said in two words or more.
	if v, n := spelledNumber(words, i); n >= 2 {
		kind := Number
		if i+n < len(words) {
			if w := strings.ToLower(words[i+n].text); currencyWords[w] || currencyCodes[w] || w == "rand" || w == "bucks" {
				kind = Amount
			}
		}
		return kind, strconv.Itoa(v), n, true
	}
	return "", "", 0, false
}

// clock12 writes an hour and minutes as clock does ("8:30"): hours past
// noon on the twelve-hour dial, so "20h00" and "8pm" read alike.
func clock12(h int, m string) string {
	if h > 12 {
		h -= 12
	}
	return strconv.Itoa(h) + ":" + m
}

func weekday(w string) bool {
	switch calendar[strings.TrimSuffix(w, "s")] {
	case "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday":
		return true
	}
	return false
}

// hourWord reads an hour written as a digit or a word ("six", "7").
func hourWord(w string) int {
	if h, err := strconv.Atoi(w); err == nil && h >= 1 && h <= 12 {
		return h
	}
	if h := spelledUnits[w]; h >= 1 && h <= 12 {
		return h
	}
	return 0
}

var spelledUnits = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19}

var spelledTens = map[string]int{"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
	"eighty": 80, "ninety": 90}

// spelledNumber reads a number said in words from words[i] ("a hundred
// and seventy", "four hundred and fifty", "twelve hundred", "twenty
// five"): its value and how many words it took (0 when none).
func spelledNumber(words []word, i int) (int, int) {
	total, cur, n, read := 0, 0, 0, false
	last := "" // the kind of the last word read: unit, ten, hundred, thousand, and
	j := i
	for ; j < len(words); j++ {
		w := strings.ToLower(words[j].text)
		if b := words[j].before; j > i && b != 0 && b != '-' && !unicode.IsLetter(b) && !unicode.IsDigit(b) {
			break // a comma or other mark ends the number
		}
		switch {
		case w == "a" && j == i && j+1 < len(words) && (strings.EqualFold(words[j+1].text, "hundred") || strings.EqualFold(words[j+1].text, "thousand")):
			cur, last = 1, "unit"
		case spelledUnits[w] > 0 && last != "unit":
			cur += spelledUnits[w]
			read, last = true, "unit"
		case spelledTens[w] > 0 && last != "unit" && last != "ten":
			cur += spelledTens[w]
			read, last = true, "ten"
		case w == "hundred" && cur > 0 && cur < 100 && (last == "unit" || last == "ten"):
			cur *= 100
			read, last = true, "hundred"
		case w == "thousand" && cur > 0 && last != "thousand" && last != "and":
			total, cur = (total+cur)*1000, 0
			read, last = true, "thousand"
		case w == "and" && (last == "hundred" || last == "thousand") && j+1 < len(words) && (spelledUnits[strings.ToLower(words[j+1].text)] > 0 || spelledTens[strings.ToLower(words[j+1].text)] > 0):
			last = "and"
		default:
			goto done
		}
		n++
	}
done:
	if !read {
		return 0, 0
	}
	return total + cur, n
}
