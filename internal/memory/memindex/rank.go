package memindex

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/textindex"
)

// RankQuery is a search as the index answers it: which memories may be
// found, how candidates are drawn, and what the query says besides its
// words.
type RankQuery struct {
	Filter Filter
	// Terms are the keyword terms; empty: no keyword candidates or scores.
	Terms textindex.Query
	// Vector is the query's embedding; nil: no vector candidates or scores.
	Vector []float32
	// Names holds the query's words unstemmed (textindex.Words), to tell
	// whether it names a memory's speaker.
	Names []string
	// Holds are groups of words (up to 64), to tell which groups a memory
	// holds a word of (Candidate.Holds): the words of each of the user's
	// people, the calendar words the query says.
	Holds []textindex.Query
	// From and To bound the period the query names (unix ms), if Period.
	From, To int64
	Period   bool
	// PeriodCandidates draws up to this many of the newest memories that
	// happened in (or refer to) the period too: "what did Sam say last
	// week" must see last week's memories even when other weeks' match its
	// words better.
	PeriodCandidates int
	// Candidates is how many keyword and how many vector hits are drawn.
	Candidates int
	// Neighbors draws the turns next to each hit too.
	Neighbors bool
	// K is how many results to return at most. DuplicateOverlap drops a
	// result whose keyword terms overlap a better one's this much (1 or
	// more: none is dropped).
	K                int
	DuplicateOverlap float64
	// Pass, when set, holds the vector candidates drawn for this query
	// ahead of time (SimilarPass); Rank scans when it cannot use them.
	Pass *VectorPass
	// Keywords, when set, holds the keyword candidates drawn for this
	// query before its new memory was in the index (KeywordsAhead) or
	// before the Rank (KeywordsFirst); Rank searches when they are not what
	// it would find now.
	Keywords *KeywordPass
}

// Candidate is one memory being ranked: the evidence the index holds for
// it and for the turns next to it.
type Candidate struct {
	ID   bson.ObjectID
	Kind Kind
	// Speaker: the query names who said it. During: it happened in, or its
	// text refers to, the period the query names. Dated: its text refers
	// to a time. Alone: no turn next to it is one the query may see (a
	// summary is never Alone: summaries.go).
	Speaker, During, Dated, Alone bool
	TS                            int64 // unix ms
	Importance                    float64
	// Holds has bit j set when the memory holds a word of
	// RankQuery.Holds[j].
	Holds uint64
	// Source is what kind of memory it is (note, conversation, lesson…).
	Source string
	// Length is how many keyword terms it has.
	Length int
	// Cos is the cosine to the query (0 without vectors); Coverage the
	// share of the query's ideal BM25 score (an average memory holding
	// every query word) it reaches.
	Cos, Coverage float64
	// NeighborCos and NeighborCoverage are the best of its neighbours'
	// in the pool (its own when it is alone).
	NeighborCos, NeighborCoverage float64
	// Score ranks; the caller's scorer sets it.
	Score float64
	// Neighbors are the positions in the pool of the turns just before
	// and just after it, when those are candidates too (-1: not).
	Neighbors [2]int32
	// Successor is the position of the live memory that supersedes it,
	// and Contradicts of one that contradicts it (-1: none); Scoped: its
	// links are about some words only (a conversation turn's); links.go.
	Successor, Contradicts int32
	Scoped                 bool
	// ByMeaning: its successor was found by meaning (Links.ByMeaning).
	ByMeaning bool
	// Folded are the lower-ranked candidates that repeat it (see
	// RankQuery.DuplicateOverlap), best first: the same fact stored again.
	Folded []Hit
	// Conv names its conversation within this index (0: none): a summary
	// has the conversation it condenses, so a caller can tell a summary
	// whose turns it already shows.
	Conv uint32
	// ConvTurns is how many turns its conversation holds that the query
	// may see (0: none): its memories not forgotten, archived ones too
	// when the filter admits them, never its summaries. So a caller can
	// tell how much of a conversation it already shows, the same before
	// and after the nightly pass archives the turns.
	ConvTurns int32

	slot uint32
}

// rankMaps are the maps and arrays of one Rank, kept for the next
// (rankMapsPool): a retrieval's pool of a few hundred candidates made them
// anew, ~20 KB a retrieval, and the server collects garbage at every
// ~12 MB allocated (GOGC 25).
type rankMaps struct {
	pos         map[uint32]int32
	nbOf        map[uint32][2]int32
	hits, slots []uint32
	ordered     []*Candidate
}

var rankMapsPool sync.Pool

func getRankMaps() *rankMaps {
	if rm, ok := rankMapsPool.Get().(*rankMaps); ok {
		return rm
	}
	return &rankMaps{pos: map[uint32]int32{}, nbOf: map[uint32][2]int32{}}
}

// release hands rm to the next Rank unless it grew past maxKeptPool;
// nothing may use it after.
func (rm *rankMaps) release() {
	if len(rm.pos) > maxKeptPool || cap(rm.ordered) > maxKeptPool {
		return
	}
	clear(rm.pos)
	clear(rm.nbOf)
	clear(rm.ordered[:cap(rm.ordered)]) // no pointer into a pool kept
	rankMapsPool.Put(rm)
}

// maxKeptPool is the largest candidate pool a Rank keeps for the next.
const maxKeptPool = 4096

// Rank draws the best keyword and vector matches among the memories the
// query's filter admits, and the turns next to them, into a pool; has
// score set every candidate's Score (it runs under the index's read lock
// and must only read the pool and set scores); and returns the best K by
// score (then newest first) that do not repeat a better one, best first.
// When nothing matches it returns none and score is not called.
func (ix *Index) Rank(ctx context.Context, q RankQuery, score func(pool []Candidate)) ([]Candidate, error) {
	useKW, useVec := !q.Terms.Empty(), q.Vector != nil && ix.vecs != nil
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(q.Filter)
	allowed, n := ix.allowedLocked(&c)
	if n == 0 {
		return nil, nil
	}
	// The keyword stage asks about every posting of the query's words: a
	// bit of the allowed set (exactly the slots c matches) answers it.
	allow := func(slot textindex.DocID) bool { return allowed.Has(uint32(slot)) }

	// The maps and arrays below come from a Rank before (rankMaps):
	// nothing returned points into them.
	rm := getRankMaps()
	defer rm.release()
	pos := rm.pos // slot → position in the pool, once ordered
	add := func(slot uint32) { pos[slot] = 0 }
	if useKW {
		hits, ok := ix.keywordPassLocked(&q, allowed.Has)
		if !ok {
			hits = ix.text.SearchQuery(q.Terms, q.Candidates, allow)
		}
		for _, h := range hits {
			add(h.ID)
		}
	}
	// A caller that left (or a cancelled call) stops between the phases.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if useVec {
		hits, ok := ix.passHitsLocked(&q, allowed)
		if !ok {
			hits = ix.vecs.Search(q.Vector, q.Candidates, allowed)
		}
		for _, h := range hits {
			add(h.ID)
		}
	}
	if q.Period && q.PeriodCandidates > 0 {
		for _, slot := range ix.periodLocked(&c, q.From, q.To, q.PeriodCandidates) {
			add(slot)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(pos) == 0 {
		return nil, nil
	}
	// Neighbours of the hits join the pool: they get their own scores and
	// lend part of them to each other. The hits' are kept for the pool's
	// loop below (a thread's binary search each, ~0.1 ms a retrieval).
	var nbOf map[uint32][2]int32
	if q.Neighbors {
		hits := slices.AppendSeq(rm.hits[:0], maps.Keys(pos))
		rm.hits = hits
		nbOf = rm.nbOf
		for _, s := range hits {
			nbs := ix.neighborsLocked(s, c.match)
			nbOf[s] = nbs
			for _, nb := range nbs {
				if nb >= 0 {
					add(uint32(nb))
				}
			}
		}
	}
	// So do the memories that supersede or contradict them.
	ix.linkedLocked(pos, c.match)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slots := slices.AppendSeq(rm.slots[:0], maps.Keys(pos))
	slices.Sort(slots)
	rm.slots = slots
	pool := ix.candidatePool(len(slots))
	defer ix.keepPool(pool)
	for i, s := range slots {
		pos[s] = int32(i)
		it := &ix.items[s]
		pool[i] = Candidate{ID: it.id, Kind: it.kind, TS: it.ts, Importance: float64(it.importance), Source: ix.sources.names[it.source], Dated: it.refFrom != 0, Conv: it.conv, slot: s}
		pool[i].ConvTurns = ix.convTurnsLocked(it.conv, c.f.IncludeArchived)
	}
	for i, n := range ix.text.Lengths(slots) {
		pool[i].Length = n
	}
	if useKW {
		if ideal := ix.text.IdealScore(q.Terms); ideal > 0 {
			for i, bm25 := range ix.text.MatchQuery(q.Terms, slots) {
				pool[i].Coverage = min(1, bm25/ideal)
			}
		}
	}
	for j, hq := range q.Holds {
		if j >= 64 || hq.Empty() {
			continue
		}
		for i, sc := range ix.text.ScoreQuery(hq, slots) {
			if sc > 0 {
				pool[i].Holds |= 1 << j
			}
		}
	}
	if useVec {
		ix.cosinesLocked(q.Vector, pool)
	}
	speakers := speakerMatcher{ix: ix, words: q.Names}
	for i := range pool {
		cd := &pool[i]
		it := &ix.items[cd.slot]
		cd.Speaker = speakers.named(it.speaker)
		cd.During = q.Period && it.during(q.From, q.To)
		// Neighbours are the turns around it that this query may see: a
		// summary whose messages are archived stands alone.
		nbs, ok := nbOf[cd.slot]
		if !ok {
			nbs = ix.neighborsLocked(cd.slot, c.match)
		}
		cd.Neighbors, cd.Alone = [2]int32{-1, -1}, nbs == [2]int32{-1, -1}
		for j, nb := range nbs {
			if nb >= 0 {
				if p, ok := pos[uint32(nb)]; ok {
					cd.Neighbors[j] = p
				}
			}
		}
	}
	ix.setCandidateLinks(pool, pos, q.Terms)
	for i := range pool {
		cd := &pool[i]
		if cd.Alone {
			// A memory outside any conversation is its own context.
			cd.NeighborCos, cd.NeighborCoverage = cd.Cos, cd.Coverage
		}
		for _, p := range cd.Neighbors {
			if p >= 0 {
				cd.NeighborCos, cd.NeighborCoverage = max(cd.NeighborCos, pool[p].Cos), max(cd.NeighborCoverage, pool[p].Coverage)
			}
		}
	}
	summariesStandOnTheirOwn(pool)
	score(pool)

	ordered := rm.ordered[:0]
	for i := range pool {
		ordered = append(ordered, &pool[i])
	}
	rm.ordered = ordered
	slices.SortFunc(ordered, func(a, b *Candidate) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return cmp.Compare(b.TS, a.TS)
	})
	ordered = ix.summariesLeadLocked(ordered)
	out := make([]Candidate, 0, q.K)
	var kept []keptTerms
	for _, cd := range ordered {
		// Past the K-th result the pool is read only for the copies of
		// the results, so that each says how many it stands for.
		c := keptTerms{slot: cd.slot}
		if q.DuplicateOverlap < 1 {
			c.terms = ix.text.Summary(cd.slot)
		}
		if j := ix.nearDuplicateLocked(c, kept, q.DuplicateOverlap); j >= 0 {
			out[j].Folded = append(out[j].Folded, Hit{ID: cd.ID, Kind: cd.Kind, TS: cd.TS, Score: cd.Score})
			continue
		}
		if len(out) < q.K {
			kept = append(kept, c)
			out = append(out, *cd)
		}
	}
	return out, nil
}

// During returns up to n of the newest memories f admits that happened in
// [from, to) (unix ms) or whose text refers to a time overlapping it.
func (ix *Index) During(f Filter, from, to int64, n int) []Hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(f)
	slots := ix.periodLocked(&c, from, to, n)
	slices.SortFunc(slots, func(a, b uint32) int { return cmp.Compare(ix.items[b].ts, ix.items[a].ts) })
	out := make([]Hit, len(slots))
	for i, s := range slots {
		it := &ix.items[s]
		out[i] = Hit{ID: it.id, Kind: it.kind, TS: it.ts}
	}
	return out
}

// periodLocked returns up to n of the newest items c admits that happened
// in [from, to) or refer to a time overlapping it.
func (ix *Index) periodLocked(c *compiled, from, to int64, n int) []uint32 {
	var in []uint32
	for i := range ix.items {
		it := &ix.items[i]
		if it.used && it.during(from, to) && c.match(it) {
			in = append(in, uint32(i))
		}
	}
	if len(in) > n {
		slices.SortFunc(in, func(a, b uint32) int { return cmp.Compare(ix.items[b].ts, ix.items[a].ts) })
		in = in[:n]
	}
	return in
}

// convTurnsLocked is Candidate.ConvTurns of conversation conv: its
// memories not forgotten, less the archived ones unless the filter admits
// them. Counting only live items, a conversation the nightly pass had
// archived held one (its summary), and a single turn shown "covered" it
// (recall's ConvCover pushed every other turn of it down: LoCoMo R@5 66.4
// -> 52.6 after the pass).
func (ix *Index) convTurnsLocked(conv uint32, archived bool) int32 {
	t := &ix.tally
	if conv == 0 || int(conv) >= len(t.convTurns) {
		return 0
	}
	n := t.convTurns[conv]
	if !archived {
		n -= t.convArchived[conv]
	}
	return n
}

// cosinesLocked sets the cosine of every candidate that has an embedding.
func (ix *Index) cosinesLocked(qv []float32, pool []Candidate) {
	with := make([]uint32, 0, len(pool))
	at := make([]int, 0, len(pool))
	for i := range pool {
		if ix.vecs.Has(pool[i].slot) {
			with = append(with, pool[i].slot)
			at = append(at, i)
		}
	}
	for j, sc := range ix.vecs.Score(qv, with) {
		pool[at[j]].Cos = float64(sc)
	}
}

// keptTerms is a result (or a candidate for one) and what its keyword
// terms' summary tells without reading them.
type keptTerms struct {
	slot  uint32
	terms textindex.TermSummary
}

// nearDuplicateLocked returns the position in kept of the first result
// that c says the same as (their keyword terms overlap at least
// threshold), or -1. Most pairs are told apart by their term summaries
// alone (textindex.MayOverlap: distinct-term counts too far apart, or
// signatures differing in too many bits), without reading their terms.
func (ix *Index) nearDuplicateLocked(c keptTerms, kept []keptTerms, threshold float64) int {
	if threshold >= 1 {
		return -1
	}
	for j, k := range kept {
		if !textindex.MayOverlap(c.terms, k.terms, threshold) {
			continue
		}
		if ix.text.Overlap(c.slot, k.slot) >= threshold {
			return j
		}
	}
	return -1
}

// speakerMatcher reports whether a query names a memory's speaker: a word
// of the query matches the speaker's first name, or another word of the
// name of four letters or more, closely enough and better than it matches
// anyone else's (wordNamesLocked: "Muhammad" names "Muhhamed", "jon"
// "Jonn", "Fahim Khan" names "Fahim" and "Fahim" "Fahim Khan"). Answers
// are cached per query, since a conversation has few speakers.
type speakerMatcher struct {
	ix    *Index
	words []string
	seen  map[uint32]bool
	word  map[string][]uint32 // the speakers a word names, once it matched one
}

func (m *speakerMatcher) named(speaker uint32) bool {
	if speaker == 0 || int(speaker) >= len(m.ix.speakers.names) || len(m.words) == 0 {
		return false
	}
	if v, ok := m.seen[speaker]; ok {
		return v
	}
	if m.seen == nil {
		m.seen, m.word = map[uint32]bool{}, map[string][]uint32{}
	}
	named := false
	nws := nameWords(m.ix.speakers.names[speaker])
	role := len(nws) > 0 && roleNames[nws[0]]
	for i, n := range nws {
		if i > 0 && len(n) < 4 {
			continue
		}
		for _, w := range m.words {
			if named || nameMatch(w, n, role) == nameOther {
				continue
			}
			sps, ok := m.word[w]
			if !ok {
				sps, _ = m.ix.wordNamesLocked(w, false)
				m.word[w] = sps
			}
			named = slices.Contains(sps, speaker)
		}
	}
	m.seen[speaker] = named
	return named
}

// during reports whether the item happened in [from, to) or its text
// refers to a time that overlaps it.
func (it *item) during(from, to int64) bool {
	if it.ts >= from && it.ts < to {
		return true
	}
	if it.refFrom == 0 {
		return false
	}
	if it.refFrom < to && it.refTo > from {
		return true
	}
	return it.flags&FlagRefNext != 0 && yearLater(it.refFrom) < to && yearLater(it.refTo) > from
}

// yearLater is the instant (unix ms) a calendar year after ms: the same
// date and clock time in UTC, and so in any zone whose offset on that date
// is the same each year.
func yearLater(ms int64) int64 {
	return time.UnixMilli(ms).UTC().AddDate(1, 0, 0).UnixMilli()
}

// maxSpeakerPrefix bounds the name speakerPrefix reads.
const maxSpeakerPrefix = 40

// speakerPrefix returns the name a conversation turn starts with
// ("Caroline: I went…" is Caroline's): one to three words, each
// capitalised, before a colon and a space at the very start.
func speakerPrefix(text string) string {
	i := strings.IndexByte(text, ':')
	if i <= 0 || i > maxSpeakerPrefix || i+1 >= len(text) || text[i+1] != ' ' {
		return ""
	}
	name := text[:i]
	words := strings.Split(name, " ")
	if len(words) > 3 {
		return ""
	}
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) {
			return ""
		}
		for _, c := range w {
			if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '.' && c != '-' && c != '\'' {
				return ""
			}
		}
	}
	return name
}

// candidatePool returns n zeroed Candidates from scratch kept between
// Ranks (a retrieve's pool is a few hundred of ~160 bytes, and the server
// collects at GOGC 25); Rank puts it back when done, since score only
// reads it and what Rank returns are copies. Pools of more than
// maxKeptPool candidates are not kept.
func (ix *Index) candidatePool(n int) []Candidate {
	if p, _ := ix.pools.Get().(*[]Candidate); p != nil && cap(*p) >= n {
		pool := (*p)[:n]
		clear(pool)
		return pool
	}
	return make([]Candidate, n, max(n, 64))
}

// keepPool keeps pool for the next Rank unless it is too large.
func (ix *Index) keepPool(pool []Candidate) {
	if cap(pool) <= maxKeptPool {
		ix.pools.Put(&pool)
	}
}
