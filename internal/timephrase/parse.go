package timephrase

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/olebedev/when"
)

// ErrUnrecognized is wrapped by every error Parse returns: the phrase could
// not be turned into a time range. The message quotes the phrase, says why
// when it can (for example "February 2023 has no day 30") and lists phrases
// that are understood, so it can be shown to the model as is.
var ErrUnrecognized = errors.New("cannot interpret time phrase")

// examples is appended to every error so that the reader can rephrase.
const examples = `phrases understood include "yesterday", "this morning", "last week", "3 days ago", "the past 2 weeks", "last Monday", "March 2023", "2024-05-01", "since Monday", "before 2024" and "from March 1 to March 15"`

// maxPhraseLen bounds the work done for one phrase; a time reference, even
// inside a whole question, is far shorter.
const maxPhraseLen = 1000

// Range is the half-open interval [From, To) of the time a phrase names.
// Both ends are in the location given to Parse, except that a range open at
// the start ("before 2024", "until yesterday") has the zero time.Time as
// From; test it with From.IsZero().
type Range struct {
	From, To time.Time
}

// Contains reports whether t falls in the range.
func (r Range) Contains(t time.Time) bool {
	return !t.Before(r.From) && t.Before(r.To)
}

func (r Range) String() string {
	return "[" + r.From.Format(time.RFC3339) + ", " + r.To.Format(time.RFC3339) + ")"
}

// Parser interprets time phrases. Build one with New. A Parser is safe for
// concurrent use.
type Parser struct {
	weekStart time.Weekday
	// fallback reads what the rules here do not; nil disables it (tests).
	fallback *when.Parser
}

// Option configures a Parser.
type Option func(*Parser)

// WithWeekStart sets the first day of the week for "this week", "last week"
// and "Monday of last week". The default is Monday. Weekends are Saturday and
// Sunday whatever the week start.
func WithWeekStart(d time.Weekday) Option {
	return func(p *Parser) { p.weekStart = time.Weekday((int(d)%7 + 7) % 7) }
}

// New returns a Parser with weeks starting on Monday unless an option says
// otherwise.
func New(opts ...Option) *Parser {
	p := &Parser{weekStart: time.Monday, fallback: newFallback()}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Parse interprets phrase relative to now with a Parser built by New().
func Parse(phrase string, now time.Time, loc *time.Location) (Range, error) {
	return New().Parse(phrase, now, loc)
}

// ctx is what rules need to place a phrase in time.
type ctx struct {
	now       time.Time // in the user's location
	weekStart time.Weekday
}

// Parse interprets phrase as seen by a user in loc at instant now and returns
// the time it names. A nil loc means now's location. Words around the time
// reference are ignored ("what did we discuss last week?"). Rules of this
// package are tried first; github.com/olebedev/when reads what they do not,
// and its answer is used only if it accounts for more of the phrase.
func (p *Parser) Parse(phrase string, now time.Time, loc *time.Location) (Range, error) {
	if loc == nil {
		loc = now.Location()
	}
	if len(phrase) > maxPhraseLen {
		return Range{}, unrecognized(strings.ToValidUTF8(phrase[:40], "")+"…", fmt.Sprintf("the phrase is %d bytes long, more than %d", len(phrase), maxPhraseLen))
	}
	toks := tokenize(phrase)
	if len(toks) == 0 {
		return Range{}, unrecognized(phrase, "the phrase is empty")
	}
	c := &ctx{now: now.In(loc), weekStart: p.weekStart}
	ch := newChart(c, toks)
	best, found := ch.best()

	var r Range
	useWhen := false
	if p.fallback != nil && (!found || best.words() < len(toks)) {
		wr, covered, ok := p.readWithWhen(c, ch)
		if ok && (!found || covered > best.words()) {
			r, useWhen = wr, true
		}
	}
	switch {
	case useWhen:
	case !found:
		return Range{}, unrecognized(phrase, "")
	case best.err != nil:
		return Range{}, unrecognized(phrase, best.err.Error())
	default:
		r = best.p.r
	}
	if err := check(r); err != nil {
		return Range{}, unrecognized(phrase, err.Error())
	}
	return r, nil
}

// check rejects empty ranges and ranges outside years 1 to 9999, which no
// memory has and which time.Time cannot encode as JSON or RFC 3339 for the
// tool's reply.
func check(r Range) error {
	if !r.From.Before(r.To) {
		return fmt.Errorf("it names no time: the range would start at %s and end at %s", r.From.Format(time.RFC3339), r.To.Format(time.RFC3339))
	}
	if (!r.From.IsZero() && r.From.Year() < 1) || r.To.After(time.Date(10000, time.January, 1, 0, 0, 0, 0, r.To.Location())) {
		return fmt.Errorf("the range %s falls outside years 1 to 9999", r)
	}
	return nil
}

func unrecognized(phrase, reason string) error {
	if reason != "" {
		return fmt.Errorf("%w %q: %s; %s", ErrUnrecognized, phrase, reason, examples)
	}
	return fmt.Errorf("%w %q; %s", ErrUnrecognized, phrase, examples)
}
