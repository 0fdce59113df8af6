package facts

import (
	"slices"
	"strings"
)

// Questions about a value as it stands now ("What is my monthly grocery
// budget?", "How many sources are in my Zotero library?", "When is my
// Zoom call with the creative director?"): when several memories state
// such a value for what the question names, the latest one holds, even
// when nothing linked the two at store time. AskCurrent reads the
// question; States tells whether a statement gives such a value.

// Asked is a question read for States.
type Asked struct {
	// kinds are the details that answer it.
	kinds map[Kind]bool
	// subject holds the stems of its words and its names (lower case),
	// true for a name.
	subject map[string]bool
	// head is the stem of the word the asked value belongs to ("cards"
	// in "How many project cards…", "deadline" in "What is the deadline
	// for…"); "" when the question names none but the value's kind.
	head string
	// mods are the stems of the words before the head word in that noun
	// phrase ("monthly" in "my monthly budget"), names and words of the
	// value's kind aside.
	mods []string
	// given holds the numbers, amounts, dates and times the question
	// states itself ("using Bootstrap 5.3.0", "by March 1"): they say
	// which thing it asks about, and a memory that repeats one of them
	// does not state the asked value by it.
	given map[string]bool
	// named: the question's words say the kind of value it asks for
	// ("how many", "when", "budget", "deadline"), not only "what".
	named bool
}

// AskCurrent reads a question that asks for a number, amount, date or
// time as it stands now; nil for anything else: not a question, or one
// about the past ("When did…", "What was…", "originally").
func AskCurrent(question string) *Asked {
	toks := scan(prose(question))
	if len(toks) < 3 {
		return nil
	}
	// "What is…", "How many…", "By what date…", "Is the…".
	first := ""
	for _, t := range toks[:3] {
		if questionWords[t.lower] {
			first = t.lower
			break
		}
	}
	if first == "" && !auxiliaries[toks[0].lower] {
		return nil
	}
	for i, t := range toks {
		if t.lower == "first" && i > 0 && determiners[toks[i-1].lower] {
			// "the first sprint", "my first draft": which one, not when.
			continue
		}
		if t.lower == "used" && (i+1 == len(toks) || toks[i+1].lower != "to") {
			// "the API key used in my app": which one; "used to" asks
			// what was.
			continue
		}
		if pastWords[t.lower] || aggregateWords[t.lower] {
			return nil
		}
	}
	a := &Asked{kinds: map[Kind]bool{}, subject: map[string]bool{}, given: map[string]bool{}}
	for _, t := range toks {
		switch t.kind {
		case Number, Amount, Date, Time:
			a.given[t.value] = true
		}
	}
	for i, t := range toks {
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1].lower
		}
		switch {
		case t.lower == "how" && (next == "many" || next == "much" || next == "long" || next == "often" || next == "far" || next == "old"):
			a.kinds[Number], a.kinds[Amount] = true, true
		case t.lower == "how":
			// "How does the price compare…", "How will…": not a value.
			return nil
		case t.lower == "when" && len(next) > 4 && strings.HasSuffix(next, "ing"):
			// "When building an app that calls a REST API, what errors…":
			// a condition, not a question about when.
		case t.lower == "what" && next == "time", t.lower == "when" && first == "when":
			a.kinds[Date], a.kinds[Time] = true, true
		case dateWords[t.lower]:
			a.kinds[Date], a.kinds[Time] = true, true
		case amountWords[t.lower]:
			a.kinds[Amount], a.kinds[Number] = true, true
		case countWords[t.lower]:
			a.kinds[Number] = true
		}
	}
	a.named = len(a.kinds) > 0
	if len(a.kinds) == 0 {
		if first != "what" && first != "what's" {
			return nil
		}
		// "What is the average response time of the dashboard API?"
		for _, k := range []Kind{Number, Amount, Date, Time} {
			a.kinds[k] = true
		}
	}
	for _, u := range unitsOf(toks) {
		for w := range u.content {
			if !askWords[w] {
				a.subject[w] = false
			}
		}
		for n := range u.names {
			a.subject[n] = true
		}
	}
	if len(a.subject) == 0 {
		return nil
	}
	a.head, a.mods = headOf(toks)
	return a
}

// headOf finds the word a question's value belongs to: the last word of
// the noun phrase after "how many/much" or after "what/which/when" and
// its verb ("What is my weekly word count target for…" → target), or the
// word before when that word only names the value's kind ("accuracy
// percentage" → accuracy), and the words before it there ("weekly",
// "word"). "" when there is none.
func headOf(toks []token) (head string, mods []string) {
	start := -1
	for i, t := range toks[:min(3, len(toks))] {
		switch {
		case t.lower == "how" && i+1 < len(toks) && (toks[i+1].lower == "many" || toks[i+1].lower == "much"):
			start = i + 2
		case t.lower == "what" || t.lower == "which" || t.lower == "when" || t.lower == "what's":
			start = i + 1
		default:
			continue
		}
		break
	}
	if start < 0 {
		return "", nil
	}
	for start < len(toks) && (auxiliaries[toks[start].lower] || determiners[toks[start].lower] || possessives[toks[start].lower]) {
		start++
	}
	var phrase []token
	for _, t := range toks[start:] {
		if t.kind == Name || t.kind == Place {
			// "my Zoom call": a name says which one.
			phrase = append(phrase, t)
			continue
		}
		if t.kind != "" || phraseStops[t.lower] || auxiliaries[t.lower] || pronouns[t.lower] || determiners[t.lower] ||
			possessives[t.lower] || len(phrase) > 0 && strings.HasSuffix(t.lower, "ed") {
			break
		}
		phrase = append(phrase, t)
	}
	for i := len(phrase) - 1; i >= 0; i-- {
		if w := phrase[i].lower; !phrase[i].maybeName && phrase[i].kind == "" && !kindWords[w] {
			for _, t := range phrase[:i] {
				if !t.maybeName && t.kind == "" && !kindWords[t.lower] && !stopWords[t.lower] {
					mods = append(mods, t.lower)
				}
			}
			return stem(w), mods
		}
	}
	return "", nil
}

// Foreign reports whether s, stating the asked value beside the head
// word, puts a word right before that word that neither the question
// nor other has: the value of another thing ("The Hermes project budget
// is £55,000" for "What's our budget for the bathroom?", beside "the
// bathroom renovation budget").
func (a *Asked) Foreign(s, other *Statement) bool {
	for i := range s.units {
		u := &s.units[i]
		for j, t := range u.toks {
			if j == 0 || t.kind != "" || stem(t.lower) != a.head {
				continue
			}
			w := u.toks[j-1]
			if w.kind == Number || w.kind == Amount || w.kind == Date || w.kind == Time || stopWords[w.lower] || cueWords[w.lower] || len(w.lower) < 2 {
				continue
			}
			st := stem(w.lower)
			if _, ok := a.subject[st]; ok || slices.Contains(a.mods, w.lower) || other.hasWord(st, w.lower) {
				continue
			}
			return true
		}
	}
	return false
}

// slotBlocked reports whether a word between positions a and b says the
// value there is of something else ("12 applications for interview
// slots").
func slotBlocked(toks []token, a, b int) bool {
	for i := min(a, b) + 1; i < max(a, b); i++ {
		if slotBlockers[toks[i].lower] {
			return true
		}
	}
	return false
}

// Covers counts the question's words and names that s has anywhere.
func (a *Asked) Covers(s *Statement) int {
	n := 0
	for w, name := range a.subject {
		for i := range s.units {
			if _, ok := s.units[i].content[w]; ok || name && s.units[i].has(w) {
				n++
				break
			}
		}
	}
	return n
}

// Head is the stem of the word the asked value belongs to ("" for none).
func (a *Asked) Head() string { return a.head }

// slotReach is how near (in words) a value must stand to the question's
// head word to be its value ("5 interviews", "the new sprint deadline of
// April 5").
const slotReach = 3

// Slot returns the values of the kind the question asks for that stand
// within slotReach words of its head word in s (a sentence or clause
// stating a condition does not count), and whether that sentence or
// clause says the value changed. Nil when the question has no head word
// or s lacks a word the question puts before it ("classification" in
// "How many classification problems…").
func (a *Asked) Slot(s *Statement) (values []string, changed bool) {
	if a.head == "" {
		return nil, false
	}
	for _, m := range a.mods {
		// "my monthly budget": not the April-June budget.
		if !s.hasWord(stem(m), m) {
			return nil, false
		}
	}
	for i := range s.units {
		u := &s.units[i]
		if u.cond {
			continue
		}
		found := false
		for j, t := range u.toks {
			if t.kind != "" || stem(t.lower) != a.head {
				continue
			}
			for k := range a.kinds {
				for n, v := range u.valueAt[k] {
					if v >= j-slotReach && v <= j+slotReach && !slotBlocked(u.toks, v, j) && !a.given[u.values[k][n]] && !slices.Contains(values, u.values[k][n]) {
						values = append(values, u.values[k][n])
						found = true
					}
				}
			}
		}
		if found && u.cue && u.saysChanged() {
			changed = true
		}
	}
	return values, changed
}

// Stated is how a statement answers an Asked question.
type Stated struct {
	// Words: how many of the question's words stand in one sentence or
	// clause of the statement beside a detail of the kind the question
	// asks for, other than one the question gives itself (0: it states no
	// such value); Values: those details;
	// Changed: that sentence or clause says the value changed ("moved
	// to", "now", "adjusted to", "reached").
	Words   int
	Values  []string
	Changed bool
	// Anchors are the question's words (stems) that stand within
	// askReach words of such a detail there: what the value is of
	// ("deadline" in "the deadline was extended to May 20").
	Anchors []string
}

// askReach is how near (in words) a question's word and a value must
// stand for the value to be the word's.
const askReach = 5

// States tells how s answers the question.
func (a *Asked) States(s *Statement) Stated {
	var out Stated
	for i := range s.units {
		u := &s.units[i]
		n := 0
		for w, name := range a.subject {
			if _, ok := u.content[w]; ok || name && u.has(w) {
				n++
			}
		}
		if u.question || u.cond || n == 0 {
			continue
		}
		has := false
		for k := range a.kinds {
			has = has || slices.ContainsFunc(u.values[k], func(v string) bool { return !a.given[v] })
		}
		if !has {
			continue
		}
		changed := u.cue && u.saysChanged()
		if n > out.Words || n == out.Words && changed && !out.Changed {
			out.Words, out.Values, out.Changed, out.Anchors = n, nil, changed, nil
			for k := range a.kinds {
				for _, v := range u.values[k] {
					if !a.given[v] {
						out.Values = append(out.Values, v)
					}
				}
			}
			out.Anchors = a.anchors(u)
		}
	}
	return out
}

// anchors lists the question's words that stand near a value of the
// kind it asks for in u.
func (a *Asked) anchors(u *unit) []string {
	var out []string
	for w, name := range a.subject {
		at, ok := u.content[w]
		if !ok && name {
			at, ok = u.names[w]
		}
		if !ok {
			continue
		}
		near := false
		for k := range a.kinds {
			for n, v := range u.valueAt[k] {
				near = near || v >= at-askReach && v <= at+askReach && !a.given[u.values[k][n]]
			}
		}
		if near {
			out = append(out, w)
		}
	}
	return out
}

// saysChanged reports whether the unit has a word or phrase saying
// something changed other than "since" ("especially since I want…"
// gives a reason).
func (u *unit) saysChanged() bool {
	return u.changeCue(func(i int) bool { return u.toks[i].lower == "since" })
}

// changeCue reports whether the unit has a cue phrase, or a cue word that
// skip does not rule out, saying something changed.
func (u *unit) changeCue(skip func(i int) bool) bool {
	for i, t := range u.toks {
		if (cueWords[t.lower] || stateCues[t.lower]) && !skip(i) {
			return true
		}
		if i > 0 && cuePhrases[u.toks[i-1].lower+" "+t.lower] {
			return true
		}
	}
	return false
}

// Named reports whether the question's words say the kind of value it
// asks for ("how many", "when", "budget"…), not only "what" ("What video
// games does Nate play?" reads as any number, amount, date or time).
func (a *Asked) Named() bool { return a.named }

// Subject is how many words and names the question's subject has.
func (a *Asked) Subject() int { return len(a.subject) }

var (
	questionWords = setOf(`what what's whats how when which where who`)
	// pastWords ask about what was, not what is.
	pastWords = setOf(`did was were had originally original initially initial previous previously formerly before first
		earlier ago used didn't wasn't weren't`)
	// aggregateWords ask to count or compare what several memories say
	// ("how many different tools", the days between two dates).
	// determiners before "first" make it say which thing ("the first
	// sprint"), not what was first.
	determiners = setOf(`the my our your his her their this that a an`)
	// phraseStops end the noun phrase a question asks about.
	phraseStops = setOf(`for of in on at to with by from about into during since and or as per that which who
		i we you he she they it`)
	// slotBlockers between a value and the head word make the value
	// another thing's.
	slotBlockers = setOf(`for in on with from by per and or but than`)
	// kindWords name only the kind of the value asked for.
	kindWords      = setOf(`percentage percent number count total amount rate date time level figure value`)
	aggregateWords = setOf(`between different distinct unique across all compare compared`)
	dateWords      = setOf(`date deadline due scheduled schedule`)
	amountWords    = setOf(`budget cost costs price fee fees salary rent pay spend spent much`)
	countWords     = setOf(`number count percentage percent rate total score many`)
	// askWords ask; they say nothing about the subject. "user" is whom
	// every memory Claude writes is about ("User's dentist check-up…").
	askWords = setOf(`many much long often far old number count total amount plan aim aiming scheduled schedule
		current currently now latest recent recently user`)
)

func init() {
	// askWords holds stems, as unit.content does.
	stems := map[string]bool{}
	for w := range askWords {
		stems[stem(w)] = true
	}
	askWords = stems
}

// Updated reports whether newer, said after older, gives another value
// of the kind the question asks for to what older gave it for (Relate on
// the two: an update that changed such a detail), about the question's
// subject: the two share one of its words or names, and neither puts a
// word before a shared word that the other text and the question lack
// ("15 classification problems" / "15 problems" for "How many
// problems…"). At question time the question says what the two must be
// about; the store, which has no question, links turns only on more.
func (a *Asked) Updated(older, newer *Statement) bool {
	r := RelateParsed(older, newer)
	if r.Subset {
		// Read at the store, where one link at most is kept (recall.Relate);
		// among a question's results it would pair any two notes on one thing.
		return false
	}
	if r.Kind != Updates || !slices.ContainsFunc(r.DiffersIn, func(k Kind) bool { return a.kinds[k] }) {
		return false
	}
	for _, w := range r.OneSided {
		// Only a word of the question that the newer has may stand on
		// one side ("merged into the main branch" / "12 branches
		// merged"): the older without it may speak of the same thing,
		// the newer without it speaks of another ("15 classification
		// problems" / "12 problems" about areas).
		lw := strings.ToLower(w)
		if _, ok := a.subject[stem(lw)]; !ok || !newer.hasWord(stem(lw), lw) {
			return false
		}
	}
	for _, m := range a.mods {
		// "my $35 monthly budget" / "my April-June book budget".
		if older.hasWord(stem(m), m) && !newer.hasWord(stem(m), m) {
			return false
		}
	}
	if a.head != "" && older.hasWord(a.head, a.head) && !newer.hasWord(a.head, a.head) {
		// "my weekly word count target" / "my weekly word count": the
		// count reached, not the target.
		return false
	}
	return slices.ContainsFunc(r.About, func(w string) bool {
		w = strings.ToLower(w)
		_, ok := a.subject[stem(w)]
		if !ok {
			_, ok = a.subject[w]
		}
		return ok
	})
}
