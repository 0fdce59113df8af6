package facts

import (
	"slices"
	"strings"
)

// Relation is how a newer text stands to an older one.
type Relation struct {
	Kind RelationKind
	// DiffersIn lists what changed, in a fixed order (number, amount,
	// date, time, name, place, state, negation).
	DiffersIn []Kind
	// Shared is the share of the smaller statement's subject words the
	// two have in common (0–1): how surely they speak of one thing;
	// Common is how many words and names that is.
	Shared float64
	Common int
	// About lists the words the two have in common (lower case, as
	// written on either side): what the relation is about.
	About []string
	// Anchored: a changed number, amount, date or time stands next to
	// the same word on both sides ("snack budget to $65" / "snack budget
	// to $75"), within anchorReach words, or joined to it by a phrase
	// saying it changed ("the deadline was extended to May 20").
	Anchored bool
	// OneSided lists the words that stand right before a shared word on
	// one side and nowhere in the other text ("15 classification
	// problems" / "15 problems" about triangle areas): they may say
	// another thing is meant.
	OneSided []string
	// Outright (ChangedInOtherWords only): the newer's clause says in so
	// many words that the value changed (unit.saysChangeOutright), not
	// only by a word that as often tells of an event or a state
	// ("finished", "passed", "since", "fixed").
	Outright bool
	// Frame: found by the reading of the plainest update (FrameRule), no
	// other: the older's sentence said again with one value changed.
	// Between conversation turns it is no evidence (an assistant's lists
	// say one frame again and again: recall.Relate skips it).
	Frame bool
	// Subset: found by the reading of an update that says nothing but the
	// older's thing and a new value (SubsetRule), no other (Frame is set
	// with it: between conversation turns it is no evidence either).
	Subset bool
}

// restatedCover is the least share of subject words (Relation.Shared)
// for restated.
const restatedCover = 0.3

// restatedReach is anchorReach for restated: the value near the word it
// counts ("5 interviews", "$4,000 for initial patent filing fees", "the
// 12% rate on assets above $200,000"). At 3 rather than 2 it linked one
// more pair of BEAM's same-speaker turns (that one), and no other pair of
// BEAM, RealMem or messy.
const restatedReach = 3

// anchorReach is how near (in words) a changed value and a shared word
// must stand for Anchored.
const anchorReach = 3

// Counted reports whether a number, amount, date or time changed (not only
// a name, place, state or negation).
func (r Relation) Counted() bool {
	for _, k := range r.DiffersIn {
		switch k {
		case Number, Amount, Date, Time:
			return true
		}
	}
	return false
}

// RelationKind says whether a newer text updates or contradicts an older.
type RelationKind uint8

// The relations Relate tells apart.
const (
	// Unrelated: another subject, the same fact again, or nothing that
	// says the older is out of date.
	Unrelated RelationKind = iota
	// Updates: the same subject with a changed value ("The Apollo launch
	// deadline is December 12" → "The Apollo launch has been moved to
	// December 19"; "Dan is my manager" → "My new manager is Sofia").
	Updates
	// Contradicts: one denies what the other states, and neither says it
	// changed ("I have never used Flask" against "I wrote the Flask
	// routes"): the user should be asked which holds.
	Contradicts
)

// Relate tells whether newer, stated after older, updates it (the same
// subject — shared names and nouns — with a changed date, time, amount,
// number, name, place, state or negation) or contradicts it. It reads
// each sentence (each clause of a long one) of newer against each of
// older and keeps the closest pair that relates. It is deliberately
// cautious: a change of value is an update only when the newer text says
// so ("moved to", "now", "new", "no longer", "raised to"…), when the two
// are the same statement of a state ("… is December 12" / "… is December
// 19") with nothing but the value changed, or when the speaker restates
// their own count or amount in the same frame (restated); a change of whose or which
// thing ("Alice's birthday" / "Bob's birthday", "the kitchen tap" / "the
// bathroom tap") is never one.
func Relate(older, newer string) Relation {
	return RelateParsed(Parse(older), Parse(newer))
}

// Statement is a text read for Relate: parse each text once to relate it
// to many.
type Statement struct{ units []unit }

// Parse reads text for RelateParsed.
func Parse(text string) *Statement {
	u := unitsOf(scan(prose(withoutSpeaker(text))))
	if len(u) > maxUnits {
		u = u[:maxUnits]
	}
	return &Statement{units: u}
}

// Claims returns, for a text of several sentences or clauses, the words
// of those that may update or contradict an earlier memory (they say
// something changed, or "never"), at most max: what to look for earlier
// memories by. A text of one sentence has none (the text is the claim).
func (s *Statement) Claims(max int) []string {
	if len(s.units) < 2 {
		return nil
	}
	var out []string
	for i := range s.units {
		u := &s.units[i]
		if !(u.cue || u.never) || u.cond || len(u.content)+len(u.names) < 2 {
			continue
		}
		var b strings.Builder
		for _, t := range u.toks {
			b.WriteString(t.text)
			b.WriteByte(' ')
		}
		if c := b.String(); !slices.Contains(out, c) {
			out = append(out, c)
		}
		if len(out) == max {
			break
		}
	}
	return out
}

// RelateParsed is Relate on parsed texts.
func RelateParsed(older, newer *Statement) Relation {
	var best, frame Relation
	for i := range newer.units {
		for j := range older.units {
			r := relateUnits(&older.units[j], &newer.units[i])
			if r.Kind == Unrelated && FrameRule && frame.Kind == Unrelated {
				// Read only where no pair of clauses relates otherwise (best
				// stays as without FrameRule).
				if f := frameRelate(&older.units[j], &newer.units[i]); f.Kind == Updates {
					f.OneSided = append(oneSided(&older.units[j], &newer.units[i], newer), oneSided(&newer.units[i], &older.units[j], older)...)
					frame = f
				}
			}
			if r.Kind == Unrelated {
				continue
			}
			if r.Kind == Updates {
				r.OneSided = append(oneSided(&older.units[j], &newer.units[i], newer), oneSided(&newer.units[i], &older.units[j], older)...)
			}
			// A pair that says which thing on both sides is preferred.
			if best.Kind == Unrelated || len(r.OneSided) < len(best.OneSided) ||
				len(r.OneSided) == len(best.OneSided) && (r.Shared > best.Shared || r.Shared == best.Shared && r.Kind == Updates && best.Kind != Updates) {
				best = r
			}
		}
	}
	if best.Kind == Unrelated && frame.Kind == Unrelated && SubsetRule {
		for i := range newer.units {
			for j := range older.units {
				if r := subsetRelate(&older.units[j], &newer.units[i]); r.Kind == Updates && r.Shared > frame.Shared {
					frame = r
				}
			}
		}
	}
	if best.Kind == Unrelated {
		return frame
	}
	return best
}

// oneSided lists the words of u that stand right before a word it shares
// with other and that the text s (other's) has nowhere: "classification"
// in "15 classification problems" against a text about "15 problems"
// that never says "classification".
func oneSided(u, other *unit, s *Statement) []string {
	var out []string
	for w, at := range u.content {
		if _, ok := other.content[w]; !ok || at == 0 {
			continue
		}
		prev := &u.toks[at-1]
		q := stem(prev.lower)
		if p, ok := u.content[q]; !ok || p != at-1 || strings.HasSuffix(prev.lower, "ly") || s.hasWord(q, prev.lower) || slices.Contains(out, prev.lower) {
			// "monthly", "recently" say how or when, not which thing.
			continue
		}
		out = append(out, prev.lower)
	}
	slices.Sort(out)
	return out
}

// hasWord reports whether any sentence or clause of s has the stem w as
// a word, or a word that lower (w's word) starts with ("month" for
// "monthly").
func (s *Statement) hasWord(w, lower string) bool {
	for i := range s.units {
		if _, ok := s.units[i].content[w]; ok {
			return true
		}
		for _, t := range s.units[i].toks {
			if len(t.lower) >= 4 && strings.HasPrefix(lower, t.lower) {
				return true
			}
		}
	}
	return false
}

// withoutSpeaker drops the name a conversation turn starts with
// ("Caroline: I went…").
func withoutSpeaker(text string) string {
	if s := Speaker(text); s != "" {
		return text[len(s)+2:]
	}
	return text
}

// Speaker returns the name a conversation turn starts with ("Caroline: I
// went…"): one to three capitalised words and a colon; "" when none.
func Speaker(text string) string {
	i := strings.Index(text, ": ")
	if i <= 0 || i > 40 {
		return ""
	}
	words := strings.Fields(text[:i])
	if len(words) == 0 || len(words) > 3 {
		return ""
	}
	for _, w := range words {
		if w[0] < 'A' || w[0] > 'Z' {
			return ""
		}
	}
	return text[:i]
}

// maxProse bounds the text Relate reads: a memory states its facts early,
// and a long one (a pasted log, a chat message with code) would make
// every store slow.
const maxProse = 2000

// prose is text without fenced code blocks, cut to maxProse bytes at a
// word boundary.
func prose(text string) string {
	for {
		i := strings.Index(text, "```")
		if i < 0 {
			break
		}
		j := strings.Index(text[i+3:], "```")
		if j < 0 {
			text = text[:i]
			break
		}
		text = text[:i] + " " + text[i+3+j+3:]
	}
	if len(text) > maxProse {
		cut := strings.LastIndexAny(text[:maxProse], " \n")
		if cut <= 0 {
			cut = maxProse
		}
		text = text[:cut]
	}
	return text
}

// maxUnits bounds the sentences or clauses of a text compared.
const maxUnits = 32

// longUnit is the length (words) above which a sentence is read clause by
// clause.
const longUnit = 25

// unit is one sentence or clause as Relate reads it.
type unit struct {
	toks []token
	// verb is the position of the first verb (len(toks) when none): the
	// words before it are the subject.
	verb int
	// content maps the stem of each word that is neither a detail, nor a
	// function word, nor an update cue, to its first position.
	content map[string]int
	// names maps each name, place or word that may be a name (lower
	// case) to its first position; subjectNames holds those that say
	// whose or which thing the unit is about.
	names        map[string]int
	subjectNames map[string]bool
	// values holds the details by kind: number, amount, date, time;
	// valueAt their positions.
	values  map[Kind][]string
	valueAt map[Kind][]int
	// cue: the unit says something changed; stateCue: it says a state
	// changed (cancelled, finished, no longer…).
	cue, stateCue bool
	// otherCue: a cue word or phrase other than "new"/"newly" stands in
	// the unit (newNamesOtherThing).
	otherCue bool
	// stateVerb: it states what is ("is", "costs", "lives"); event: it
	// tells what happened ("paid", "ran", "booked").
	stateVerb, event bool
	negated, never   bool
	// neverAt is the position of "never" (when never).
	neverAt int
	// pronoun: the subject is a personal pronoun ("I", "we").
	pronoun bool
	// was holds the names and values the unit says were replaced
	// ("instead of Portugal").
	was map[string]bool
	// question: the unit asks (it ends with a question mark); if: it
	// states a condition ("if you've never played it").
	question, cond bool
}

// unitsOf groups tokens into sentences, and long sentences into clauses.
func unitsOf(toks []token) []unit {
	var out []unit
	start := 0
	for i := 1; i <= len(toks); i++ {
		if i < len(toks) && toks[i].sentence == toks[start].sentence {
			continue
		}
		sentence := toks[start:i]
		if len(sentence) <= longUnit {
			out = append(out, newUnit(sentence))
			if lead, ok := statedLead(sentence); ok {
				out = append(out, newUnit(sentence[:lead]))
			}
		} else {
			// Each clause, and each two clauses that follow each other:
			// "the growth of commits merged into main, which has now
			// reached 165".
			cs := clauses(sentence)
			for j, c := range cs {
				out = append(out, newUnit(sentence[c.from:c.to]))
				if j+1 < len(cs) {
					out = append(out, newUnit(sentence[c.from:cs[j+1].to]))
				}
			}
		}
		start = i
	}
	return out
}

// statedLead returns the end of the first clause of a short sentence
// that asks when that clause states something before the question
// ("I've adjusted our holiday gift budget to $450, can you help me plan
// the gifts?"): the clause is read as a unit of its own. A clause that
// itself asks ("Can you tell me, …", "What is it, …"), or that opens
// with a condition, is none.
func statedLead(s []token) (int, bool) {
	if len(s) == 0 || !s[len(s)-1].asks {
		return 0, false
	}
	cs := clauses(s)
	if len(cs) < 2 {
		return 0, false
	}
	first := s[0].lower
	if questionWords[first] || askingVerbs[first] {
		return 0, false
	}
	return cs[0].to, true
}

// askingVerbs open a question ("Can you…", "Do I…", "Is it…").
var askingVerbs = setOf(`can could would will do does did is are am was were should shall may might must have has had why whom whose`)

// maxLeadIn is the most words a lead-in ending in a colon has.
const maxLeadIn = 5

// leadIn returns how many words of a sentence come before a colon that
// ends a short lead-in ("Timetable change: …", "Change of plans: …");
// 0 when none. Its capitalised first word is no name.
func leadIn(s []token) int {
	for k := 1; k <= maxLeadIn && k < len(s)-1; k++ {
		if s[k].before == ':' {
			return k
		}
	}
	return 0
}

// span is a clause of a sentence: its tokens [from, to).
type span struct{ from, to int }

// clauses splits a long sentence at commas, semicolons and the words
// that open a clause ("but", "which"…), keeping clauses of at least four
// words.
func clauses(s []token) []span {
	var out []span
	start := 0
	for i := 1; i < len(s); i++ {
		cut := strings.ContainsRune(",;:()", s[i].before) || clauseWords[s[i].lower]
		if cut && i-start >= 4 {
			out = append(out, span{start, i})
			start = i
		}
	}
	return append(out, span{start, len(s)})
}

var clauseWords = setOf(`but which because although though while whereas so and`)

func newUnit(toks []token) unit {
	// The maps are made at their first entry: most units leave several
	// empty (a nil map reads as an empty one), and a store's update check
	// parses a unit of each sentence of ~8 candidates.
	u := unit{toks: toks, verb: len(toks)}
	negations := 0
	old := oldValues(toks)
	// The words of a cue phrase ("turns out", "no longer") are neither
	// names nor subject words.
	var inPhrase []bool
	for i := 1; i < len(toks); i++ {
		if phrase := toks[i-1].lower + " " + toks[i].lower; cuePhrases[phrase] {
			u.cue, u.otherCue = true, true
			u.stateCue = u.stateCue || stateCuePhrases[phrase]
			if inPhrase == nil {
				inPhrase = make([]bool, len(toks))
			}
			inPhrase[i-1], inPhrase[i] = true, true
		}
	}
	phrased := func(i int) bool { return inPhrase != nil && inPhrase[i] }
	lead := leadIn(toks)
	for i := range toks {
		t := &toks[i]
		if i < lead && t.maybeName {
			t.maybeName = false
		}
		if t.lower == "if" || t.lower == "whether" || t.lower == "unless" {
			u.cond = true
		}
		if phrased(i) && t.kind == "" && !t.negation {
			continue
		}
		if t.maybeName && (phrased(i) || cueWords[t.lower] || stateCues[t.lower] || stopWords[t.lower] || verbs[t.lower]) {
			// "Change of plans: …" starts with no name.
			t.maybeName = false
		}
		switch {
		case old[i]:
			// "instead of Portugal", "from Barclays to Marcus": the value
			// that was.
			if u.was == nil {
				u.was = map[string]bool{}
			}
			u.was[t.lower] = true
			continue
		case t.negation:
			negations++
			if t.never && !u.never {
				u.never, u.neverAt = true, i
			}
			continue
		case t.kind == Number || t.kind == Amount || t.kind == Date || t.kind == Time:
			if u.values == nil {
				u.values, u.valueAt = map[Kind][]string{}, map[Kind][]int{}
			}
			u.values[t.kind] = append(u.values[t.kind], t.value)
			u.valueAt[t.kind] = append(u.valueAt[t.kind], i)
			continue
		case t.kind == Name || t.kind == Place || t.maybeName:
			if _, ok := u.names[t.lower]; !ok {
				if u.names == nil {
					u.names = map[string]int{}
				}
				u.names[t.lower] = i
			}
			continue
		}
		w := t.lower
		if u.verb == len(toks) && isVerb(toks, i) {
			u.verb = i
		}
		if (cueWords[w] || stateCues[w]) && !sinceAsReason(toks, i) {
			u.cue = true
			u.otherCue = u.otherCue || !newWords[w]
			u.stateCue = u.stateCue || stateCues[w]
		}
		if stateVerbs[w] {
			u.stateVerb = true
		} else if eventVerb(w) && i <= u.verb+1 {
			u.event = true
		}
		if stopWords[w] || cueWords[w] || len(w) < 2 || theUser(toks, i) {
			continue
		}
		if st := stem(w); u.content == nil {
			u.content = map[string]int{st: i}
		} else if _, ok := u.content[st]; !ok {
			u.content[st] = i
		}
	}
	u.negated = negations%2 == 1
	u.question = len(toks) > 0 && toks[len(toks)-1].asks
	u.pronoun = u.verb > 0 && pronouns[toks[0].lower]
	// A name in the subject says whose or which thing the unit is about
	// ("Alice's birthday", "the Orion project", "Leo has swimming
	// lessons"), except a bare name holding a role the other text names
	// too ("Dan is my manager"): resolved in relateUnits.
	for n, i := range u.names {
		if i < u.verb {
			if u.subjectNames == nil {
				u.subjectNames = map[string]bool{}
			}
			u.subjectNames[n] = true
		}
	}
	return u
}

// sinceAsReason reports whether toks[i] is "since" giving a reason
// ("especially since I've decided…", "since my draft is long"), not the
// time from which something holds ("since the repair", "since October").
func sinceAsReason(toks []token, i int) bool {
	return toks[i].lower == "since" && i+1 < len(toks) && (pronouns[toks[i+1].lower] || possessives[toks[i+1].lower])
}

// theUser reports whether toks[i] is "user" naming the person a memory
// is about ("User's dentist check-up…", "The user takes the train…"):
// whom every memory Claude writes is about, so no subject word. "User
// feedback", "user roles" keep it.
func theUser(toks []token, i int) bool {
	if toks[i].lower != "user" {
		return false
	}
	text := strings.ToLower(toks[i].text)
	return strings.HasSuffix(text, "'s") || strings.HasSuffix(text, "’s") || i+1 < len(toks) && isVerb(toks, i+1)
}

// relateUnits relates a sentence or clause b of the newer text to a of
// the older.
func relateUnits(a, b *unit) Relation {
	if a.cond || b.cond {
		// What would hold if…
		return Relation{}
	}
	// What the two share: words (by stem) and names.
	shared := 0
	for w := range a.content {
		if _, ok := b.content[w]; ok {
			shared++
		}
	}
	sharedNames := 0
	for n := range a.names {
		if b.has(n) || b.was[n] {
			sharedNames++
		}
	}
	if shared == 0 && sharedNames == 0 {
		return Relation{}
	}
	// Another subject: a name that says whose or which thing on one side
	// only, or different words in the two subjects ("the kitchen tap" /
	// "the bathroom tap"). A role both name (manager, lead, dentist) has
	// one holder at a time: the name holding it is its value.
	if namesConflict(a, b, false) {
		return Relation{}
	}
	if a.subjectOnly(b) && b.subjectOnly(a) || a.pronoun && b.namedSubject(a) || b.pronoun && a.namedSubject(b) {
		return Relation{}
	}
	sizeA, sizeB := len(a.content)+sharedNames, len(b.content)+sharedNames
	cover := float64(shared+sharedNames) / float64(max(1, min(sizeA, sizeB)))

	// What changed.
	var changed []Kind
	removed := false
	for _, k := range []Kind{Number, Amount, Date, Time} {
		x, y := sortedCopy(a.values[k]), sortedCopy(b.values[k])
		switch {
		case len(x) > 0 && len(y) > 0 && len(minus(x, y)) > 0:
			// An old value is gone and another stands there.
			changed = append(changed, k)
		case len(x) > 0 && len(y) == 0:
			removed = true
		}
	}
	onlyA, onlyB := a.namesOnly(b), b.namesOnly(a)
	if len(onlyA) > 0 && len(onlyB) > 0 {
		k := Name
		if b.allPlaces(onlyB) {
			k = Place
		}
		changed = append(changed, k)
	}
	wordsA, wordsB := a.predicateOnly(b), b.predicateOnly(a)
	state := wordsA > 0 && wordsB > 0
	negation := a.negated != b.negated

	common := shared + sharedNames
	switch {
	case negation && (a.never || b.never) && !b.cue && (a.question || b.question):
		// "Have you ever…?" asks; it states nothing to contradict.
		return Relation{}
	case negation && (a.never || b.never) && !b.cue:
		// "I have never…" against a statement that it happened: what it
		// never did is what the other says ("never written any Flask
		// routes" / "wrote the Flask routes"), not an aside ("I'll never
		// forget it").
		n, other := a, b
		if b.never {
			n, other = b, a
		}
		if n.sharedAfterNever(other) >= 2 && cover >= 0.3 {
			return Relation{Kind: Contradicts, DiffersIn: []Kind{Negation}, Shared: cover, Common: common, About: about(a, b)}
		}
		return Relation{}
	case b.cue && !b.newNamesOtherThing(a):
		if cover < 0.5 {
			return Relation{}
		}
		// A changed state or negation, or a value dropped, with no new
		// value beside it: only when the two share more than one word.
		weak := common < 2
		if OtherSubjectRule && (weak && b.otherSubject(a, changed) || !slices.Equal(qualifiersOf(a), qualifiersOf(b))) {
			return Relation{}
		}
		if (state || b.stateCue) && !weak && !slices.Contains(changed, Name) && !slices.Contains(changed, Place) {
			changed = append(changed, State)
		}
		if negation && (!weak || len(changed) > 0) {
			changed = append(changed, Negation)
		}
		if len(changed) == 0 && removed && !weak {
			changed = append(changed, State)
		}
		if len(changed) == 0 {
			return Relation{}
		}
		return Relation{Kind: Updates, DiffersIn: ordered(changed), Shared: cover, Common: common, About: about(a, b), Anchored: anchored(a, b, changed)}
	}
	if restated(a, b, changed, cover, common, len(onlyA)+len(onlyB) > 0 || negation) {
		return Relation{Kind: Updates, DiffersIn: ordered(changed), Shared: cover, Common: common, About: about(a, b), Anchored: true}
	}
	// Without a word saying so, only the same statement of a state with
	// nothing but its date, time, amount or number changed, or negated.
	if !a.stateVerb || !b.stateVerb || a.event || b.event || len(onlyA)+len(onlyB) > 0 || wordsA+wordsB > 0 || removed {
		return Relation{}
	}
	if len(a.content) != shared || len(b.content) != shared {
		return Relation{}
	}
	if negation {
		changed = append(changed, Negation)
	}
	if len(changed) == 0 {
		return Relation{}
	}
	return Relation{Kind: Updates, DiffersIn: ordered(changed), Shared: cover, Common: common, About: about(a, b), Anchored: anchored(a, b, changed)}
}

// newWords are the cue words that may only say which thing is meant.
var newWords = setOf(`new newly`)

// newNamesOtherThing reports whether u's only cue is "new", the other
// unit says "new" too, and every "new" of u stands before words the
// other does not hold: "the new chef's knives" after "the new copper
// pans" says which thing was bought, not that the older's value changed.
// "My new manager" after "my new manager" does say it, and so does a
// "new" the older lacks ("a new Unox" after "a Rational", "under the new
// lease" after the rent).
func (u *unit) newNamesOtherThing(other *unit) bool {
	if u.otherCue || !slices.ContainsFunc(other.toks, func(t token) bool { return newWords[t.lower] }) {
		return false
	}
	found := false
	for i, t := range u.toks {
		if !newWords[t.lower] {
			continue
		}
		var phrase []string
		for j := i + 1; j < len(u.toks) && j <= i+3; j++ {
			n := u.toks[j]
			if n.sentence != t.sentence || n.kind == Number || n.kind == Amount || n.kind == Date || n.kind == Time || stopWords[n.lower] || cueWords[n.lower] {
				break
			}
			phrase = append(phrase, n.lower)
		}
		if len(phrase) == 0 {
			return false
		}
		for _, w := range phrase {
			if _, ok := other.content[stem(w)]; ok || other.has(w) {
				return false
			}
		}
		found = true
	}
	return found
}

// restated reports whether b, the speaker speaking of themselves, states
// a's count or amount again in the same frame with another value, though
// no word says it changed: the two keep a value of another kind whole
// (the same dates "between April 25 and May 1, 2024", "by July 2024") and
// replace the count or amount, as many on both sides, right beside the
// same word ("I secured 3 interviews" / "I secured 5 interviews" between
// those dates). What happened on another day ("84 euros in October" /
// "97 euros in November") or keeps only a year keeps no frame; a list of
// counts ("sides 3, 4 and 5" / "sides 3, 4 and 6") is no frame either.
// other: a name changed, or a negation.
func restated(a, b *unit, changed []Kind, cover float64, common int, other bool) bool {
	if other || cover < restatedCover || common < 2 || a.cond || b.cond || !a.firstPerson() || !b.firstPerson() {
		return false
	}
	// A count or amount replaced: as many on both sides, one gone and
	// another in its place.
	var replaced []Kind
	for _, k := range []Kind{Number, Amount} {
		x, y := sortedCopy(a.values[k]), sortedCopy(b.values[k])
		if slices.Contains(changed, k) && len(x) == len(y) && len(minus(x, y)) > 0 && len(minus(y, x)) > 0 {
			replaced = append(replaced, k)
		}
	}
	if len(replaced) == 0 {
		return false
	}
	kept := false
	for _, k := range []Kind{Number, Amount, Date, Time} {
		x, y := sortedCopy(a.values[k]), sortedCopy(b.values[k])
		if slices.Contains(replaced, k) || len(x) == 0 || len(y) == 0 || len(minus(x, y)) > 0 && len(minus(y, x)) > 0 {
			// The whole of one side's dates ("May 1, 2024": may, 1,
			// 2024) stand on the other, not a year or a day only.
			continue
		}
		// A kept count is no member of a list beside the replaced one.
		if k == Date || k == Time || apart(a, k, replaced) && apart(b, k, replaced) {
			kept = true
		}
	}
	return kept && anchoredWithin(a, b, replaced, restatedReach)
}

// firstPerson reports whether the speaker speaks of themselves in u ("I
// secured", "my budget"): their own count, amount or plan, stated again.
// What is logged of others ("Paid Hughes 84 euros", "Hughes booked 3
// seats") repeats as events do.
func (u *unit) firstPerson() bool {
	for _, t := range u.toks {
		if firstPerson[t.lower] {
			return true
		}
	}
	return false
}

var firstPerson = setOf(`i i'm i've i'd i'll my me we we're we've our us`)

// apart reports whether every value of kind k in u stands more than
// anchorReach words from every changed value: a count kept beside a
// changed one is a list ("sides 3, 4 and 5 cm"), not the frame.
func apart(u *unit, k Kind, changed []Kind) bool {
	for _, c := range changed {
		for _, i := range u.valueAt[c] {
			for _, j := range u.valueAt[k] {
				if max(i-j, j-i) <= anchorReach {
					return false
				}
			}
		}
	}
	return true
}

// anchored reports whether a changed number, amount, date or time stands
// within anchorReach words (unit.gap: a phrase saying it changed counts
// as none) of one same shared word on both sides.
func anchored(a, b *unit, changed []Kind) bool {
	return anchoredWithin(a, b, changed, anchorReach)
}

// anchoredWithin is anchored with reach words.
func anchoredWithin(a, b *unit, changed []Kind, reach int) bool {
	near := func(u *unit, k Kind) map[string]bool {
		out := map[string]bool{}
		for _, at := range u.valueAt[k] {
			for w, i := range u.content {
				if i != at && u.gap(i, at) <= reach {
					out[w] = true
				}
			}
		}
		return out
	}
	for _, k := range changed {
		if k != Number && k != Amount && k != Date && k != Time {
			continue
		}
		x, y := near(a, k), near(b, k)
		for w := range x {
			if y[w] {
				return true
			}
		}
	}
	return false
}

// gap is how many words apart positions i and j of u stand; a word and
// a value joined by nothing but a phrase saying it changed ("the deadline
// was extended to May 20", "the meeting has been moved to 4 PM") stand
// side by side.
func (u *unit) gap(i, j int) int {
	if i > j {
		i, j = j, i
	}
	cue := false
	for k := i + 1; k < j; k++ {
		w := u.toks[k].lower
		switch {
		case cueWords[w]:
			cue = true
		case !auxiliaries[w] && !changeLinks[w]:
			return j - i
		}
	}
	if cue {
		return 1
	}
	return j - i
}

// changeLinks join a changed thing to its new value in a phrase saying it
// changed ("extended to", "got moved to", "postponed until"). Not "by":
// "raised by $50" gives the difference, not the value.
var changeLinks = setOf(`to until got just been`)

// about lists the words and names a and b share, as each writes them.
func about(a, b *unit) []string {
	var out []string
	add := func(w string) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	for _, p := range [2][2]*unit{{a, b}, {b, a}} {
		u, other := p[0], p[1]
		for w, i := range u.content {
			if _, ok := other.content[w]; ok {
				add(u.toks[i].lower)
			}
		}
		for n := range u.names {
			if other.has(n) || other.was[n] {
				add(n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// sharedAfterNever counts the words and names after "never" that other
// has too.
func (u *unit) sharedAfterNever(other *unit) int {
	n := 0
	for w, i := range u.content {
		if _, ok := other.content[w]; ok && i > u.neverAt {
			n++
		}
	}
	for name, i := range u.names {
		if i > u.neverAt && other.has(name) {
			n++
		}
	}
	return n
}

// has reports whether the unit holds n as a name or a word.
func (u *unit) has(n string) bool {
	if _, ok := u.names[n]; ok {
		return true
	}
	_, ok := u.content[stem(n)]
	return ok
}

// namesOnly lists the names of u that other lacks.
func (u *unit) namesOnly(other *unit) []string {
	var out []string
	for n := range u.names {
		if !other.has(n) {
			out = append(out, n)
		}
	}
	return out
}

// holder reports whether the name n may hold a role rather than own a
// thing: it is not possessive and names nothing after it.
func (u *unit) holder(n string) bool {
	i := u.names[n]
	t := &u.toks[i]
	lower := strings.ToLower(t.text)
	if strings.HasSuffix(lower, "'s") || strings.HasSuffix(lower, "’s") {
		return false
	}
	next := i + 1
	for next < len(u.toks) && (u.toks[next].kind == Name || u.toks[next].maybeName) {
		next++ // "Dan Whitfield"
	}
	return next >= len(u.toks) || next == u.verb || stopWords[u.toks[next].lower] || u.toks[next].kind != ""
}

func (u *unit) allPlaces(names []string) bool {
	for _, n := range names {
		if u.toks[u.names[n]].kind != Place {
			return false
		}
	}
	return true
}

// namedSubject reports whether u's subject is a name other lacks ("Alex is
// reading…" after "I'm reading…").
func (u *unit) namedSubject(other *unit) bool {
	for n, i := range u.names {
		if i < u.verb && !other.has(n) {
			return true
		}
	}
	return false
}

// oldValues marks the values a text says were replaced: what follows
// "instead of" or "rather than", and X in "from X to Y" when the text
// says something changed.
func oldValues(toks []token) map[int]bool {
	var old map[int]bool // made at its first entry
	isValue := func(t *token) bool { return t.kind != "" || t.maybeName }
	changed := false
	for i := range toks {
		changed = changed || cueWords[toks[i].lower]
	}
	for i := 1; i < len(toks); i++ {
		a, b := toks[i-1].lower, toks[i].lower
		from := b == "from" && changed
		if !(a == "instead" && b == "of") && !(a == "rather" && b == "than") && !from {
			continue
		}
		for j := i + 1; j < len(toks) && j <= i+4; j++ {
			t := &toks[j]
			if from && t.lower == "to" {
				break
			}
			if isValue(t) {
				if old == nil {
					old = map[int]bool{}
				}
				old[j] = true
			} else if len(old) > 0 && !stopWords[t.lower] {
				break
			}
		}
	}
	return old
}

// subjectOnly reports whether u's subject holds a word other lacks.
func (u *unit) subjectOnly(other *unit) bool {
	for w, i := range u.content {
		if _, ok := other.content[w]; !ok && i < u.verb {
			return true
		}
	}
	return false
}

// predicateOnly counts the words after u's subject that other lacks.
func (u *unit) predicateOnly(other *unit) int {
	n := 0
	for w, i := range u.content {
		if _, ok := other.content[w]; !ok && i >= u.verb && !verbLike(u.toks, i) {
			n++
		}
	}
	return n
}

func ordered(ks []Kind) []Kind {
	var out []Kind
	for _, k := range []Kind{Number, Amount, Date, Time, Name, Place, State, Negation} {
		if slices.Contains(ks, k) {
			out = append(out, k)
		}
	}
	return out
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// stem reduces a lower-case word to a crude stem, so that "leads" and
// "lead", "rehearsals" and "rehearsal", "parking" and "park" meet; words
// of one meaning for the facts people update ("lives", "address") share
// one.
func stem(w string) string {
	if c, ok := concepts[w]; ok {
		return c
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		w = undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && len(w) > 3:
		w = w[:len(w)-1]
	}
	w = strings.TrimSuffix(w, "e")
	if c, ok := concepts[w]; ok {
		return c
	}
	if len(w) > 6 {
		// "subscribed" / "subscription", "renovate" / "renovation".
		w = w[:6]
	}
	return w
}

func undouble(w string) string {
	if n := len(w); n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// roles have one holder at a time: "my manager", "the lead", "our vet".
var roles = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`manager boss lead leader head director supervisor doctor gp dentist vet teacher tutor coach
		landlord landlady owner captain chair ceo president mentor therapist accountant lawyer solicitor babysitter nanny
		cleaner contact partner assistant physio optician hairdresser barber trainer`) {
		roles[stem(w)] = true
	}
}

// concepts gathers the words of one everyday subject that people use in
// turn for it.
var concepts = map[string]string{
	"live": "~home", "lives": "~home", "living": "~home", "lived": "~home", "address": "~home", "home": "~home",
	"moved": "~home", "move": "~home", "moving": "~home", "reside": "~home", "resides": "~home",
	"due": "~due", "deadline": "~due", "deadlines": "~due",
	"cost": "~cost", "costs": "~cost", "price": "~cost", "priced": "~cost", "charge": "~cost", "charges": "~cost", "fee": "~cost",
}

// isVerb guesses whether toks[i] is the first verb of its clause.
func isVerb(toks []token, i int) bool {
	w := toks[i].lower
	if verbs[w] || auxiliaries[w] || stateVerbs[w] || cueVerbs[w] {
		return true
	}
	// After a pronoun a word is the verb ("I park", "we swim").
	if i > 0 && pronouns[toks[i-1].lower] && !stopWords[w] {
		return true
	}
	return i > 0 && strings.HasSuffix(w, "ed") && len(w) > 4
}

// verbLike: the word after the subject is a verb, not a changed value.
func verbLike(toks []token, i int) bool {
	w := toks[i].lower
	return verbs[w] || auxiliaries[w] || stateVerbs[w] || eventVerb(w)
}

func eventVerb(w string) bool {
	return eventVerbs[w] || strings.HasSuffix(w, "ed") && len(w) > 4 && !cueWords[w] && !notEvents[w]
}

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var (
	pronouns    = setOf(`i we you he she they it i'm we're they're you're he's she's it's i've we've they've`)
	possessives = setOf(`my our your his her their its`)
	auxiliaries = setOf(`is are am was were be been being has have had will would shall should can could might must do does did 's 're 've 'd 'll`)
	// stateVerbs state what is, now.
	stateVerbs = setOf(`is are am 's 're costs cost lives live works work has have takes take starts start begins begin ends end
		opens open closes close leaves leave departs depart arrives arrive lands land meets meet expires expire renews renew runs run
		earns earn pays pay charges charge weighs weigh leads lead teaches teach drives drive drinks drink eats eat prefers prefer
		likes like loves love uses use wears wear sees see goes go sleeps sleep parks park swims swim stays stay sits sit`)
	verbs = setOf(`said says told tell went gone got get gets make makes made put puts keep keeps kept want wants need needs
		bought buy buys paid sold sell sells ran took booked book books visited visit visits met called call calls sent send sends
		came come comes gave give gives found find finds ate drank flew fly flies drove wrote write writes left saw watched
		tried try tries started stopped joined join joins adopted signed played play plays spent spend spends`)
	// eventVerbs tell what happened once.
	eventVerbs = setOf(`paid bought ran went got took booked visited met called sent came gave found told said ate drank flew
		drove wrote saw watched tried spent made had did watered cleaned cooked planted fixed repaired`)
	// notEvents end in -ed but state what is.
	notEvents = setOf(`allergic interested married engaged retired based scheduled called named used tired bored worried
		excited pleased located supposed planned`)
	// cueWords say that what was true changed.
	cueWords = setOf(`now new newly moved changed change changes switched switching instead anymore longer cancelled canceled
		stopped quit rescheduled postponed delayed extended raised increased decreased reduced lowered dropped revised relocated
		replaced replacing updated update actually sold renewed shortened lengthened since finished completed resolved approved
		closed reopened latest currently grown grew reached adjusted shifted improved rose risen fell fallen upgraded downgraded
		became become correction corrected transferred swapped promoted promotion reorg passed surpassed exceeded topped
		moving changing rescheduling postponing delaying extending raising increasing decreasing reducing lowering
		revising relocating updating shortening upgrading downgrading adjusting shifting cancelling canceling`)
	cueVerbs = setOf(`moved changed switched cancelled canceled stopped quit rescheduled postponed delayed extended raised increased
		decreased reduced lowered dropped revised relocated replaced updated sold renewed shortened finished completed closed reopened
		reached adjusted shifted improved rose fell upgraded downgraded became transferred swapped promoted passed surpassed exceeded
		topped`)
	// stateCues say a state changed even with no value beside them.
	stateCues = setOf(`cancelled canceled stopped quit finished completed resolved closed reopened sold anymore longer
		fixed repaired broken`)
	cuePhrases = setOf(`went_up gone_up goes_up going_up went_down gone_down up_to down_to no_longer any_more no_more after_all
		turns_out turned_out from_now these_days taken_over took_over signed_off gave_up given_up fixed_now`)
	stateCuePhrases = setOf(`no_longer any_more no_more signed_off gave_up given_up`)
	stopWords       = setOf(`a an the this that these those my our your his her their its we you he she they it i me us them him
		i'm i've i'd i'll we're we've you're they're it's that's there's let's what when where why how who which whose
		there here if then so but and or nor also just only still even very really quite too much many more most less few
		some any each every all both either neither other another such own same about above after again against before
		below between by during for from in into of off on onto out over through to under until up down upon with within
		without at as than via per be been being is are am was were has have had do does did will would shall should can
		could may might must 's 're 've 'd 'll not no never yes ok okay please thanks one two three a.m p.m am pm
		today tomorrow yesterday week weeks month months year years day days time times ago last next
		he's she's they've you've we'd they'd you'd she'd he'd we'll they'll you'll she'll he'll isn't aren't wasn't
		take takes taking make makes making get gets getting go goes going do doing done put puts come comes keep keeps
		give gives see place thing things stuff lot lots bit kind sort way
		awesome great amazing cool nice fun wonderful fantastic incredible lovely glad happy hope hoping wait let know
		think thought feel felt sure good bad really totally definitely absolutely pretty super thank wow yeah yep hey hi
		hello right well oh ah haha lol seem seems sound sounds looks look something anything everything nothing someone
		everyone anyone people much always often sometimes usually maybe perhaps probably actually basically literally
		like love loved enjoy enjoyed glad excited exciting interesting special
		especially particularly specifically mainly mostly kinda sorta`)
)

func init() {
	// Phrases are matched as two words joined by a space.
	for _, m := range []map[string]bool{cuePhrases, stateCuePhrases} {
		for p := range m {
			delete(m, p)
			m[strings.ReplaceAll(p, "_", " ")] = true
		}
	}
}
