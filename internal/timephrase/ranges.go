package timephrase

import (
	"errors"
	"strings"
	"time"
)

// The chart holds every reading found in the phrase: first each rule's
// match at each word (layer 0), then combinations of those. The reading
// covering the most words wins, so "from March 1 to March 15" beats "March 1"
// and surrounding words ("what did we discuss ...?") are ignored.
const (
	layerSimple = iota
	layerDayTime
	layerBetween
	layerOpen
)

type candidate struct {
	start, end int // words [start, end)
	layer      int
	order      int // rule index; earlier rules win ties
	p          period
	err        error // the words name a time that does not exist
}

func (a candidate) words() int { return a.end - a.start }

// beats orders readings: more words, then a combination over its parts, then
// the earlier rule, then the earlier position.
func (a candidate) beats(b candidate) bool {
	switch {
	case a.words() != b.words():
		return a.words() > b.words()
	case a.layer != b.layer:
		return a.layer > b.layer
	case a.order != b.order:
		return a.order < b.order
	default:
		return a.start < b.start
	}
}

type chart struct {
	c     *ctx
	toks  []string
	text  string
	offs  []int
	cands []candidate
}

func newChart(c *ctx, toks []string) *chart {
	ch := &chart{c: c, toks: toks, text: strings.Join(toks, " "), offs: make([]int, len(toks))}
	off := 0
	for i, t := range toks {
		ch.offs[i] = off
		off += len(t) + 1
	}
	for i := range toks {
		for k, r := range simpleRules {
			m, ok := r.find(c, toks, ch.text, ch.offs, i)
			if !ok {
				continue
			}
			p, err := r.build(m)
			if errors.Is(err, errDecline) {
				continue
			}
			ch.cands = append(ch.cands, candidate{start: i, end: m.end, layer: layerSimple, order: k, p: p, err: err})
		}
	}
	ch.addDayTimes()
	ch.addBetweens()
	ch.addOpenEnded()
	return ch
}

// best returns the winning reading. "now" alone is not one: it only ends a
// range ("from March until now").
func (ch *chart) best() (candidate, bool) {
	var best candidate
	found := false
	for _, a := range ch.cands {
		if a.err == nil && a.p.unit == unitInstant {
			continue
		}
		if !found || a.beats(best) {
			best, found = a, true
		}
	}
	return best, found
}

// upTo returns the readings of at most the given layer; combinations are
// built only from simpler ones.
func (ch *chart) upTo(layer int) []candidate {
	var out []candidate
	for _, a := range ch.cands {
		if a.layer <= layer {
			out = append(out, a)
		}
	}
	return out
}

// word returns word i, or "" past the end.
func (ch *chart) word(i int) string {
	if i < 0 || i >= len(ch.toks) {
		return ""
	}
	return ch.toks[i]
}

// addDayTimes combines a day with a part of the day ("yesterday evening",
// "Monday in the morning", "Friday night") or a clock time ("yesterday at
// 5pm", "5pm on Monday").
func (ch *chart) addDayTimes() {
	simple := ch.upTo(layerSimple)
	for _, a := range simple {
		if a.err != nil || a.p.unit != unitDay {
			continue
		}
		j := a.end
		if ch.word(j) == "in" && ch.word(j+1) == "the" {
			j += 2
		} else if ch.word(j) == "at" && ch.word(j+1) == "night" {
			j++
		}
		if part := ch.word(j); dayParts[part] != [2]int{} {
			p := a.p.mapped(unitPart, func(r Range) Range { return partOf(r, part) })
			ch.cands = append(ch.cands, candidate{start: a.start, end: j + 1, layer: layerDayTime, p: p})
		}
		for _, b := range simple {
			if b.err == nil && b.p.clock >= 0 && b.start == a.end {
				ch.cands = append(ch.cands, candidate{start: a.start, end: b.end, layer: layerDayTime, p: atClock(a.p, b.p.clock)})
			}
		}
	}
	for _, b := range simple {
		if b.err != nil || b.p.clock < 0 {
			continue
		}
		j := b.end
		if ch.word(j) == "on" {
			j++
		}
		for _, a := range simple {
			if a.err == nil && a.p.unit == unitDay && a.start == j {
				ch.cands = append(ch.cands, candidate{start: b.start, end: a.end, layer: layerDayTime, p: atClock(a.p, b.p.clock)})
			}
		}
	}
}

func atClock(day period, h int) period {
	p := day.mapped(unitHour, func(r Range) Range { return atHour(r, h) })
	p.clock = h
	return p
}

// connective returns the number of words of a range connective ("to",
// "until", "-", "up to") starting at word i, or 0.
func (ch *chart) connective(i int) int {
	switch ch.word(i) {
	case "to", "until", "till", "til", "through", "thru", "-", "and":
		return 1
	case "up":
		if w := ch.word(i + 1); w == "to" || w == "until" {
			return 2
		}
	}
	return 0
}

// addBetweens builds explicit ranges: "from X to Y", "between X and Y",
// "X - Y", "X through Y". Both ends are included whole, except that a clock
// time ending a range is an instant (see period.asEnd).
func (ch *chart) addBetweens() {
	parts := ch.upTo(layerDayTime)
	for _, a := range parts {
		n := ch.connective(a.end)
		if n == 0 {
			continue
		}
		start := a.start
		if w := ch.word(start - 1); w == "from" || w == "between" || w == "since" {
			start--
		}
		for _, b := range parts {
			if b.start != a.end+n {
				continue
			}
			c := candidate{start: start, end: b.end, layer: layerBetween, err: firstErr(a.err, b.err)}
			if c.err == nil {
				c.p = fixed(unitSpan, between(a.p, b.p))
			}
			ch.cands = append(ch.cands, c)
			if c.err == nil && a.layer == layerSimple && b.layer == layerSimple && a.p.clock >= 0 && b.p.clock >= 0 {
				ch.addHoursOfDay(start, b.end, a.p.clock, b.p.clock)
			}
		}
	}
}

// addHoursOfDay puts a range of clock times, words [start, end), on a day
// given just before or after it: "yesterday between 9am and 5pm", "from 9am
// to 5pm on Monday". An end not after the start is on the next day
// ("yesterday from 10pm to 2am").
func (ch *chart) addHoursOfDay(start, end, from, to int) {
	hours := func(day Range) Range {
		endDay := day
		if to <= from {
			endDay = dayOf(day.To)
		}
		return Range{From: atHour(day, from).From, To: atHour(endDay, to).From}
	}
	for _, d := range ch.upTo(layerSimple) {
		if d.err != nil || d.p.unit != unitDay {
			continue
		}
		switch {
		case d.end == start:
			ch.cands = append(ch.cands, candidate{start: d.start, end: end, layer: layerBetween, p: d.p.mapped(unitSpan, hours)})
		case d.start == end || (d.start == end+1 && ch.word(end) == "on"):
			ch.cands = append(ch.cands, candidate{start: start, end: d.end, layer: layerBetween, p: d.p.mapped(unitSpan, hours)})
		}
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// openEnds maps the words that open a range on one side to how the range is
// built from the period they govern. A missing start is the zero time; a
// missing end is now.
var openEnds = map[string]func(r Range, now time.Time) Range{
	"since":        func(r Range, now time.Time) Range { return Range{From: r.From, To: now} },
	"after":        func(r Range, now time.Time) Range { return Range{From: r.To, To: now} },
	"before":       func(r Range, _ time.Time) Range { return Range{To: r.From} },
	"prior to":     func(r Range, _ time.Time) Range { return Range{To: r.From} },
	"earlier than": func(r Range, _ time.Time) Range { return Range{To: r.From} },
	"until":        func(r Range, _ time.Time) Range { return Range{To: r.To} },
	"till":         func(r Range, _ time.Time) Range { return Range{To: r.To} },
	"til":          func(r Range, _ time.Time) Range { return Range{To: r.To} },
	"up to":        func(r Range, _ time.Time) Range { return Range{To: r.To} },
	"up until":     func(r Range, _ time.Time) Range { return Range{To: r.To} },
	"through":      func(r Range, _ time.Time) Range { return Range{To: r.To} },
	"thru":         func(r Range, _ time.Time) Range { return Range{To: r.To} },
}

// addOpenEnded builds ranges open on one side: "since Monday", "before
// 2024", "until yesterday", "March onwards", "from May on".
func (ch *chart) addOpenEnded() {
	for _, a := range ch.upTo(layerDayTime) {
		for _, n := range []int{2, 1} {
			if a.start-n < 0 {
				continue
			}
			word := strings.Join(ch.toks[a.start-n:a.start], " ")
			if build, ok := openEnds[word]; ok {
				ch.addOpen(a, a.start-n, a.end, build)
				break
			}
		}
		switch w := ch.word(a.end); {
		case w == "onwards" || w == "onward":
			start := a.start
			if ch.word(start-1) == "from" {
				start--
			}
			ch.addOpen(a, start, a.end+1, openEnds["since"])
		case w == "on" && ch.word(a.start-1) == "from":
			ch.addOpen(a, a.start-1, a.end+1, openEnds["since"])
		}
	}
}

func (ch *chart) addOpen(a candidate, start, end int, build func(Range, time.Time) Range) {
	c := candidate{start: start, end: end, layer: layerOpen, err: a.err}
	if c.err == nil {
		c.p = fixed(unitSpan, build(a.p.asEnd().r, ch.c.now))
	}
	ch.cands = append(ch.cands, c)
}
