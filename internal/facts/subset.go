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
	// The newer's core: without a trailing adjunct of time or reason.
	core := len(b.toks)
	for j := 1; j < len(b.toks); j++ {
		if frameAdjunctStart(b.toks, j) && frameAdjunct(b.toks[j:]) && !slices.ContainsFunc(b.toks[j:], func(t token) bool {
			return t.kind == Name || t.kind == Place || t.maybeName
		}) {
			core = j
			break
		}
	}
	shared, nouns := 0, 0
	for w, i := range b.content {
		if i >= core {
			continue
		}
		if _, ok := a.content[w]; ok {
			shared++
			if !isVerb(b.toks, i) && !strings.HasSuffix(b.toks[i].lower, "ing") {
				nouns++
			}
			continue
		}
		if isVerb(b.toks, i) || strings.HasSuffix(b.toks[i].lower, "ing") || strings.HasSuffix(b.toks[i].lower, "ly") {
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
		if a.has(n) || a.was[n] {
			sharedNames++
			continue
		}
		if i < b.verb && b.verb < len(b.toks) {
			return Relation{} // a name opening the newer the older lacks: another one's
		}
		newNames = append(newNames, n)
	}
	if nouns == 0 && sharedNames == 0 {
		return Relation{}
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
		if len(x) > 0 && len(y) > 0 && len(minus(sortedCopy(y), sortedCopy(x))) > 0 {
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
	if len(changed) == 0 {
		return Relation{}
	}
	common := shared + sharedNames
	sizeA, sizeB := len(a.content)+sharedNames, len(b.content)+sharedNames
	return Relation{Kind: Updates, DiffersIn: ordered(changed), Shared: min(1, float64(common)/float64(max(1, min(sizeA, sizeB)))),
		Common: common, About: about(a, b), Anchored: true, Frame: true, Subset: true}
}
