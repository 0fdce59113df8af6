package facts

import (
	"slices"
	"strings"
)

// SubsetRule turns on the reading of an update that says nothing but the
// older's thing and a new value (issue 23: held-out updates said in another
// order or voice, or with the subject cut to a word or two, were read as
// unrelated): every word the newer uses to say which thing it is about is
// in the older, save verbs ("Discovery is charging R1,820 a month for the
// car insurance" after "Our car insurance with Discovery costs R1,650 a
// month"; "Gym up to R720" after "I've been going to the Virgin Active gym
// … that costs R650 a month"; "I'm on MTN now for my phone" after "My phone
// contract is with Vodacom"), a trailing adjunct of time or reason aside
// ("from next term"), and a value of a kind the older holds is new. A noun
// of the newer's the older lacks ("The school's aftercare closes at
// 5:30pm now" after "School starts at 7:45am"), or a name opening it the
// older lacks ("Euan flies … on 9 December" after "Mum flies … on 2
// December"), says another thing. Off by default; infmem-bench
// --relate-subset turns it on.
var SubsetRule = false

// subsetRelate reads b, a clause of the newer text, as a saying nothing but
// a's thing with a new value (SubsetRule).
func subsetRelate(a, b *unit) Relation {
	if a.cond || b.cond || a.question || b.question || a.never || b.never || a.negated != b.negated {
		return Relation{}
	}
	// The newer's core: without a trailing adjunct of time or reason (the
	// shortest: "for the car insurance from July" keeps its thing).
	core := len(b.toks)
	for j := len(b.toks) - 1; j >= 1; j-- {
		if frameAdjunctStart(b.toks, j) && frameAdjunct(b.toks[j:]) && !slices.ContainsFunc(b.toks[j:], func(t token) bool {
			return t.kind == Name || t.kind == Place || t.maybeName
		}) {
			core = j
			break
		}
	}
	// A verb: the unit's first, or one after an auxiliary or a pronoun
	// ("is charging", "are handled", "I've handed"); not "books" in "the
	// Gruffalo books".
	verbish := func(u *unit, i int) bool {
		w := u.toks[i].lower
		if i == u.verb {
			return true
		}
		if i == 0 {
			return false
		}
		prev := u.toks[i-1].lower
		return (auxiliaries[prev] || pronouns[prev]) && (isVerb(u.toks, i) || strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ed"))
	}
	// A qualifier that tells two of a kind apart differs ("my left hearing
	// aid" / "my right hearing aid", "the first" / "the second").
	quals := func(u *unit, end int) []string {
		var out []string
		for _, t := range u.toks[:end] {
			if qualifiers[t.lower] && !slices.Contains(out, t.lower) {
				out = append(out, t.lower)
			}
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(quals(a, len(a.toks)), quals(b, core)) {
		return Relation{}
	}
	// Another deed ("swam 40 lengths on Tuesday" after "walked 5 km on
	// Monday"): the newer's first verb tells of an event the older lacks.
	if v := b.verb; v < core && (eventVerb(b.toks[v].lower) || verbs[b.toks[v].lower]) && !cueWords[b.toks[v].lower] {
		if _, ok := a.content[stem(b.toks[v].lower)]; !ok && a.verb < len(a.toks) && (eventVerb(a.toks[a.verb].lower) || verbs[a.toks[a.verb].lower]) {
			return Relation{}
		}
	}
	shared, nouns := 0, 0
	for w, i := range b.content {
		if i >= core {
			continue
		}
		if currencyWords[b.toks[i].lower] || currencyCodes[b.toks[i].lower] {
			continue // "pounds" says the value's kind, not the thing
		}
		if j, ok := a.content[w]; ok {
			if ownedOther(a, j, b) {
				return Relation{}
			}
			if (eventVerb(b.toks[i].lower) || verbs[b.toks[i].lower]) && (eventVerb(a.toks[j].lower) || verbs[a.toks[j].lower]) {
				return Relation{} // the same deed again ("Paid the water bill of…", "Ran 8 km…"): another time
			}
			shared++
			if !verbish(b, i) {
				nouns++
			}
			continue
		}
		if verbish(b, i) || timelyWords[b.toks[i].lower] {
			continue // "is charging", "handed … over", "monthly"
		}
		return Relation{} // a noun the older lacks: another thing
	}
	sharedNames := 0
	var newNames, oldNames []string
	for n, i := range b.names {
		if i >= core {
			continue
		}
		// The same name, or a common word capitalised to open the newer
		// ("Guitar now Wednesdays 4.30"); not "Designer" for "design".
		j, ok := a.names[n]
		if !ok && b.toks[i].maybeName {
			j, ok = a.content[stem(n)]
		}
		if ok || a.was[n] {
			if ok && ownedOther(a, j, b) {
				return Relation{}
			}
			if eventVerb(n) || verbs[n] {
				return Relation{} // "Watered …" / "Watered …": a deed again, read as a name at the start
			}
			sharedNames++
			continue
		}
		t := b.toks[i]
		modifier := false // the name says which of a thing the newer names next ("The Guardian subscription")
		if i+1 < len(b.toks) && i+1 != b.verb {
			if at, ok := b.content[stem(b.toks[i+1].lower)]; ok && at == i+1 {
				modifier = true
			}
		}
		holder := roleShared(a, b) && !modifier // "Tom Reed is chair of the club now": the role's new holder
		if (i < b.verb && b.verb < len(b.toks) || t.maybeName) && !holder || modifier || i > 0 && (b.toks[i-1].lower == "for" || b.toks[i-1].lower == "with") ||
			strings.HasSuffix(strings.ToLower(t.text), "'s") || strings.HasSuffix(strings.ToLower(t.text), "’s") {
			return Relation{} // whose or which one: a name opening the newer, owning, "for Nora", that the older lacks
		}
		newNames = append(newNames, n)
	}
	if nouns == 0 && sharedNames == 0 {
		return Relation{}
	}
	// A state verb of the newer's the older lacks says another thing of it
	// ("School starts at 7:45am" after "the school day … ends at 2:30pm").
	if v := b.verb; v < core && stateVerbs[b.toks[v].lower] && !auxiliaries[b.toks[v].lower] {
		if _, ok := a.content[stem(b.toks[v].lower)]; !ok && a.verb < len(a.toks) && stateVerbs[a.toks[a.verb].lower] && !auxiliaries[a.toks[a.verb].lower] {
			return Relation{}
		}
	}
	// The older's subject (the words before its verb, and a name owning
	// it) is in the newer, unless the newer is a word or two ("Bins now
	// Fridays"): "my new address is … Bristol" is not "My cousin Ana"'s.
	if len(b.content)+len(b.names) > 2 {
		for w, i := range a.content {
			if _, ok := b.content[w]; !ok && i < a.verb {
				return Relation{}
			}
		}
		for n, i := range a.names {
			t := strings.ToLower(a.toks[i].text)
			if !b.has(n) && i < a.verb && (strings.HasSuffix(t, "'s") || strings.HasSuffix(t, "’s")) {
				return Relation{}
			}
		}
	}
	for n := range a.names {
		if !b.has(n) {
			oldNames = append(oldNames, n)
		}
	}
	// What changed: a value of a kind both hold, the newer's not all the
	// older's; or a name for a name.
	var changed []Kind
	for _, k := range []Kind{Number, Amount, Date, Time} {
		var y []string
		for j, at := range b.valueAt[k] {
			if at < core {
				y = append(y, b.values[k][j])
			}
		}
		x := a.values[k]
		if len(x) > 0 && len(y) > 0 && len(minus(sortedCopy(y), sortedCopy(x))) > 0 && len(minus(sortedCopy(x), sortedCopy(y))) > 0 {
			changed = append(changed, k)
		}
	}
	if len(newNames) > 0 && len(oldNames) > 0 {
		k := Name
		if b.allPlaces(newNames) {
			k = Place
		}
		changed = append(changed, k)
	}
	if len(changed) == 1 && (changed[0] == Name || changed[0] == Place) && !b.cue && core == len(b.toks) {
		// A name for a name with no word of change nor a time it holds
		// from ("We have two cats, Pepper and Miso" after "Ruth feeds the
		// cats"): as often another of the kind.
		return Relation{}
	}
	if len(changed) > 1 && !(len(changed) == 2 && changed[0] == Date && changed[1] == Time) {
		// Two values changed, not a day and its time: another instance
		// ("the March phone bill was £30" / "the April phone bill was
		// £34"), or another one's ("… for Nora on March 3 at 10:00").
		return Relation{}
	}
	if len(changed) == 0 {
		// A name and a value both changed: another one's ("Dentist
		// appointment for Nora on March 3 at 10:00").
		return Relation{}
	}
	common := shared + sharedNames
	sizeA, sizeB := len(a.content)+sharedNames, len(b.content)+sharedNames
	return Relation{Kind: Updates, DiffersIn: ordered(changed), Shared: min(1, float64(common)/float64(max(1, min(sizeA, sizeB)))),
		Common: common, About: about(a, b), Anchored: true, Frame: true, Subset: true}
}

// timelyWords say how often, not which thing.
var timelyWords = setOf(`monthly weekly yearly daily nightly annually fortnightly hourly`)

// OtherSubjectRule cuts a false link of the reading by a word of change
// (issue 23 (e): a store naming an unrelated older fact as replaced) where
// the two share one word only, and that word says another thing on each
// side: another word right before it on each ("Our gas bill went up to
// £97" after "Paid the water bill of 48 pounds"), it is a street word of two
// places ("… the Thai place on Mill Road" after "… 52 Harbour Road"), or
// only a name changed, with no verb of change, and the newer's predicate
// says what the older never does ("Alex is now reading Piranesi" after
// "Alex's mother lives in York"). Off by default; infmem-bench
// --relate-other-subject turns it on.
var OtherSubjectRule = false

// otherSubject reports whether u, a newer clause sharing one word with
// other, speaks of another thing (OtherSubjectRule).
func (u *unit) otherSubject(other *unit, changed []Kind) bool {
	sharedWords := 0
	for w := range u.content {
		if _, ok := other.content[w]; ok {
			sharedWords++
		}
	}
	if sharedWords == 0 && !slices.ContainsFunc(u.toks, func(t token) bool { return cueVerbs[t.lower] && !eventVerb(t.lower) }) {
		// Only a name in common, most often the person the notes are
		// about ("Ana raised her day rate…" / "Ana takes the bus…").
		return true
	}
	if u.verb < len(u.toks) && other.verb < len(other.toks) {
		x, y := startEnd[u.toks[u.verb].lower], startEnd[other.toks[other.verb].lower]
		if x != 0 && y != 0 && x != y {
			return true // "School starts at 7:45am" / "The school's aftercare closes at 5:30pm"
		}
	}
	for w, i := range u.content {
		j, ok := other.content[w]
		if !ok {
			continue
		}
		if streetWords[u.toks[i].lower] {
			return true // "Mill Road" / "Harbour Road"
		}
		if i > 0 && j > 0 {
			p, q := u.toks[i-1], other.toks[j-1]
			if p.kind == "" && q.kind == "" && !stopWords[p.lower] && !stopWords[q.lower] && !cueWords[p.lower] && !cueWords[q.lower] &&
				!newWords[p.lower] && !newWords[q.lower] && stem(p.lower) != stem(q.lower) && !p.maybeName && !q.maybeName {
				return true // "gas bill" / "water bill"
			}
		}
	}
	if len(changed) == 0 || slices.ContainsFunc(changed, func(k Kind) bool { return k != Name && k != Place }) {
		return false
	}
	if slices.ContainsFunc(u.toks, func(t token) bool { return cueVerbs[t.lower] }) {
		return false // "Hannah relocated to Edinburgh": the change said outright
	}
	end := len(u.toks)
	for j := u.verb + 1; j < len(u.toks); j++ {
		if adjunctOpeners[u.toks[j].lower] && u.toks[j].lower != "in" && u.toks[j].lower != "for" {
			end = j // "since the studio reorganised"
			break
		}
	}
	for w, i := range u.content {
		if _, ok := other.content[w]; ok || i <= u.verb || i >= end || timeNouns[u.toks[i].lower] || timelyWords[u.toks[i].lower] || titles[u.toks[i].lower] {
			continue
		}
		return true
	}
	return false
}

// startEnd tells the verbs of a start (1) from those of an end (2): a time
// a thing starts is not the time it ends.
var startEnd = map[string]int{"starts": 1, "start": 1, "begins": 1, "begin": 1, "opens": 1, "open": 1, "departs": 1, "depart": 1,
	"leaves": 1, "leave": 1, "ends": 2, "end": 2, "closes": 2, "close": 2, "finishes": 2, "finish": 2, "arrives": 2, "arrive": 2,
	"lands": 2, "land": 2}

// ownedOther reports whether a's word at j is owned by a name the newer b
// lacks ("Anna's Geburtstag 19. September" / "Papa's 75. Geburtstag am 2.
// April"): another one's.
func ownedOther(a *unit, j int, b *unit) bool {
	if j == 0 {
		return false
	}
	p := a.toks[j-1]
	t := strings.ToLower(p.text)
	return (p.kind == Name || p.maybeName) && (strings.HasSuffix(t, "'s") || strings.HasSuffix(t, "’s")) && !b.has(p.lower)
}

// qualifiers tell two things of a kind apart.
var qualifiers = setOf(`left right upper lower front back rear top bottom first second third inner outer spare main`)

// roleShared reports whether a and b share a role word (chair, manager,
// coach…): a name opening the newer is then its holder.
func roleShared(a, b *unit) bool {
	for w := range b.content {
		if _, ok := a.content[w]; ok && roles[w] {
			return true
		}
	}
	return false
}

// qualifiersOf lists the qualifiers u holds, sorted.
func qualifiersOf(u *unit) []string {
	var out []string
	for _, t := range u.toks {
		if qualifiers[t.lower] && !slices.Contains(out, t.lower) {
			out = append(out, t.lower)
		}
	}
	slices.Sort(out)
	return out
}
