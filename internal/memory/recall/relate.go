package recall

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/internal/memory/content"
	"github.com/infmem/infmem/internal/memory/memindex"
)

// Update detection at store time: which earlier memories a new one
// updates, is updated by, or contradicts (memory/supersede.go records the
// links; supersede.go here ranks with them). Candidates finds the
// memories to compare, the closest to the new text by keywords and
// meaning, and to each clause of a long text that says something changed;
// Relate compares them (facts.Relate decides).
//
// Conversation turns (a speaker, or source conversation) say much in
// passing: between them an update needs two words in common and a
// changed number, amount, date or time next to the same word on both
// sides ("snack budget to $65" / "snack budget to $75"; between the
// user's turns, the earlier turn closest to the new one may do without
// the same word when the two share four, closestUpdate), and no word
// saying which thing on one side only ("classification problems" /
// "problems" in a turn about areas, facts.Relation.OneSided); a contradiction
// needs half the words in common; turns of different speakers are never
// compared.

// RelateVectorCandidates is how many vector candidates Candidates draws
// (its own memory among them), for a memindex.VectorPass drawn ahead.
const RelateVectorCandidates = relateCandidates + 1

// Limits of the update detection at store time.
const (
	// relateCandidates is how many close memories are compared.
	relateCandidates = 8
	// relateMinScore: below this keyword coverage + cosine to the new
	// text, a memory is not compared; relateMinCoverage without
	// embeddings.
	relateMinScore    = 0.45
	relateMinCoverage = 0.1
	// relateClaims is how many clauses of a long text that say something
	// changed are looked up on their own, relateClaimCandidates the
	// memories compared for each.
	relateClaims          = 2
	relateClaimCandidates = 3
	// maxUpdates and maxContradictions bound what one store marks.
	maxUpdates        = 3
	maxContradictions = 2
	// closestCommon: see closestUpdate.
	closestCommon = 4
)

// Known is an earlier memory Relate compares with the new one. Closest:
// it is the earlier memory closest to the new text (the first of
// Candidates).
type Known struct {
	ID, Text, Speaker, Source string
	At                        time.Time
	Closest                   bool
	// Cos is its cosine to the new text (0 without embeddings).
	Cos float64
	// Nearest: it is the earlier memory closest to the new text by
	// cosine alone (MeaningGate). UnderFloor: it is compared only as
	// such, below the floor of Candidates (Nearest.UnderFloor).
	Nearest, UnderFloor bool
}

// MeaningCos: a memory that is no conversation turn, the earlier memory
// closest to a new one (Known.Closest) at this cosine or more, is updated
// by it when the new one says the value changed in other words
// (facts.ChangedInOtherWords: "The daily stand-up is at 9:30" / "From
// Monday the morning meeting starts at 9:00 instead"). 0 turns the rule
// off (infmem-bench --relate-meaning-cos 0).
var MeaningCos = 0.5

// MeaningOutright: a memory updated by meaning (MeaningCos) has its link
// marked by meaning (Found.ByMeaning, memindex.Links.ByMeaning: the
// ranking's lower bar, Options.SameQuestionMeaning) only when the new one
// says the change outright (facts.Relation.Outright: "moved to",
// "instead", "now", "raised … to"), not only by a word that as often tells
// of an event ("finished", "passed", "fixed", "since"); other updates by
// meaning are linked as any update by words is, and ranked with
// SameQuestion. False marks every update by meaning (infmem-bench
// --relate-meaning-outright=false).
var MeaningOutright = true

// MeaningGate widens which earlier memory the reading of an update said
// in other words (MeaningCos, facts.ChangedInOtherWords) is offered to
// (issue 23: most updates said in other words never reached it): also
// the memory closest to the new text by cosine alone when another is
// closest by keywords and cosine ("Holiday budget for Italy is €3,000" /
// "We've cut what we'll spend on the Italy trip to €2,400", where a note
// on the trip shares more words), and, where the new text says the
// change outright (facts.Relation.Outright: "now", "instead",
// "switched", "moved to"…), at MeaningCosOutright or more rather than
// MeaningCos, the nearest by cosine then taken from under the floor of
// Candidates too ("We subscribe to Netflix" / "Cancelled that and signed
// up for Disney+ instead": cosine 0.37, no word in common), unless the
// new text sets what it says in a place or for a purpose the older never
// names (facts.SaysOtherSetting: "Signed up for Virgin Media at the
// office now" after "Our broadband provider is BT"). The reading is
// otherwise unchanged: the dev look-alikes (two true facts of one kind,
// cosine 0.47–0.93) are all told apart by it, not by the gate. Off by
// default: on held-out everyday notes it still made a false link
// (BENCHMARKS, updates9); false is the closest by keywords and cosine at
// MeaningCos only (infmem-bench --relate-meaning-gate turns it on).
var MeaningGate = false

// MeaningGateThing: a link only the meaning gate finds (not the closest
// by keywords and cosine at MeaningCos, as without MeaningGate) is made
// only when the new text, where it names the thing that changed, names
// one the older meets (facts.SaysOtherThing: "Our electrician is now Bryn
// Lewis" after "The plumber we use is Dai Evans" is another thing of the
// kind; "The bookkeeper who does my tax return is Lowri Bell now" after
// "My accountant is Gethin Rowlands" the same). The links found without
// the gate are left as they are. infmem-bench
// --relate-meaning-gate-thing=false turns it off.
var MeaningGateThing = true

// MeaningCosOutright is the least cosine of the gate's outright reading
// (MeaningGate); infmem-bench --relate-meaning-cos-outright.
var MeaningCosOutright = 0.35

// Found is an earlier memory the new one relates to: At is its place in
// the Known slice, DiffersIn the kinds of detail that changed, About the
// words the link is about (nil: the whole memory).
type Found struct {
	At        int
	DiffersIn []string
	About     []string
	// ByMeaning: the update was found by meaning (MeaningCos), not by
	// shared words, and the new memory says the change outright
	// (MeaningOutright).
	ByMeaning bool
}

// Relations is what Relate found: the memories the new one updates (at
// most maxUpdates), the one that updates it, and those it contradicts (at
// most maxContradictions), the closest first.
type Relations struct {
	Updates      []Found
	SupersededBy *Found
	Contradicts  []Found
}

// Nearest is the candidate closest to the new text by cosine alone (At,
// its place in the candidates; -1: none), offered the reading of an
// update said in other words (MeaningGate); UnderFloor: it is a
// candidate only as such, its keyword coverage + cosine under the floor.
type Nearest struct {
	At         int
	UnderFloor bool
}

// Candidates finds, among the memories f admits, those to compare with
// the new memory d (never d itself, nor an older version whose successor
// is compared), and returns d's text parsed.
//
// pass, when not nil, holds the vector candidates drawn ahead of time
// (memindex.SimilarPass, with RelateVectorCandidates), kw the keyword
// candidates (KeywordsAhead), mine d's text parsed (facts.Parse).
func Candidates(ctx context.Context, ix *memindex.Index, f memindex.Filter, d *memindex.Doc, pass *memindex.VectorPass, kw *memindex.KeywordPass, mine *facts.Statement) ([]memindex.Candidate, *facts.Statement, Nearest, error) {
	id, text, vec := d.ID, d.Text, d.Vec
	rq := memindex.RankQuery{Filter: f, Terms: ix.Analyze(text), Vector: vec,
		Candidates: RelateVectorCandidates, K: RelateVectorCandidates, DuplicateOverlap: 1, Pass: pass, Keywords: kw}
	if rq.Terms.Empty() && vec == nil {
		return nil, nil, Nearest{At: -1}, nil
	}
	closeness := func(pool []memindex.Candidate) {
		for i := range pool {
			pool[i].Score = pool[i].Coverage + pool[i].Cos
		}
	}
	best, err := ix.Rank(ctx, rq, closeness)
	if err != nil {
		return nil, nil, Nearest{At: -1}, err
	}
	floor := relateMinScore
	if vec == nil {
		floor = relateMinCoverage
	}
	var out []memindex.Candidate
	add := func(cd memindex.Candidate, floor float64) {
		if cd.ID == id || cd.Kind != memindex.KindMemory || cd.Score < floor || slices.ContainsFunc(out, func(c memindex.Candidate) bool { return c.ID == cd.ID }) {
			return
		}
		if r := ix.RelatedOf(cd.ID); !r.SupersededBy.IsZero() {
			return // an older version already: its successor is compared
		}
		out = append(out, cd)
	}
	for _, cd := range best {
		add(cd, floor)
	}
	// The memory nearest by cosine is compared under the floor too, for
	// the reading of an update said in other words only (MeaningGate;
	// never between conversation turns, which that reading skips).
	nearest := -1
	if MeaningGate && vec != nil && speakerOf(d.Speaker, text) == "" && d.Source != content.SourceConversation {
		for i, cd := range best {
			if cd.ID != id && cd.Kind == memindex.KindMemory && (nearest < 0 || cd.Cos > best[nearest].Cos) && ix.RelatedOf(cd.ID).SupersededBy.IsZero() {
				nearest = i
			}
		}
	}
	near := Nearest{At: -1}
	if nearest >= 0 {
		if at := slices.IndexFunc(out, func(c memindex.Candidate) bool { return c.ID == best[nearest].ID }); at >= 0 {
			near.At = at
		} else if best[nearest].Cos >= MeaningCosOutright {
			add(best[nearest], 0)
			near = Nearest{At: len(out) - 1, UnderFloor: true}
		}
	}
	// A long text may update an earlier memory in one of its clauses
	// ("…, and I've adjusted the snack budget to $75, …"): the memories
	// closest to each such clause, by its words, are compared too.
	if mine == nil {
		mine = facts.Parse(text)
	}
	for _, claim := range mine.Claims(relateClaims) {
		q := memindex.RankQuery{Filter: rq.Filter, Terms: ix.Analyze(claim), Candidates: relateClaimCandidates + 1, K: relateClaimCandidates + 1, DuplicateOverlap: 1}
		if q.Terms.Empty() {
			continue
		}
		found, err := ix.Rank(ctx, q, closeness)
		if err != nil {
			return nil, nil, Nearest{At: -1}, err
		}
		for _, cd := range found {
			add(cd, relateMinCoverage)
		}
	}
	return out, mine, near, nil
}

// Relate compares the new memory d (its text parsed: mine) with the
// earlier memories ms, their texts parsed through parsed.
func Relate(ix *memindex.Index, d *memindex.Doc, mine *facts.Statement, ms []Known, parsed *Statements) Relations {
	var out Relations
	tsMS := d.TS.UnixMilli()
	speaker := speakerOf(d.Speaker, d.Text)
	turn := speaker != "" || d.Source == content.SourceConversation
	type found struct {
		at      int
		rel     facts.Relation
		meaning bool
	}
	var ups, downs, contra []found
	for i, m := range ms {
		theirs := speakerOf(m.Speaker, m.Text)
		if speaker != "" && theirs != "" && !strings.EqualFold(speaker, theirs) {
			continue
		}
		other := parsed.Get(m.ID, m.Text)
		newer := m.At.UnixMilli() <= tsMS
		var r facts.Relation
		meaning := false
		if m.UnderFloor && !newer {
			continue
		}
		if newer {
			if !m.UnderFloor {
				r = facts.RelateParsed(other, mine)
			}
			if (r.Kind == facts.Unrelated || r.Subset) && meaningGate(m) && !turn && theirs == "" && m.Source != content.SourceConversation {
				// An update the subset reading found is read by meaning
				// where that finds it too (its link ranks as before).
				subset := r
				r = facts.ChangedInOtherWords(other, mine)
				if r.Kind == facts.Updates && m.Cos < MeaningCos && (!r.Outright || facts.SaysOtherSetting(other, mine)) {
					r = facts.Relation{}
				}
				if r.Kind == facts.Updates && MeaningGateThing && !preGate(m) && facts.SaysOtherThing(other, mine) {
					r = facts.Relation{}
				}
				meaning = r.Kind == facts.Updates && (r.Outright || !MeaningOutright)
				if r.Kind != facts.Updates && subset.Subset {
					r = subset
				}
			}
		} else {
			r = facts.RelateParsed(mine, other)
		}
		if turn || theirs != "" || m.Source == content.SourceConversation {
			switch {
			case r.Kind == facts.Updates && (r.Frame || r.Common < 2 || !r.Anchored && !closestUpdate(m, speaker, r) || len(r.OneSided) > 0):
				continue
			case r.Kind == facts.Contradicts && r.Shared < 0.5:
				continue
			}
		}
		switch {
		case r.Kind == facts.Updates && newer:
			ups = append(ups, found{i, r, meaning})
		case r.Kind == facts.Updates:
			downs = append(downs, found{i, r, false})
		case r.Kind == facts.Contradicts:
			contra = append(contra, found{i, r, false})
		}
	}
	// An update read only by facts.SubsetRule (the newer says nothing but
	// the older's thing and a new value) is one link at most, the closest,
	// and none beside an update read otherwise: a terse "Gym up to R720"
	// meets every note on the gym.
	if slices.ContainsFunc(ups, func(f found) bool { return f.rel.Subset }) {
		var kept []found
		subset := false
		other := slices.ContainsFunc(ups, func(f found) bool { return !f.rel.Subset })
		for _, f := range ups {
			if f.rel.Subset && (other || subset) {
				continue
			}
			subset = subset || f.rel.Subset
			kept = append(kept, f)
		}
		ups = kept
	}
	// A conversation turn says many things: a link between turns ranks
	// only for questions about what the two share.
	result := func(f found) Found {
		out := Found{At: f.at, DiffersIn: kinds(f.rel.DiffersIn), ByMeaning: f.meaning}
		if m := ms[f.at]; turn || m.Speaker != "" || m.Source == content.SourceConversation {
			terms := ix.Analyze(strings.Join(f.rel.About, " ")).Terms()
			out.About = terms[:min(len(terms), memindex.MaxAbout)]
		}
		return out
	}
	closest := func(a, b found) int { return -cmpFloat(a.rel.Shared, b.rel.Shared) }
	slices.SortStableFunc(ups, closest)
	slices.SortStableFunc(contra, closest)
	slices.SortStableFunc(downs, closest)
	for _, f := range ups[:min(len(ups), maxUpdates)] {
		out.Updates = append(out.Updates, result(f))
	}
	if len(downs) > 0 {
		f := result(downs[0])
		out.SupersededBy = &f
	}
	for _, f := range contra[:min(len(contra), maxContradictions)] {
		out.Contradicts = append(out.Contradicts, result(f))
	}
	return out
}

// meaningGate reports whether m is offered the reading of an update said
// in other words: the closest to the new text at MeaningCos, or with
// MeaningGate the nearest by cosine at MeaningCos, or either at
// MeaningCosOutright (the reading must then say the change outright).
func meaningGate(m Known) bool {
	if MeaningCos <= 0 {
		return false
	}
	if !MeaningGate {
		return preGate(m)
	}
	return (m.Closest || m.Nearest) && m.Cos >= min(MeaningCos, MeaningCosOutright)
}

// preGate reports whether m is offered the reading of an update said in
// other words without MeaningGate: the closest to the new text, over the
// floor, at MeaningCos.
func preGate(m Known) bool {
	return m.Closest && !m.UnderFloor && m.Cos >= MeaningCos
}

// closestUpdate reports whether, between the user's turns, an update
// whose changed value stands next to no shared word still links: the
// earlier turn is the one closest to the new text, the two changed
// clauses share closestCommon words, and a number, amount, date or time
// changed, with no name, place or negation ("the Zoom meeting with
// Professor Danielle … rescheduled to March 22 at 4:30 PM" / "a Zoom
// meeting with Professor Danielle on March 22 at 3 PM"). A changed state
// alone between such turns is mostly a paraphrase or another thing of the
// conversation, a negation a denial, and the assistant's turns explain
// rather than state.
func closestUpdate(m Known, speaker string, r facts.Relation) bool {
	if !m.Closest || r.Common < closestCommon || !r.Counted() || strings.EqualFold(speaker, "assistant") || strings.EqualFold(m.Speaker, "assistant") {
		return false
	}
	return !slices.ContainsFunc(r.DiffersIn, func(k facts.Kind) bool {
		return k == facts.Negation || k == facts.Place || k == facts.Name
	})
}

// speakerOf is who said a memory: its speaker, else the name its text
// starts with ("Caroline: …").
func speakerOf(speaker, text string) string {
	if speaker != "" {
		return speaker
	}
	return facts.Speaker(text)
}

// Statements keeps memories' texts parsed for update detection, by id:
// the same earlier memories are compared again and again. Not safe for
// concurrent use (the engine uses it under its write lock).
//
// A parsed text holds ~5 KB of small maps and strings (facts.Parse, 13 us
// and 57 allocations), all live heap: at 2,048 the cache reached ~11 MB
// before it was emptied, which the server's heap goal (GOGC 25) and RSS
// followed (issue 24: ~12 MB of the daemon's RSS at 100k after 1,000
// stores). statementCacheSize holds the candidates of the last ~20 stores
// (at most 14 each), where repeats come from; a miss costs one parse.
type Statements struct {
	m map[string]cachedStatement
}

type cachedStatement struct {
	text string
	s    *facts.Statement
}

const statementCacheSize = 256

func (c *Statements) Get(id, text string) *facts.Statement {
	if st, ok := c.m[id]; ok && st.text == text {
		return st.s
	}
	if c.m == nil || len(c.m) >= statementCacheSize {
		c.m = make(map[string]cachedStatement, statementCacheSize)
	}
	s := facts.Parse(text)
	c.m[id] = cachedStatement{text, s}
	return s
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func kinds(ks []facts.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}
