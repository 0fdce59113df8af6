package summarize

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ErrUnfaithful means a model-written summary states a number or name the
// conversation does not contain; the summary is discarded.
var ErrUnfaithful = errors.New("summary mentions facts that are not in the conversation")

// checkFaithful rejects a model-written summary that mentions a number, or
// a capitalised word (a likely name, place or weekday), found nowhere in
// the conversation or its timestamps. It cannot prove a summary right, but
// it catches the invented facts that would do harm later: wrong amounts,
// dates, people. A false alarm only means falling back to the extractive
// summary.
func checkFaithful(summary string, msgs []Message, loc *time.Location) error {
	var src strings.Builder
	src.WriteString(header(msgs, loc))
	for _, m := range msgs {
		src.WriteString("\n")
		src.WriteString(m.Speaker)
		src.WriteString(": ")
		src.WriteString(m.Text)
		if !m.Timestamp.IsZero() {
			t := inLoc(m.Timestamp, loc)
			// The model sees timestamps as "2023-05-08 14:02"; a
			// summary may name their month.
			fmt.Fprintf(&src, " %s %s", t.Format("2006-01-02 15:04"), t.Month())
		}
	}
	source := src.String()
	for _, m := range isoDateRE.FindAllStringSubmatch(source, -1) {
		if mo, err := strconv.Atoi(m[2]); err == nil && mo >= 1 && mo <= 12 {
			source += " " + time.Month(mo).String()
		}
	}
	nums := numbersIn(source)
	known := map[string]bool{}
	for _, t := range words(source) {
		known[normWord(t.lower)] = true
	}
	var bad []string
	for n := range numbersIn(summary) {
		if !nums[n] {
			bad = append(bad, n)
		}
	}
	for _, t := range words(summary) {
		if r, _ := utf8.DecodeRuneInString(t.text); !unicode.IsUpper(r) {
			continue
		}
		lw := normWord(t.lower)
		if lw == "i" || strings.HasPrefix(lw, "i'") || chatWords[lw] || summaryWords[lw] || known[lw] {
			continue
		}
		if t.initial && !isAcronym(t.text) && (commonWords[lw] || looksLikeVerbOrAdverb(lw)) {
			continue
		}
		if stemKnown(lw, known) {
			continue
		}
		bad = append(bad, t.text)
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return fmt.Errorf("%w: %s", ErrUnfaithful, strings.Join(slices.Compact(bad), ", "))
}

var (
	isoDateRE      = regexp.MustCompile(`\b(\d{4})-(\d{1,2})-\d{1,2}\b`)
	digitsRE       = regexp.MustCompile(`\d+`)
	thousandsSepRE = regexp.MustCompile(`\b\d{1,3}(?:,\d{3})+\b`)
)

// numbersIn returns the numbers in s as canonical digit strings: digit
// runs without leading zeros ("05" → "5", "1,200" → "1200") and number
// words as digits ("three" → "3").
func numbersIn(s string) map[string]bool {
	s = thousandsSepRE.ReplaceAllStringFunc(s, func(m string) string { return strings.ReplaceAll(m, ",", "") })
	out := map[string]bool{}
	for _, d := range digitsRE.FindAllString(s, -1) {
		if d = strings.TrimLeft(d, "0"); d == "" {
			d = "0"
		}
		out[d] = true
	}
	for _, t := range words(s) {
		if v, ok := numberWordValues[t.lower]; ok {
			out[v] = true
		}
	}
	return out
}

var numberWordValues = map[string]string{
	"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
	"seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
	"thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
	"eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
	"fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
	"hundred": "100", "thousand": "1000", "million": "1000000", "dozen": "12",
}

func normWord(w string) string { return strings.ReplaceAll(w, "’", "'") }

// stemKnown accepts a word sharing a long prefix with a word of the
// source ("Italian" for "Italy", "Lisbon's" for "Lisbon").
func stemKnown(w string, known map[string]bool) bool {
	w = strings.TrimSuffix(w, "'s")
	if known[w] {
		return true
	}
	wr := []rune(w)
	if len(wr) < 4 {
		return false
	}
	for k := range known {
		kr := []rune(k)
		if len(kr) < 4 {
			continue
		}
		n := 0
		for n < len(wr) && n < len(kr) && wr[n] == kr[n] {
			n++
		}
		if n >= 4 && n >= min(len(wr), len(kr))-2 {
			return true
		}
	}
	return false
}

func looksLikeVerbOrAdverb(w string) bool {
	return len(w) > 4 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ly"))
}

// summaryWords are what a summary says about a conversation rather than
// from it.
var summaryWords = setOf("conversation", "conversations", "summary", "participants", "participant",
	"speaker", "speakers", "user", "assistant", "topic", "topics", "key", "points", "decisions",
	"decision", "discussion", "overall", "both", "they")
