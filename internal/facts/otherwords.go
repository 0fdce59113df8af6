package facts

import (
	"slices"
	"strings"

	"github.com/infmem/infmem/internal/lexicon"
)

// ChangedInOtherWords tells whether newer, stated after older, says that
// older's value changed though the two name the thing in other words
// ("The daily stand-up is at 9:30 every morning" / "From Monday the
// morning meeting starts at 9:00 instead"; "My salary is $78,000 a year" /
// "Got the promotion: I'm paid $86,500 a year now"), which Relate, reading
// shared words, calls unrelated. It cannot tell by words that the two
// speak of one thing: the caller must (the older is the memory closest in
// meaning to the newer, and close). What it checks is the rest: a clause
// of newer says something changed (a cue: "now", "moved", "switched"…;
// not "new", which may describe a thing: "two new front tyres"),
// not as a question or a condition; it and a clause of older state a
// value of the same kind with another value (a number, amount, date or
// time, or names on both sides that the other lacks); and nothing says
// another thing is meant: no name saying whose or which thing on one side
// only ("Leo's bedtime" / "Nora's bedtime moved to 8 pm"), no word right
// before a shared word on one side only ("the design team's stand-up"),
// no person in one subject only ("Ruth's son lives in Cardiff" / "Ruth's
// daughter has moved to Bath"), no negation on one side, no "never".
func ChangedInOtherWords(older, newer *Statement) Relation {
	var best Relation
	for i := range newer.units {
		b := &newer.units[i]
		if b.cond || b.question || b.never {
			continue
		}
		said := b.cue && b.changeNotDescribed() || b.changedTo()
		if !said && !SlotRules {
			continue
		}
		for j := range older.units {
			a := &older.units[j]
			if a.cond || a.question || a.never || a.negated != b.negated || subjectConflict(a, b) || a.otherPerson(b) || b.otherPerson(a) {
				continue
			}
			if len(oneSided(a, b, newer)) > 0 || len(oneSided(b, a, older)) > 0 {
				continue
			}
			var changed []Kind
			if said {
				for _, k := range []Kind{Number, Amount, Date, Time} {
					x, y := sortedCopy(a.values[k]), sortedCopy(b.values[k])
					if len(x) > 0 && len(y) > 0 && len(minus(x, y)) > 0 && len(minus(y, x)) > 0 {
						changed = append(changed, k)
					}
				}
				if onlyA, onlyB := a.namesOnly(b), b.namesOnly(a); len(onlyA) > 0 && len(onlyB) > 0 {
					k := Name
					if b.allPlaces(onlyB) {
						k = Place
					}
					changed = append(changed, k)
				} else if SlotRules && b.fromTo(a) {
					changed = append(changed, Name)
				}
			}
			stopped := len(changed) == 0 && SlotRules && b.stops(a)
			if stopped {
				changed = append(changed, State)
			}
			if len(changed) == 0 {
				continue
			}
			if out := stopped || b.saysChangeOutright(); best.Kind == Unrelated || len(changed) > len(best.DiffersIn) || out && !best.Outright && len(changed) == len(best.DiffersIn) {
				best = Relation{Kind: Updates, DiffersIn: ordered(changed), About: about(a, b), Outright: out}
			}
		}
	}
	return best
}

// subjectConflict reports whether a name says whose or which thing one
// of a and b is about and the other lacks it ("Alice's birthday" / "Bob's
// birthday"), except a name holding a role both name ("Dan is my
// manager" / "Sofia is my manager").
func subjectConflict(a, b *unit) bool {
	if namesConflict(a, b, true) {
		return true
	}
	return a.pronoun && b.namedOnly(a) || b.pronoun && a.namedOnly(b)
}

// namedOnly reports whether a name before u's verb that other lacks says
// whose or which thing u is about (namedSubject), a word capitalised only
// as the first of its sentence aside ("Holiday budget for Italy is
// €3,000" / "We've cut what we'll spend on the Italy trip to €2,400").
func (u *unit) namedOnly(other *unit) bool {
	for n, i := range u.names {
		if i < u.verb && !other.has(n) && !u.capitalOnly(n) {
			return true
		}
	}
	return false
}

// changedTo reports whether u says a value changed by a verb that Relate
// does not read as a change, for it as often does not ("cut the bread",
// "turned left"): one of changedVerbs followed in the clause by "to" and
// a value ("The doctor doubled the pill to 20 mg", "We've cut what we'll
// spend on the trip to €2,400", "The retreat got pushed back a week, to
// May 21"), or "turned" and a number, an age reached ("Since he turned
// six, Leo goes to bed at 8 pm").
func (u *unit) changedTo() bool {
	value := func(j int) bool {
		if j >= len(u.toks) {
			return false
		}
		k := u.toks[j].kind
		return k == Number || k == Amount || k == Date || k == Time
	}
	for i := range u.toks {
		w := u.toks[i].lower
		if w == "turned" && value(i+1) {
			return true
		}
		if !changedVerbs[w] && !(i > 0 && changedPhrases[u.toks[i-1].lower+" "+w]) {
			continue
		}
		for j := i + 1; j+1 < len(u.toks); j++ {
			if u.toks[j].lower == "to" && value(j+1) {
				return true
			}
		}
	}
	return false
}

// saysChangeOutright reports whether u says in so many words that a value
// changed: a word of change ("now", "instead", "switched", "postponed",
// "raised"…, "no longer", "up to", "pushed back"), a verb that may tell of
// an event followed in the clause by "to" ("moved to Thursdays", "changed
// the reservation to the sushi place"; not "changed the oil on 3 May"), or
// changedTo ("doubled the pill to 20 mg", "turned six"). Relate's other
// cues ("finished", "completed", "passed", "reached", "sold", "renewed",
// "since", "actually", "fixed", "latest") as often tell of an event or a
// state, and two such notes of one kind of thing with other dates or
// amounts are both true ("Boiler serviced on 3 March" / "The heating
// engineer finished the repair on 10 May").
func (u *unit) saysChangeOutright() bool {
	if u.changedTo() {
		return true
	}
	for i, t := range u.toks {
		w := t.lower
		if outrightWords[w] || i > 0 && outrightPhrases[u.toks[i-1].lower+" "+w] {
			return true
		}
		if outrightTo[w] && slices.ContainsFunc(u.toks[i+1:], func(t token) bool { return t.lower == "to" }) {
			return true
		}
	}
	return false
}

var (
	// outrightWords say a change whatever follows; outrightTo when "to"
	// follows in the clause.
	outrightWords = setOf(`now instead anymore switched switching rescheduled rescheduling postponed postponing delayed delaying
		relocated relocating swapped upgraded downgraded increased decreased reduced lowered increasing decreasing reducing
		lowering revised revising corrected correction`)
	outrightTo = setOf(`moved moving changed change changes changing shifted shifting adjusted adjusting transferred extended
		extending shortened raised raising dropped rose risen fell fallen grew grown updated updating replaced promoted`)
	outrightPhrases = map[string]bool{"no longer": true, "any more": true, "no more": true, "from now": true, "these days": true,
		"went up": true, "gone up": true, "goes up": true, "going up": true, "went down": true, "gone down": true, "up to": true,
		"down to": true, "pushed back": true, "brought forward": true, "moved up": true, "bumped up": true, "turns out": true,
		"turned out": true}
	changedVerbs   = setOf(`doubled tripled quadrupled halved cut trimmed slashed bumped pushed`)
	changedPhrases = map[string]bool{"pushed back": true, "brought forward": true, "moved up": true, "bumped up": true}
)

// capitalOnly reports whether the name n is only a word capitalised as
// the first of its sentence ("Rent for the flat…", "Choir rehearsals…",
// "Weekly mileage…"): a word the lexicon knows, not possessive, and not
// right before the verb ("Mark goes to bed at 8").
func (u *unit) capitalOnly(n string) bool {
	i := u.names[n]
	if !u.toks[i].maybeName || u.toks[i].kind != "" || i+1 == u.verb {
		return false
	}
	lower := strings.ToLower(u.toks[i].text)
	if strings.HasSuffix(lower, "'s") || strings.HasSuffix(lower, "’s") {
		return false
	}
	return lexicon.Lemma(n) != ""
}

// changeNotDescribed reports whether u says a value changed by a word other
// than one that may only describe a thing ("two new front tyres", "the
// latest model"): new, newly, latest, currently.
func (u *unit) changeNotDescribed() bool {
	return u.changeCue(func(i int) bool { return describes[u.toks[i].lower] || sinceAsReason(u.toks, i) })
}

var describes = setOf(`new newly latest currently`)

// otherPerson reports whether u's subject names a person (a relative, a
// friend, a colleague) that other never names: someone else's value.
func (u *unit) otherPerson(other *unit) bool {
	for w, i := range u.content {
		if _, ok := other.content[w]; !ok && i < u.verb && people[w] {
			return true
		}
	}
	return false
}

// people are the persons a note says something of besides the user.
var people = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`son daughter sister brother mother father mum mom dad parent wife husband girlfriend boyfriend
		fiance fiancee friend neighbour neighbor colleague coworker cousin aunt uncle niece nephew grandmother grandfather
		grandma grandpa grandson granddaughter kid child children baby sibling roommate flatmate housemate in-law`) {
		people[stem(w)] = true
	}
}

// namesConflict reports whether a name says whose or which thing one of a
// and b is about and the other lacks it, except a name holding a role both
// name (a role has one holder at a time: the name holding it is its
// value). With capitals, a word capitalised only as the first of its
// sentence (capitalOnly) is no such name.
func namesConflict(a, b *unit, capitals bool) bool {
	role := false
	for w := range a.content {
		if _, ok := b.content[w]; ok && roles[w] {
			role = true
		}
	}
	for _, p := range [2][2]*unit{{a, b}, {b, a}} {
		u, other := p[0], p[1]
		for n := range u.subjectNames {
			if !other.has(n) && !other.was[n] && !(role && u.holder(n)) && !(capitals && u.capitalOnly(n)) && !(capitals && SlotRules && u.agent(n)) {
				return true
			}
		}
	}
	return false
}

// SlotRules turns on three readings of ChangedInOtherWords (issue 23,
// updates said in other words; infmem-bench --relate-slot-rules=false
// turns them off):
//   - a name right before a verb of change that acts on a thing ("Finance
//     cut the project budget to $95,000", "The GP changed the user's
//     tablet…") names who made the change, not whose thing changed
//     (unit.agent);
//   - "from X to Y" after a word of change, X a word of the older and Y
//     not, is a changed value though neither is a name ("changed the hay
//     fever tablet from cetirizine to fexofenadine": unit.fromTo);
//   - a verb that ends a thing right before a name the older states
//     ("Cancelled FitLife", "left Acme") says the older no longer holds,
//     though the newer states no value of the same kind (unit.stops).
var SlotRules = true

// agent reports whether the name n stands right before a verb of change
// followed by a determiner or a possessive: the one who changed the thing
// ("Finance cut the budget…", "The GP changed the user's tablet…"), not the
// thing ("Nora's bedtime moved to 8 pm", "Leo moved to Leeds").
func (u *unit) agent(n string) bool {
	i, ok := u.names[n]
	if !ok || i+2 >= len(u.toks) {
		return false
	}
	if t := u.toks[i].text; strings.HasSuffix(t, "'s") || strings.HasSuffix(t, "’s") {
		return false
	}
	v := u.toks[i+1].lower
	if !changedVerbs[v] && !outrightTo[v] && !outrightWords[v] {
		return false
	}
	next := u.toks[i+2]
	return determiners[next.lower] || strings.HasSuffix(next.text, "'s") || strings.HasSuffix(next.text, "’s")
}

// fromTo reports whether u, saying a change outright, says "from X to Y"
// where X is a word of other and Y is not ("changed the tablet from
// cetirizine to fexofenadine" after "the user takes cetirizine").
func (u *unit) fromTo(other *unit) bool {
	if !u.saysChangeOutright() {
		return false
	}
	for i := 0; i+3 < len(u.toks); i++ {
		if u.toks[i].lower != "from" {
			continue
		}
		for j := i + 2; j <= i+4 && j+1 < len(u.toks); j++ {
			if u.toks[j].lower != "to" {
				continue
			}
			k := j + 1
			for k+1 < len(u.toks) && stopWords[u.toks[k].lower] {
				k++
			}
			x, y := u.toks[i+1:j], u.toks[k].lower
			if slices.ContainsFunc(x, func(t token) bool { return !stopWords[t.lower] && other.has(t.lower) }) && !stopWords[y] && !other.has(y) {
				return true
			}
		}
	}
	return false
}

// stops reports whether u says a thing other names has ended: a verb that
// ends a thing (cancelled, quit, left, closed, gave up…) right before a
// name other states, a determiner aside ("Cancelled FitLife; I train at
// the climbing centre now" after "I work out at the FitLife gym"), not
// its possessive ("left Acme's office"); not after an event, nor with a
// time of day ("We had dinner at Rosa's" / "Left Rosa's at 3 pm").
func (u *unit) stops(other *unit) bool {
	if other.event || len(u.values[Time]) > 0 {
		return false // "We had dinner at Rosa's" / "Left Rosa's at 3 pm": events
	}
	for i := 0; i+1 < len(u.toks); i++ {
		w := u.toks[i].lower
		if !stopVerbs[w] && !(i > 0 && stopPhrases[u.toks[i-1].lower+" "+w]) {
			continue
		}
		j := i + 1
		if determiners[u.toks[j].lower] && j+1 < len(u.toks) {
			j++
		}
		n := u.toks[j].lower
		if t := u.toks[j].text; strings.HasSuffix(t, "'s") || strings.HasSuffix(t, "’s") {
			continue // "left Acme's office": another thing of Acme
		}
		if _, ok := u.names[n]; ok && other.has(n) {
			return true
		}
	}
	return false
}

var (
	stopVerbs   = setOf(`cancelled canceled cancelling quit quitting left leaving closed closing ditched dumped stopped`)
	stopPhrases = map[string]bool{"gave up": true, "given up": true, "giving up": true, "moved from": true, "switched from": true}
)

// SaysOtherSetting reports whether a clause of newer names a thing older
// never names where it says what changed: "at", "in", "for" or "on", a
// determiner, then a word no clause of older holds ("Signed up for
// Virgin Media at the office now" after "Our broadband provider is BT"),
// or such a word right after its verb of change ("Switched electricity
// to Flogas" after "Car insurance is with AXA"): more likely another
// thing of the kind than its changed value. The meaning gate reads it
// where the cosine alone says little (recall.MeaningCosOutright).
func SaysOtherSetting(older, newer *Statement) bool {
	lacks := func(w token) bool {
		if w.kind != "" || stopWords[w.lower] || determiners[w.lower] {
			return false
		}
		return !slices.ContainsFunc(older.units, func(a unit) bool { return a.has(w.lower) })
	}
	for i := range newer.units {
		b := &newer.units[i]
		for j := 0; j+1 < len(b.toks); j++ {
			w := b.toks[j].lower
			if settingPreps[w] && j+2 < len(b.toks) && determiners[b.toks[j+1].lower] && lacks(b.toks[j+2]) {
				return true
			}
			if !outrightWords[w] && !outrightTo[w] && !changedVerbs[w] && !stopVerbs[w] {
				continue
			}
			k := j + 1
			if determiners[b.toks[k].lower] && k+1 < len(b.toks) {
				k++
			}
			if _, name := b.names[b.toks[k].lower]; !name && lacks(b.toks[k]) {
				return true
			}
		}
	}
	return false
}

var settingPreps = setOf(`at in for on`)

// SaysOtherThing reports whether a clause of newer that says a change
// names the thing that changed and older never meets it: the words of the
// clause's subject ("Our electrician is now Bryn Lewis", "Sky bill gone up
// to £67"), or, where the subject names nothing ("Switched our power to
// EDF", "We've cut what we'll spend on the Italy trip to €2,400") or names
// who made the change ("The agency … has raised my day rate to £390"),
// those after its word of change up to "to" or "from"; met where older
// holds one of them (its stem, a name), a synonym of one (lexicon), a word
// one is the nearest kind of, or one that is the nearest kind of it
// ("bookkeeper" / "accountant", "GP" / "doctor"), not as a word naming
// which of another thing ("car" in "Car insurance is with Aviva" after
// "The family car is a Kia Niro now"). Two things of a kind with values
// of a kind ("The plumber we use is Dai Evans" / "Our electrician is now
// Bryn Lewis"; a bus's and a train's times) then read as two facts, both
// true. A clause naming no thing ("Switched to a Pixel 8", "Cancelled that
// and signed up for Disney+ instead") is not read so. The meaning gate
// reads it for the links only it finds (recall.MeaningGateThing).
func SaysOtherThing(older, newer *Statement) bool {
	for i := range newer.units {
		b := &newer.units[i]
		if b.cond || b.question || b.never || !(b.cue && b.changeNotDescribed() || b.changedTo()) {
			continue
		}
		thing := b.changingThing()
		if len(thing) > 0 && !slices.ContainsFunc(thing, func(k int) bool { return older.meets(b.toks[k].lower, modifier(b.toks, k)) }) {
			return true
		}
	}
	return false
}

// changingThing lists the words naming what u says changed: those before
// its first word of change or auxiliary, else (or when a verb of change
// acts on "my", "the"…: who made the change came first) those after its
// first word of change up to "to", "from" or a conjunction; values,
// function words and pronouns aside.
func (u *unit) changingThing() []int {
	var out []int
	add := func(lo, hi int, verbsToo bool) {
		for k := lo; k < hi; k++ {
			t := u.toks[k]
			w := t.lower
			if p, _, ok := strings.Cut(w, "'"); ok && pronouns[p] || pronouns[w] {
				continue
			}
			if t.kind == Number || t.kind == Amount || t.kind == Date || t.kind == Time || stopWords[w] || determiners[w] ||
				changeWord(u.toks, k) || auxiliaries[w] || verbsToo && (stateVerbs[w] || verbs[w]) {
				continue
			}
			out = append(out, k)
		}
	}
	end := len(u.toks)
	for i := range u.toks {
		if changeWord(u.toks, i) || auxiliaries[u.toks[i].lower] {
			end = i
			break
		}
	}
	object := func() {
		for i := end; i < len(u.toks); i++ {
			if !changeWord(u.toks, i) {
				continue
			}
			j := i + 1
			for j < len(u.toks) && !thingEnds[u.toks[j].lower] {
				j++
			}
			add(i+1, j, true)
			return
		}
	}
	// "The agency … has raised my day rate to £390": who made the change,
	// then what changed.
	for i := end; i+1 < len(u.toks); i++ {
		if changeWord(u.toks, i) {
			if w := u.toks[i].lower; (outrightTo[w] || changedVerbs[w] || cueVerbs[w]) && (determiners[u.toks[i+1].lower] || u.toks[i+1].lower == "what") {
				if object(); len(out) > 0 {
					return out
				}
			}
			break
		}
	}
	if add(0, end, false); len(out) == 0 {
		object()
	}
	return out
}

// changeWord reports whether toks[i] says a change: a cue ("now",
// "moved", "switched"…, not one that may describe a thing: "new"), a verb
// of change or of an end, or the first word of a phrase of change ("gone
// up").
func changeWord(toks []token, i int) bool {
	w := toks[i].lower
	if describes[w] {
		return false
	}
	if cueWords[w] || outrightWords[w] || outrightTo[w] || changedVerbs[w] || stopVerbs[w] {
		return true
	}
	return i+1 < len(toks) && (cuePhrases[w+"_"+toks[i+1].lower] || outrightPhrases[w+" "+toks[i+1].lower])
}

var thingEnds = setOf(`to from and but so then because after since instead`)

// meets reports whether a clause of s holds w (by stem), a synonym of w, a
// word w is the nearest kind of, or a word that is the nearest kind of w
// (lexicon.Hypernyms, its first words: nearestKinds); where w names the
// thing itself (not mod: not a word saying which of another), not as a
// word only saying which of the thing after it ("car" in "Car insurance"
// / "The family car"; but "Spanish class" / "Spanish lessons").
func (s *Statement) meets(w string, mod bool) bool {
	sw := stem(w)
	same := func(x string) bool { return stem(x) == sw }
	mine := append(append([]string{w}, lexicon.Synonyms(w)...), nearestKinds(w)...)
	for _, a := range s.units {
		for k, t := range a.toks {
			x := t.lower
			if t.kind == Number || t.kind == Amount || t.kind == Date || t.kind == Time || stopWords[x] || determiners[x] || !mod && modifier(a.toks, k) {
				continue
			}
			sx := stem(x)
			if slices.ContainsFunc(mine, func(m string) bool { return stem(m) == sx }) ||
				slices.ContainsFunc(lexicon.Synonyms(x), same) || slices.ContainsFunc(nearestKinds(x), same) {
				return true
			}
		}
	}
	return false
}

// modifier reports whether toks[k] stands right before a word naming a
// thing: it says which or whose thing that is ("car" in "Car insurance",
// "council" in "Council tax", "Rhys's lessons").
func modifier(toks []token, k int) bool {
	if k+1 >= len(toks) {
		return false
	}
	n := toks[k+1]
	w := n.lower
	return n.kind == "" && !stopWords[w] && !determiners[w] && !auxiliaries[w] && !stateVerbs[w] && !verbs[w] && !cueWords[w] &&
		!pronouns[w]
}

// nearestKinds: the first words of lexicon.Hypernyms ("gp": doctor, doc,
// physician; "bookkeeper": accountant, comptroller, controller).
func nearestKinds(w string) []string {
	h := lexicon.Hypernyms(w)
	return h[:min(len(h), 3)]
}
